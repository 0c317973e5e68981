"""Launch Vendiscope: ``python main.py [PROJECT]``.

With no argument it opens the bundled demo project (built in your user data folder the first
time, as a job in the window). ``vendiscope`` with no argument opens the start page instead;
``vendiscope demo`` prints the demo project's summary in the terminal.
"""

from __future__ import annotations

import sys


def main(argv: list[str]) -> int:
    from vendiscope.gui.app import main as gui_main

    return gui_main(argv if argv else ["--demo"])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
