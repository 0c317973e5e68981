"""What the selection workbench offers and proposes, decided here so the app only shows it.

* :func:`selection_sets`: the vector sets a selection can run on, the default first (the one
  rule of :mod:`vendiscope.core.vectors.resolve`: gradients, then embeddings, then other
  features, newest first within a kind);
* :func:`curve_sets`: which of the sets the runs drew their diversity-vs-budget curves on are
  offered, and in which order (the first is shown);
* :func:`default_budget`: the budget ``k`` proposed for a dataset.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

from vendiscope.core.store.project import Project
from vendiscope.core.store.vectors import VectorSetInfo
from vendiscope.core.vectors import resolve

SELECTION_MIN_DIM = 2
"""A set offered for selection has at least this many columns."""
DEFAULT_SHARE = 0.10
"""The default budget is this share of the records ..."""
DEFAULT_MAX_K = 1000
"""... but at most this many records."""
BUDGET_RULE = (
    f"The default is {DEFAULT_SHARE:.0%} of the records, rounded to two significant figures "
    f"(at most {DEFAULT_MAX_K:,})"
)
KIND_TITLES = {"gradient": "G-Vendi", "embedding": "embedding-Vendi"}
"""What the Vendi score of a set of each kind is called."""


def selection_sets(project: Project, dataset: str) -> list[VectorSetInfo]:
    """The complete feature sets a selection can run on, the preferred (default) first."""
    return resolve.feature_sets(project, dataset, resolve.PREFERENCE, min_dim=SELECTION_MIN_DIM)


def curve_sets(curves: Iterable[Mapping[str, str]]) -> list[tuple[str, str]]:
    """The sets the runs' curves were measured on, as ``(name, kind)``, the one to show first.

    ``curves`` holds one ``{vector set: kind}`` per run (a run's ``curve["kinds"]``). The
    order is the preference of kinds (G-Vendi's gradients first), then the sets more runs
    drew on, then the name.
    """
    kinds: dict[str, str] = {}
    counts: dict[str, int] = {}
    for run in curves:
        for name, kind in run.items():
            kinds.setdefault(name, kind or "")
            counts[name] = counts.get(name, 0) + 1
    rank = {kind: at for at, kind in enumerate(resolve.PREFERENCE)}
    return sorted(kinds.items(), key=lambda kv: (rank.get(kv[1], len(rank)), -counts[kv[0]], kv[0]))


def curve_title(kind: str, default: str = "Vendi score") -> str:
    """``G-Vendi`` for a gradient set's curve, ``embedding-Vendi`` for an embedding set's."""
    return KIND_TITLES.get(kind, default)


def default_budget(rows: int) -> int:
    """The budget k proposed for a dataset of ``rows`` records.

    10% of the records, rounded to two significant figures so it reads as a chosen number
    (1,245 records: 120, not 124), at most 1,000 and at least 1 (never more than ``rows``).
    """
    share = max(rows, 0) * DEFAULT_SHARE
    step = 10 ** max(0, math.floor(math.log10(max(share, 1.0))) - 1)  # two significant figures
    k = round(share / step) * step
    return max(1, min(rows, k, DEFAULT_MAX_K))
