"""The ``vendiscope`` command line: headless commands over the core API."""

from __future__ import annotations


def main() -> None:
    """Entry point of the ``vendiscope`` script."""
    from vendiscope.cli._app import app

    app()


__all__ = ["main"]
