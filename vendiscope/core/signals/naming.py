"""How signal values are named in the store: the vector-set kind, the ``signals/NAME`` sets
and the columns a run records (shared by the signal job, the lexical job and the readers)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from vendiscope.core.plugin_host.interfaces import SignalColumn

LEXICAL = "lexical-dups"
"""The built-in signal that is no plugin: lexical near-duplicate groups of the whole dataset
(:mod:`vendiscope.core.signals.lexical`)."""
KIND = "signal"
"""The vector-set kind of signal values."""
PREFIX = "signals/"


def set_name(signal: str) -> str:
    """The vector set holding ``signal``'s values: ``signals/NAME``."""
    return f"{PREFIX}{signal}"


def describe_columns(columns: Sequence[SignalColumn]) -> list[dict[str, Any]]:
    """The columns as the run records them (JSON)."""
    return [
        {"name": c.name, "kind": c.kind, "help": c.help, "categories": list(c.categories)}
        for c in columns
    ]


__all__ = ["KIND", "LEXICAL", "PREFIX", "describe_columns", "set_name"]
