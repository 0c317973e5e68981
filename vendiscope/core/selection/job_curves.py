"""The diversity-vs-budget curves a selection run records: Vendi of each prefix of the chosen
records, and of a random order as the baseline, on the selection's vector set and the latest
set of each :data:`CURVE_KINDS`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from vendiscope.core.base.jobs import CancelToken, Progress
from vendiscope.core.metrics import curves
from vendiscope.core.store import vectors
from vendiscope.core.store.project import Project
from vendiscope.core.store.vectors import VectorSetInfo
from vendiscope.core.vectors import resolve

if TYPE_CHECKING:
    import numpy as np

    from vendiscope.core.selection.job_checks import SelectionPlan

CURVE_KINDS = ("gradient", "embedding")
"""Besides the selection's own vector set, curves are drawn on the best set of each kind."""


def _latest(project: Project, dataset: str, kind: str) -> VectorSetInfo | None:
    found = resolve.feature_sets(project, dataset, (kind,))
    return found[0] if found else None


def _curves(
    project: Project,
    dataset: str,
    plan: SelectionPlan,
    positions: np.ndarray,
    chosen: Any,
    seed: Any,
    progress: Progress,
    cancel: CancelToken,
) -> dict[str, Any]:
    """Vendi of each prefix on the selection set and the latest gradient/embedding sets."""
    import numpy as np

    k = len(positions)
    budgets = curves.budget_points(k)
    baseline_seed = seed if isinstance(seed, int) else 0
    baseline = plan.candidates[curves.random_order(len(plan.candidates), k, baseline_seed)]
    sets = [plan.target] + [
        s
        for s in (_latest(project, dataset, kind) for kind in CURVE_KINDS)
        if s is not None and s.id != plan.target.id
    ]
    progress.start("diversity-vs-budget curves", total=len(sets), unit="vector sets")
    chosen_curves: dict[str, list[float]] = {}
    random_curves: dict[str, list[float]] = {}
    both = np.concatenate([positions, baseline])
    for done, info in enumerate(sets, 1):
        cancel.raise_if_cancelled()
        rows = vectors.read_rows(project, info, both.tolist())
        order = np.arange(k)
        chosen_curves[info.name] = _rounded(curves.prefix_vendi(rows, order, budgets))
        random_curves[info.name] = _rounded(curves.prefix_vendi(rows, order + k, budgets))
        progress.update(done)
    progress.finish()
    trace = chosen.details.get("objective_trace")
    objective = (
        _rounded([float(trace[b - 1]) for b in budgets]) if trace is not None and len(trace) == k
        else None
    )  # fmt: skip
    return {
        "budgets": budgets,
        "objective": objective,
        "objective_name": chosen.details.get("objective_name"),
        "vendi": chosen_curves,
        "random": random_curves,
        "kinds": {info.name: info.kind for info in sets},
    }


def _rounded(values: Sequence[float]) -> list[float]:
    return [round(float(v), 6) for v in values]
