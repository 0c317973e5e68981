"""Launch Vendiscope: ``python main.py [PROJECT]``.

With no argument it opens the bundled demo project (created on first use). The desktop
window arrives with the GUI; until then this prints the project summary in the terminal.
"""

from __future__ import annotations

import sys


def main(argv: list[str]) -> int:
    from vendiscope.cli._app import app

    args = ["demo"] if not argv else ["datasets", *argv]
    return app(args, standalone_mode=False) or 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
