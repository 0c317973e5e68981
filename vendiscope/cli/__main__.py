"""``python -m vendiscope.cli``: the same as the ``vendiscope`` script."""

from vendiscope.cli import main

main()
