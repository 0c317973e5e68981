"""The selection job: the most diverse ``k`` records of a dataset, saved as a subset.

``select_dataset`` runs any selector plugin over a vector set (G-Vendi's gradients by
default), optionally weighting by per-record quality and leaving out excluded subsets or
near-duplicates, then records a run with the objective, its diversity-vs-budget curves
(Vendi of each prefix on the gradient and embedding sets, and the same for a random order
as the baseline) and saves the chosen records as a subset with rank and marginal gain.
Every check of the user's input happens before any work starts.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vendiscope.core.base.errors import ProjectError
from vendiscope.core.base.jobs import CancelToken, NullProgress, Progress
from vendiscope.core.metrics import curves
from vendiscope.core.metrics.quality import quality_weights
from vendiscope.core.metrics.streaming import ENV_BUDGET, memory_budget, needs_streaming, set_bytes
from vendiscope.core.plugins.interfaces import StreamingSelector, VectorSource
from vendiscope.core.plugins.registry import PluginRegistry, default_registry
from vendiscope.core.store import subsets, vectors
from vendiscope.core.store.models import SubsetInfo
from vendiscope.core.store.project import Project
from vendiscope.core.store.runs import recorded_run
from vendiscope.core.store.vectors import VectorSetInfo
from vendiscope.core.vectors import resolve

if TYPE_CHECKING:
    import numpy as np

RUN_KIND = "selection"
CURVE_KINDS = ("gradient", "embedding")
"""Besides the selection's own vector set, curves are drawn on the best set of each kind."""


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

    def summary(self) -> dict[str, Any]:
        final = {name: values[-1] for name, values in self.curve["vendi"].items()}
        baseline = {name: values[-1] for name, values in self.curve["random"].items()}
        return {
            "dataset": self.dataset,
            "method": self.method,
            "k": self.k,
            "vector_set": self.vector_set,
            "computed_on": self.computed_on,
            "candidates": self.n_candidates,
            "excluded": self.excluded,
            "objective": {"name": self.objective_name, "value": self.objective},
            "vendi": final,
            "random_vendi": baseline,
            "subset": self.subset.name,
            "run_id": self.run_id,
            "seconds": round(self.seconds, 3),
        }


@dataclass(frozen=True)
class _Plan:
    """Everything checked before work starts."""

    target: VectorSetInfo
    candidates: np.ndarray
    excluded: int
    quality: np.ndarray | None
    """One weight per record of the dataset (not per candidate), or None."""
    name: str


def resolve_selection_set(project: Project, dataset: str, name: str | None) -> VectorSetInfo:
    """The named complete feature set, or the preferred one (:mod:`.vectors.resolve`)."""
    return resolve.resolve(project, dataset, name, CURVE_KINDS, named=resolve.PREFERENCE)


