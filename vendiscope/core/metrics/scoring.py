"""The scoring job: a metric (e.g. Vendi) over a vector set, overall and per source.

``G-Vendi`` is the Vendi score of a gradient vector set, ``embedding-Vendi`` the same metric
over an embedding set. Per-record scores (leverage, contribution, uniqueness) are stored as
a one-column vector set named after the run, so views can colour and sort by them.

``subset=NAME`` scores only that subset's rows (:mod:`.subset_scoring`), recorded as a run of
kind ``subset-score`` with ``params["subset"]``; ``vs_random=True`` adds the random baseline
of its size (``random_draws`` random subsets, :mod:`.subset_baseline`). A subset run stores
no per-record scores.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from vendiscope.core.base.errors import ProjectError
from vendiscope.core.base.jobs import CancelToken, NullProgress, Progress
from vendiscope.core.metrics import resolution_check, streaming, subset_scoring
from vendiscope.core.metrics.algorithms import equal_n, group_check, vendi
from vendiscope.core.metrics.options import ScoreOptions
from vendiscope.core.metrics.quality import quality_weights
from vendiscope.core.metrics.run_result import ScoreRunResult
from vendiscope.core.plugin_host.registry import PluginRegistry, default_registry
from vendiscope.core.store import record_lookup, vectors
from vendiscope.core.store.project import Project
from vendiscope.core.store.runs import recorded_run
from vendiscope.core.store.vectors import VectorSetInfo
from vendiscope.core.vectors import resolve

KIND_FOR_METRIC = {"gvendi": "gradient", "vendi": "embedding"}
DRAWS_AT_N = equal_n.DEFAULT_DRAWS
MIN_SOURCE_ROWS = subset_scoring.MIN_SOURCE_ROWS


@dataclass(frozen=True)
class ScoreResult:
    metric: str
    vector_set: VectorSetInfo
    value: float
    n: int
    details: dict[str, Any]
    per_source: dict[str, dict[str, float]]
    per_record_set: str | None
    run_id: int
    subset: str | None = None
    """The subset scored (``None``: the whole dataset)."""
    vs_random: dict[str, Any] | None = None
    """The random baseline of a subset (:func:`.subset_baseline.random_baseline`), if drawn."""

    @property
    def fraction(self) -> float:
        """The score per record: the effective fraction of distinct examples."""
        return self.value / self.n if self.n else 0.0

    @property
    def computed_on(self) -> str:
        """The vectors scored, as :func:`vendiscope.core.vectors.resolve.describe` says."""
        return resolve.describe(self.vector_set, self.run_id)


def default_vector_set(project: Project, dataset: str, kind: str) -> VectorSetInfo:
    """The preferred (newest) complete vector set of ``kind`` ("embedding", "gradient", ...)."""
    return resolve.resolve(project, dataset, None, (kind,))


def source_positions(project: Project, dataset: str) -> dict[str, list[int]]:
    """Positions of the records of each source (records without one are left out)."""
    return record_lookup.source_positions(project, dataset)


def score_dataset(
    project: Project,
    dataset: str,
    *,
    metric: str = ScoreOptions.metric,
    vector_set: str | None = None,
    params: dict[str, Any] | None = None,
    quality: str | None = None,
    per_source: bool = True,
    registry: PluginRegistry | None = None,
    memory_budget: int | None = None,
    subset: str | None = None,
    vs_random: bool = False,
    random_draws: int = ScoreOptions.random_draws,
    random_seed: int = ScoreOptions.random_seed,
    at_n: int | None = None,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> ScoreResult:
    """Score ``dataset`` with a metric plugin over one of its vector sets, and record the run.

    ``metric`` is ``gvendi`` (Vendi over the latest gradient set), ``vendi`` (over the latest
    embedding set), or any metric plugin name (then ``vector_set`` is required).
    ``quality`` names a numeric record field or a one-column score set whose values weight
    the records (see :mod:`vendiscope.core.metrics.quality`); it is checked before the run starts.
    A set larger than ``memory_budget`` bytes (default: :func:`.streaming.memory_budget`) is
    scored by the built-in Vendi metric streaming over its stored chunks.
    ``subset`` scores only that subset's records (an unknown name is refused before the run,
    listing the dataset's subsets); ``vs_random=True`` compares it with ``random_draws``
    random subsets of its size (seeded by ``random_seed``), its random baseline (the built-in
    Vendi metric only). ``at_n`` also scores the dataset at that size, the mean over random
    draws (:mod:`.equal_n`), so datasets of different sizes compare at equal n
    (``details["at_n"]``; the built-in Vendi metric only).
    """
    started = time.perf_counter()
    progress = progress or NullProgress()
    cancel = cancel or CancelToken()
    params = dict(params or {})
    plugin = "vendi" if metric in KIND_FOR_METRIC else metric
    draws = subset_scoring.check_request(plugin, subset, vs_random, random_draws)
    _check_at_n(at_n, plugin, subset, quality)
    if subset is not None and plugin == "vendi":
        params.setdefault("per_record", None)  # a subset run stores no per-record scores
    registry = registry or default_registry()
    instance = registry.create("metric", plugin, **params)  # an unknown metric is said first
    positions = None
    if subset is not None:
        positions = subset_scoring.subset_positions(project, dataset, subset)
    if vector_set is not None:
        target = vectors.get_set(project, dataset, vector_set)
    elif metric in KIND_FOR_METRIC:
        target = default_vector_set(project, dataset, KIND_FOR_METRIC[metric])
    else:
        raise ProjectError(f"metric '{metric}' needs a vector set (--vectors NAME)")
    if positions is not None:
        subset_scoring.check_fits(target, len(positions), draws, memory_budget)
    if at_n is not None and at_n > target.n_rows:
        raise ProjectError(
            f"--at-n {at_n:,} is more than the {target.n_rows:,} rows of '{dataset}'; "
            "compare at the smaller dataset's size"
        )
    weights = quality_weights(project, dataset, quality) if quality is not None else None
    run_params = {
        "metric": metric,
        "plugin": plugin,
        "params": params,
        "vector_set": target.name,
        "quality": quality,
    }
    if at_n is not None:
        run_params["at_n"] = at_n
    key = f"score:{dataset}:{metric}:{target.name}"
    if subset is not None:
        run_params.update(
            subset=subset, vs_random=vs_random, random_draws=draws, random_seed=random_seed
        )
        key += f":subset:{subset}"
    with recorded_run(
        project,
        key=key,
        kind="metric" if subset is None else subset_scoring.SUBSET_KIND,
        plugin=f"metric:{plugin}",
        dataset_id=project.dataset(dataset).id,
        params=run_params,
        seed=params.get("seed"),
        cancel=cancel,
        started=started,
    ) as run:
        what = dataset if subset is None else f"subset {subset} of {dataset}"
        progress.start(f"Scoring {what} ({metric} on {target.name})", total=None)
        breakdown: dict[str, dict[str, float]] = {}
        baseline = matrix = None
        n = target.n_rows
        if positions is not None:
            n = len(positions)
            result, breakdown, baseline = subset_scoring.score_subset(
                project, dataset, target, instance, plugin, registry, positions,
                weights=weights, per_source=per_source, draws=draws, seed=random_seed,
                cancel=cancel,
            )  # fmt: skip
        elif plugin == "vendi" and streaming.needs_streaming(target, memory_budget):
            # Larger than memory: X^T X over the stored chunks (core/metrics/streaming.py).
            sources = source_positions(project, dataset) if per_source else None
            with registry.running("metric", plugin, "compute"):
                result, breakdown = streaming.stream_vendi(
                    project, dataset, target, instance, quality=weights, sources=sources,
                    min_source_rows=MIN_SOURCE_ROWS, budget=memory_budget, progress=progress,
                    cancel=cancel,
                )  # fmt: skip
        else:
            matrix = vectors.load(project, dataset, target.name)
            sources = source_positions(project, dataset) if per_source else None
            result, breakdown = subset_scoring.score_matrix(
                matrix, instance, plugin, registry, weights=weights, sources=sources,
                cancel=cancel, projected=target.kind == "gradient",
            )  # fmt: skip
        if positions is None and plugin == "vendi":
            what = resolution_check.metric_name(target)
            progress.start(f"Checking whether {what} tells the groups of {dataset} apart")
            _add_check(result.details, resolution_check.run_check(
                project, dataset, target, matrix=matrix, q=getattr(instance, "q", 1.0),
                cancel=cancel,
            ))  # fmt: skip
        if at_n is not None:
            result.details["at_n"] = _score_at(project, dataset, target, matrix, at_n,
                                               instance, random_seed, cancel)  # fmt: skip
        per_record_set = None
        if result.per_record is not None and positions is None:
            per_record_set = _store_per_record(project, dataset, run.id, target, result.per_record)
        progress.finish()
        details = {k: v for k, v in result.details.items() if _jsonable(v)}
        stored = ScoreRunResult(
            value=float(result.value), n=n, computed_on=resolve.describe(target, run.id),
            details=details, per_source=breakdown, per_record_set=per_record_set,
            subset=subset, vs_random=baseline,
        )  # fmt: skip
        run.finish(stored.to_json())
    return ScoreResult(
        metric,
        target,
        float(result.value),
        n,
        details,
        breakdown,
        per_record_set,
        run.id,
        subset,
        baseline,
    )


def _check_at_n(at_n: int | None, plugin: str, subset: str | None, quality: str | None) -> None:
    if at_n is None:
        return
    if plugin != "vendi" or subset is not None or quality is not None:
        raise ProjectError(
            "--at-n scores a whole dataset, unweighted, with the built-in Vendi metric only"
        )
    if isinstance(at_n, bool) or int(at_n) != at_n or at_n < 2:
        raise ProjectError(f"--at-n must be a whole number of rows, at least 2; got {at_n!r}")


def _score_at(
    project: Project, dataset: str, target: VectorSetInfo, matrix: Any, at_n: int,
    instance: Any, seed: int, cancel: CancelToken,
) -> dict[str, Any]:  # fmt: skip
    """The dataset's score at ``at_n`` rows (the mean over draws), read from memory or disk."""
    import numpy as np

    from vendiscope.core.metrics.subset_baseline import unit_rows

    rng = np.random.default_rng(seed)
    picks = [np.sort(rng.choice(target.n_rows, at_n, replace=False)) for _ in range(DRAWS_AT_N)]
    if at_n == target.n_rows:
        picks = picks[:1]
    scores = []
    for chosen in picks:
        cancel.raise_if_cancelled()
        rows = matrix[chosen] if matrix is not None else vectors.read_rows(
            project, target, chosen.tolist())  # fmt: skip
        scores.append(
            vendi.vendi_score(unit_rows(rows), q=getattr(instance, "q", 1.0), normalize=False)
        )
    return equal_n.summary(scores, at_n, of=target.n_rows)


def _add_check(details: dict[str, Any], found: dict[str, Any]) -> None:
    """The resolution check becomes the result's verdict; the spectrum's reading is kept."""
    details["group_check"] = found
    if "verdict" in details:
        details["spectrum_verdict"] = details["verdict"]
    details["verdict"] = group_check.verdict(found)


def _store_per_record(
    project: Project, dataset: str, run_id: int, source: VectorSetInfo, scores: Any
) -> str:
    name = f"scores/run-{run_id}"
    params = {"run_id": run_id, "vector_set": source.name}
    vectors.write_matrix(project, dataset, name, scores, kind="score", model=source.model,
                         params=params, run_id=run_id)  # fmt: skip
    return name


def _jsonable(value: Any) -> bool:
    import json

    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True
