"""What a selection is asked to do, decided once (CLI, API and GUI share it).

A light module (nothing heavy imported), so that a command's options can show the default.
The budget ``k`` has no default a caller must know: the CLI and the Python API ask for it,
and the app proposes :func:`~vendiscope.core.selection.choices.default_budget`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

DEFAULT_METHOD = "greedy-vendi"
"""The selector used unless another is named (G-Vendi's own greedy maximisation)."""


def selector_params(params: Mapping[str, Any] | None, seed: int | None) -> dict[str, Any]:
    """The selector's parameters, with ``seed`` among them when it is given.

    A seed given on its own (``--seed``, ``seed=``) wins over a ``seed`` in ``params``;
    ``params`` is never modified.
    """
    merged = dict(params or {})
    if seed is not None:
        merged["seed"] = seed
    return merged
