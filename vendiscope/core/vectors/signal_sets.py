"""How signal values are stored: vector sets of kind ``signal`` named ``signals/NAME``, one
float32 column per :class:`~vendiscope.core.plugin_host.interfaces.SignalColumn`, and the
configuration their run records (the columns by name, kind and categories).

Shared by everything that writes or reads signal values: the signal job, the lexical job,
the readers (:mod:`vendiscope.core.signals`) and the featurizer job, which stores a signal a
featurizer computes on the way (each record's loss, beside its gradients).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from vendiscope.core.plugin_host.interfaces import Signal, SignalColumn

LEXICAL = "lexical-dups"
"""The built-in signal that is no plugin: lexical near-duplicate groups of the whole dataset
(:mod:`vendiscope.core.signals.lexical`)."""
KIND = "signal"
"""The vector-set kind of signal values."""
PREFIX = "signals/"
IDENTITY = ("signal", "model_id", "target")
"""The configuration keys that change a signal's values (others, e.g. a batch size, may not)."""


def set_name(signal: str, target: str | None = None) -> str:
    """The vector set holding ``signal``'s values: ``signals/NAME`` (``@TARGET`` when the
    signal compares each record with the dataset ``target``)."""
    return f"{PREFIX}{signal}" if target is None else f"{PREFIX}{signal}@{target}"


def describe_columns(columns: Sequence[SignalColumn]) -> list[dict[str, Any]]:
    """The columns as the run records them (JSON)."""
    return [
        {"name": c.name, "kind": c.kind, "help": c.help, "categories": list(c.categories)}
        for c in columns
    ]


def signal_config(
    signal: str, instance: Signal, params: dict[str, Any], target: str | None = None
) -> dict[str, Any]:
    """What a signal set's run records: the plugin, its parameters, its columns, its id."""
    return {
        "signal": signal,
        "signal_params": params,
        "target": target,
        "columns": describe_columns(tuple(instance.columns)),
        "model_id": instance.model_id,
        "describe": instance.describe(),
    }


__all__ = [
    "IDENTITY",
    "KIND",
    "LEXICAL",
    "PREFIX",
    "describe_columns",
    "set_name",
    "signal_config",
]
