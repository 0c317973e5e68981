"""The selection job: the most diverse ``k`` records of a dataset, saved as a subset.

``select_dataset`` runs any selector plugin over a vector set (G-Vendi's gradients by
default), optionally weighting by per-record quality and leaving out excluded subsets or
near-duplicates, then records a run with the objective, its diversity-vs-budget curves
(Vendi of each prefix on the gradient and embedding sets, and the same for a random order
as the baseline) and saves the chosen records as a subset with rank and marginal gain.
Every check of the user's input happens before any work starts.

The checks live in :mod:`.job_checks` and the curves in :mod:`.job_curves`; their names stay
importable from here.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from vendiscope.core.base.jobs import CancelToken, NullProgress, Progress
from vendiscope.core.metrics.streaming import needs_streaming
from vendiscope.core.plugin_host.interfaces import VectorSource
from vendiscope.core.plugin_host.registry import PluginRegistry, default_registry
from vendiscope.core.selection.job_checks import (
    SelectionPlan,
    _candidates,  # noqa: F401 - re-exported
    _check_streamable,
    _near_duplicates,  # noqa: F401 - re-exported
    _source_checked,
    _subset_name,  # noqa: F401 - re-exported
    _without_near_duplicates,
    load_checked,
    plan_selection,
)
from vendiscope.core.selection.job_curves import (
    CURVE_KINDS,
    _curves,
    _latest,  # noqa: F401 - re-exported
    _rounded,  # noqa: F401 - re-exported
)
from vendiscope.core.selection.run_result import SelectionCurve, SelectionResult
from vendiscope.core.selection.runner import run_selector
from vendiscope.core.store import subsets
from vendiscope.core.store.models import SubsetInfo
from vendiscope.core.store.project import Project
from vendiscope.core.store.runs import recorded_run
from vendiscope.core.store.vectors import VectorSetInfo
from vendiscope.core.vectors import resolve

RUN_KIND = "selection"


@dataclass(frozen=True)
class SelectionReport:
    """What a selection run chose and how diverse each prefix of it is."""

    dataset: str
    method: str
    k: int
    vector_set: str
    n_candidates: int
    excluded: int
    positions: list[int]
    gains: list[float]
    objective_name: str
    objective: float
    curve: dict[str, Any]
    subset: SubsetInfo
    run_id: int
    seconds: float
    details: dict[str, Any] = field(default_factory=dict)
    computed_on: str = ""
    """The vectors it chose on, as :func:`vendiscope.core.vectors.resolve.describe` says."""

    @property
    def result(self) -> SelectionResult:
        """What the run recorded, typed (stored as its ``to_json()``)."""
        return SelectionResult(
            self.dataset, self.method, self.k, self.vector_set, self.n_candidates,
            self.excluded, self.objective_name, self.objective, self.subset.name, self.run_id,
            round(self.seconds, 3), SelectionCurve.from_json(self.curve), self.details,
            self.computed_on,
        )  # fmt: skip

    def summary(self) -> dict[str, Any]:
        """The headline numbers (:meth:`SelectionResult.summary`)."""
        return self.result.summary()


def resolve_selection_set(project: Project, dataset: str, name: str | None) -> VectorSetInfo:
    """The named complete feature set, or the preferred one (:mod:`.vectors.resolve`)."""
    return resolve.resolve(project, dataset, name, CURVE_KINDS, named=resolve.PREFERENCE)


def select_dataset(
    project: Project,
    dataset: str,
    *,
    method: str,
    k: int,
    vector_set: str | None = None,
    params: dict[str, Any] | None = None,
    quality: str | None = None,
    exclude: Sequence[str] = (),
    drop: Sequence[str] = (),
    dedupe: float | None = None,
    name: str | None = None,
    overwrite: bool = False,
    registry: PluginRegistry | None = None,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> SelectionReport:
    """Select ``k`` records of ``dataset`` with the selector plugin ``method``; save a subset.

    Parameters
    ----------
    method
        A selector plugin name (``greedy-vendi``, ``facility-location``, ``random``, ...).
    k
        The budget: how many records to choose, a whole number from 1 to the candidates
        (checked by :func:`vendiscope.core.selection.budget.check_budget`, once the
        exclusions are known and again after ``dedupe``; a ``BudgetError`` otherwise).
    vector_set
        The features to select on; default the latest gradient set (G-Vendi), else the
        latest embedding set.
    params
        The selector's parameters (e.g. ``{"seed": 1}``), validated by the plugin.
    quality
        A numeric record field or a one-column score set giving per-record weights.
    exclude
        Subsets whose records are not candidates (e.g. ``near-duplicates@0.95``).
    drop
        Signal flags or filters whose records are not candidates (``pii``, ``low-quality``,
        ``words < 5``; :mod:`vendiscope.core.signals.reading`).
    dedupe
        A cosine threshold: find near-duplicates on the selection's vector set first and
        keep only each group's representative as a candidate.
    name, overwrite
        The subset to save (default ``METHOD-k``, :func:`.job_checks.default_subset_name`);
        a name that exists, the default included, is refused before any work unless
        ``overwrite`` (then the subset is replaced).
    """
    started = time.perf_counter()
    progress = progress or NullProgress()
    cancel = cancel or CancelToken()
    params = dict(params or {})
    registry = registry or default_registry()
    selector = registry.create("selector", method, **params)
    target = resolve_selection_set(project, dataset, vector_set)
    plan = plan_selection(
        project, dataset, method, k, target, quality, exclude, dedupe, name, overwrite, drop
    )
    streamed = needs_streaming(target)
    if streamed:
        _check_streamable(registry, selector, method, target, exclude, dedupe)
        matrix: Any = _source_checked(project, dataset, target)
    else:
        matrix = load_checked(project, dataset, plan.target)
    if dedupe is not None:
        plan = _without_near_duplicates(project, dataset, plan, dedupe, progress, cancel)
    k = plan.k  # a plain int, checked against the candidates
    seed = params.get("seed", getattr(selector, "seed", 0))
    run_params = {
        "method": method,
        "params": params,
        "k": k,
        "vector_set": plan.target.name,
        "vector_set_id": plan.target.id,
        "quality": quality,
        "exclude": list(exclude),
        "drop": list(drop),
        "dedupe": dedupe,
        "subset": plan.name,
        "streamed": streamed,
    }
    with recorded_run(
        project,
        key=f"select:{dataset}:{method}:{plan.target.name}",
        kind=RUN_KIND,
        plugin=f"selector:{method}",
        dataset_id=project.dataset(dataset).id,
        params=run_params,
        seed=seed if isinstance(seed, int) else None,
        packages=("numpy", "faiss-cpu", "scipy"),
        cancel=cancel,
        started=started,
    ) as run:
        chosen = _run_selector(registry, selector, method, matrix, plan, progress, cancel)
        positions = plan.candidates[chosen.indices]
        del matrix
        curve = _curves(project, dataset, plan, positions, chosen, seed, progress, cancel)
        gains = _gains(chosen, k)
        subset = subsets.save(
            project, dataset, plan.name, positions.tolist(), gains=gains, run_id=run.id,
            overwrite=overwrite,
            description=f"{method}: {k} of {len(plan.candidates)} candidates on {plan.target.name}",
        )  # fmt: skip
        seconds = run.seconds
        details = _jsonable_details(chosen.details)
        report = SelectionReport(
            dataset, method, k, plan.target.name, len(plan.candidates), plan.excluded,
            positions.tolist(), gains, str(chosen.details.get("objective_name", method)),
            float(chosen.details.get("objective", float("nan"))), curve, subset, run.id,
            seconds, details, resolve.describe(plan.target, run.id),
        )  # fmt: skip
        run.finish(report.result, seconds=seconds)
    return report


def _run_selector(
    registry: PluginRegistry,
    selector: Any,
    method: str,
    matrix: Any,
    plan: SelectionPlan,
    progress: Progress,
    cancel: CancelToken,
) -> Any:
    """:func:`.runner.run_selector` on the plan's candidates.

    ``matrix`` is the loaded set, or a :class:`VectorSource` for a set larger than memory
    (then every record is a candidate).
    """
    weights = None if plan.quality is None else plan.quality[plan.candidates]
    if isinstance(matrix, VectorSource) or len(plan.candidates) == len(matrix):
        rows = matrix
    else:
        rows = matrix[plan.candidates]
    return run_selector(
        registry, method, selector, rows, plan.k, quality=weights, progress=progress, cancel=cancel
    )


def _gains(chosen: Any, k: int) -> list[float]:
    import numpy as np

    if chosen.gains is None:
        return [float("nan")] * k
    return [float(g) for g in np.asarray(chosen.gains, dtype=np.float64)]


def _jsonable_details(details: dict[str, Any]) -> dict[str, Any]:
    """Details worth keeping in the run: scalars and short lists (no per-row arrays)."""
    import numpy as np

    kept: dict[str, Any] = {}
    for key, value in details.items():
        if key == "objective_trace":
            continue
        if isinstance(value, np.generic):
            value = value.item()
        if isinstance(value, str | int | float | bool) or value is None:
            kept[key] = value
        elif isinstance(value, list | tuple | np.ndarray) and len(value) <= 100:
            kept[key] = np.asarray(value).tolist()
        elif isinstance(value, dict) and len(value) <= 100:
            kept[key] = {str(k): v for k, v in value.items() if isinstance(v, str | int | float)}
    return kept
