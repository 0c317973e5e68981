"""The ``vendiscope`` command line: headless commands over the core API.

Importing this package (or any module in it) registers every command on the Typer app
(:mod:`vendiscope.cli._commands`), so ``from vendiscope.cli._app import app`` is the whole CLI.
"""

from __future__ import annotations

from vendiscope.cli._commands import app


def main() -> None:
    """Entry point of the ``vendiscope`` script: Ctrl-C always ends it (:mod:`._interrupt`)."""
    from vendiscope.cli._interrupt import stop_guard

    with stop_guard():
        app()


__all__ = ["app", "main"]