def _latest(project: Project, dataset: str, kind: str) -> VectorSetInfo | None:
    found = resolve.feature_sets(project, dataset, (kind,))
    return found[0] if found else None


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
        The budget: how many records to choose (``1 <= k <=`` candidates).
    vector_set
        The features to select on; default the latest gradient set (G-Vendi), else the
        latest embedding set.
    params
        The selector's parameters (e.g. ``{"seed": 1}``), validated by the plugin.
    quality
        A numeric record field or a one-column score set giving per-record weights.
    exclude
        Subsets whose records are not candidates (e.g. ``near-duplicates@0.95``).
    dedupe
        A cosine threshold: find near-duplicates on the selection's vector set first and
        keep only each group's representative as a candidate.
    name, overwrite
        The subset to save (default ``METHOD-k``, numbered if taken); an explicit name
        that exists is refused unless ``overwrite``.
    """
    started = time.perf_counter()
    progress = progress or NullProgress()
    cancel = cancel or CancelToken()
    params = dict(params or {})
    registry = registry or default_registry()
    _check_budget(k)
    selector = registry.create("selector", method, **params)
    target = resolve_selection_set(project, dataset, vector_set)
    plan = _plan(project, dataset, method, k, target, quality, exclude, dedupe, name, overwrite)
    streamed = needs_streaming(target)
    if streamed:
        _check_streamable(registry, selector, method, target, exclude, dedupe)
        matrix: Any = _source_checked(project, dataset, target)
    else:
        matrix = _load_checked(project, dataset, plan.target)
    if dedupe is not None:
        plan = _without_near_duplicates(project, dataset, plan, k, dedupe, progress, cancel)
    seed = params.get("seed", getattr(selector, "seed", 0))
    run_params = {
        "method": method,
        "params": params,
        "k": k,
        "vector_set": plan.target.name,
        "vector_set_id": plan.target.id,
        "quality": quality,
        "exclude": list(exclude),
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
        chosen = _run_selector(registry, selector, method, matrix, plan, k, progress, cancel)
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
        run.finish({**report.summary(), "curve": curve, "details": details}, seconds=seconds)
    return report


def _check_budget(k: object) -> None:
    if isinstance(k, bool) or not isinstance(k, int):
        raise ProjectError(f"k must be a whole number of records; got {k!r}")
    if k < 1:
        raise ProjectError(f"k must be at least 1; got {k}")


def _plan(
    project: Project,
    dataset: str,
    method: str,
    k: int,
    target: VectorSetInfo,
    quality: str | None,
    exclude: Sequence[str],
    dedupe: float | None,
    name: str | None,
    overwrite: bool,
) -> _Plan:
    import numpy as np

    info = project.dataset(dataset)
    if k > info.row_count:
        raise ProjectError(f"k = {k} is larger than dataset '{dataset}' ({info.row_count} records)")
    if dedupe is not None and not 0.0 < dedupe <= 1.0:
        raise ProjectError(f"dedupe must be a cosine similarity in (0, 1]; got {dedupe}")
    subset_name = _subset_name(project, dataset, method, k, name, overwrite)
    excluded = np.zeros(info.row_count, dtype=bool)
    for subset in exclude:
        excluded[subsets.members(project, dataset, subset).positions] = True
    weights = quality_weights(project, dataset, quality) if quality is not None else None
    return _candidates(target, excluded, weights, k, subset_name)


def _candidates(
    target: VectorSetInfo, excluded: np.ndarray, weights: np.ndarray | None, k: int, name: str
) -> _Plan:
    import numpy as np

    candidates = np.flatnonzero(~excluded)
    if k > len(candidates):
        raise ProjectError(
            f"k = {k} is larger than the {len(candidates)} candidates left after leaving "
            f"out {int(excluded.sum())} excluded records"
        )
    if weights is not None and not (weights[candidates] > 0).any():
        raise ProjectError("quality: every candidate has weight 0")
    return _Plan(target, candidates, int(excluded.sum()), weights, name)


def _without_near_duplicates(
    project: Project,
    dataset: str,
    plan: _Plan,
    k: int,
    threshold: float,
    progress: Progress,
    cancel: CancelToken,
) -> _Plan:
    import numpy as np

    excluded = np.ones(plan.target.n_rows, dtype=bool)
    excluded[plan.candidates] = False
    excluded[_near_duplicates(project, dataset, plan.target, threshold, progress, cancel)] = True
    return _candidates(plan.target, excluded, plan.quality, k, plan.name)


def _subset_name(
    project: Project, dataset: str, method: str, k: int, name: str | None, overwrite: bool
) -> str:
    if name is not None:
        subsets.check_name(name)
        if not overwrite:
            subsets.refuse_existing(project, dataset, name)
        return name
    taken = {s.name for s in project.subsets(dataset)}
    base = f"{method}-{k}"
    candidate, number = base, 2
    while candidate in taken:
        candidate, number = f"{base}-{number}", number + 1
    return candidate


def _near_duplicates(
    project: Project,
    dataset: str,
    target: VectorSetInfo,
    threshold: float,
    progress: Progress,
    cancel: CancelToken,
) -> list[int]:
    from vendiscope.core.neighbors.search import find_near_duplicates

    report = find_near_duplicates(
        project, dataset, target.name, threshold=threshold, save=False,
        progress=progress, cancel=cancel,
    )  # fmt: skip
    return [p for group in report.groups for p in group.redundant]


def _load_checked(project: Project, dataset: str, target: VectorSetInfo) -> np.ndarray:
    import numpy as np

    matrix = vectors.load(project, dataset, target.name)
    finite = np.isfinite(matrix).all(axis=1)
    if not finite.all():
        row = int(np.flatnonzero(~finite)[0])
        raise ProjectError(
            f"vector set '{target.name}' of dataset '{dataset}': row {row} (record {row}) "
            f"holds NaN or infinite values ({int((~finite).sum())} such rows); recompute it"
        )
    return matrix


def _run_selector(
    registry: PluginRegistry,
    selector: Any,
    method: str,
    matrix: Any,
    plan: _Plan,
    k: int,
    progress: Progress,
    cancel: CancelToken,
) -> Any:
    """Run the selector plugin; its failures and malformed results are reported by name.

    ``matrix`` is the loaded set, or a :class:`VectorSource` for a set larger than memory
    (then every record is a candidate).
    """
    import numpy as np

    weights = None if plan.quality is None else plan.quality[plan.candidates]
    with registry.running("selector", method, "select"):
        if isinstance(matrix, VectorSource):
            chosen = selector.select_streamed(matrix, k, quality=weights, progress=progress,
                                              cancel=cancel)  # fmt: skip
            n_rows = matrix.n
        else:
            everything = len(plan.candidates) == len(matrix)
            rows = matrix if everything else matrix[plan.candidates]
            chosen = selector.select(rows, k, quality=weights, progress=progress, cancel=cancel)
            n_rows = len(rows)
    registry.check_result("selector", method, chosen, rows=n_rows, k=k)
    chosen.indices = np.asarray(chosen.indices).astype(np.int64)
    return chosen


def _check_streamable(
    registry: PluginRegistry,
    selector: Any,
    method: str,
    target: VectorSetInfo,
    exclude: Sequence[str],
    dedupe: float | None,
) -> None:
    """Refuse, before any work, what a set larger than memory cannot do."""
    size, budget = set_bytes(target) / 2**30, memory_budget() / 2**30
    where = (
        f"vector set '{target.name}' ({size:.2f} GiB) is larger than the memory budget "
        f"({budget:.2f} GiB, {ENV_BUDGET})"
    )
    if not isinstance(selector, StreamingSelector):
        able = [
            c.name
            for c in registry.contributions("selector")
            if issubclass(registry.load("selector", c.name), StreamingSelector)
        ]
        raise ProjectError(
            f"{where}, and selector '{method}' needs it in memory; selectors that read it "
            f"chunk by chunk: {', '.join(able) or 'none'}"
        )
    if exclude or dedupe is not None:
        raise ProjectError(f"{where}: --exclude and --dedupe need it in memory")


def _source_checked(project: Project, dataset: str, target: VectorSetInfo) -> VectorSource:
    """The set as a chunk source, after one pass that refuses NaN or infinite rows."""
    import numpy as np

    for start, chunk in vectors.iter_chunks(project, dataset, target.name):
        finite = np.isfinite(chunk).all(axis=1)
        if not finite.all():
            row = start + int(np.argmin(finite))
            raise ProjectError(
                f"vector set '{target.name}' of dataset '{dataset}': row {row} (record {row}) "
                "holds NaN or infinite values; recompute it"
            )
    return VectorSource(
        n=target.n_rows,
        dim=target.dim,
        dtype=target.dtype,
        chunks=lambda: vectors.iter_chunks(project, dataset, target.name),
        rows=lambda positions: vectors.read_rows(project, target, list(positions)),
    )


def _gains(chosen: Any, k: int) -> list[float]:
    import numpy as np

    if chosen.gains is None:
        return [float("nan")] * k
    return [float(g) for g in np.asarray(chosen.gains, dtype=np.float64)]


def _curves(
    project: Project,
    dataset: str,
    plan: _Plan,
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
