"""How a job's stored run reads in the monitors: its status and its stored error (Qt-free)."""

from __future__ import annotations

STATUS_TEXT = {
    "running": "Running",
    "complete": "Finished",
    "cancelled": "Cancelled",
    "failed": "Failed",
    "interrupted": "Interrupted",
}
"""A run's status in words."""


def stored_message(error: str) -> str:
    """A stored error (``PluginError('...')``) as its message (other text as it is)."""
    head, paren, rest = error.partition("(")
    if paren and head.isidentifier() and rest.endswith(")"):
        error = rest[:-1].strip("'\"")
    return error
