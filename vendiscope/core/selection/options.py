"""What a selection is asked to do, decided once (CLI, API and GUI share it).

A light module (nothing heavy imported), so that a command's options can show the default.
The budget ``k`` has no default a caller must know: the CLI and the Python API ask for it,
and the app proposes :func:`~vendiscope.core.selection.choices.default_budget`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any

from vendiscope.core.plugin_host.options import OperationOptions
from vendiscope.core.plugin_host.params import Label, Range, Unit


@dataclass(frozen=True)
class SelectOptions(OperationOptions):
    """The settings of one selection besides its budget ``k`` (checked by
    :func:`~vendiscope.core.selection.budget.check_budget` once the candidates are known)."""

    OPERATION = "select"

    method: Annotated[
        str,
        Label("Selector"),
        "Selector: greedy-vendi (G-Vendi's own greedy maximisation), prismatic, k-center, "
        "facility-location, dpp, random, or a selector plugin's name.",
    ] = "greedy-vendi"
    dedupe: Annotated[
        float | None,
        Range(gt=0, le=1),
        Unit("cosine similarity"),
        Label("De-duplicate at"),
        "Drop near-duplicates at this similarity first, keeping one of each group; none: keep "
        "them.",
    ] = None
    seed: Annotated[
        int | None, Range(0), "Seed of the selector; none: the selector's own default."
    ] = None


DEFAULT_METHOD = SelectOptions.method
"""The selector used unless another is named."""


def selector_params(params: Mapping[str, Any] | None, seed: int | None) -> dict[str, Any]:
    """The selector's parameters, with ``seed`` among them when it is given.

    A seed given on its own (``--seed``, ``seed=``) wins over a ``seed`` in ``params``;
    ``params`` is never modified.
    """
    merged = dict(params or {})
    if seed is not None:
        merged["seed"] = seed
    return merged
