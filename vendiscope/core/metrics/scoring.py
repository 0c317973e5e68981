"""The scoring job: a metric (e.g. Vendi) over a vector set, overall and per source.

``G-Vendi`` is the Vendi score of a gradient vector set, ``embedding-Vendi`` the same metric
over an embedding set. Per-record scores (leverage, contribution, uniqueness) are stored as
a one-column vector set named after the run, so views can colour and sort by them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from vendiscope.core.base.errors import ProjectError
from vendiscope.core.base.jobs import CancelToken, NullProgress, Progress
from vendiscope.core.metrics import streaming
from vendiscope.core.metrics.quality import quality_weights
from vendiscope.core.plugins.registry import PluginRegistry, default_registry
from vendiscope.core.store import records, vectors
from vendiscope.core.store.project import Project
from vendiscope.core.store.runs import recorded_run
from vendiscope.core.store.vectors import VectorSetInfo
from vendiscope.core.vectors import resolve

KIND_FOR_METRIC = {"gvendi": "gradient", "vendi": "embedding"}
MIN_SOURCE_ROWS = 2


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

    @property
    def computed_on(self) -> str:
        """The vectors scored, as :func:`vendiscope.core.vectors.resolve.describe` says."""
        return resolve.describe(self.vector_set, self.run_id)


def default_vector_set(project: Project, dataset: str, kind: str) -> VectorSetInfo:
    """The preferred (newest) complete vector set of ``kind`` ("embedding", "gradient", ...)."""
    return resolve.resolve(project, dataset, None, (kind,))


def source_positions(project: Project, dataset: str) -> dict[str, list[int]]:
    """Positions of the records of each source (records without one are left out)."""
    return records.source_positions(project, dataset)


def score_dataset(
    project: Project,
    dataset: str,
    *,
    metric: str = "gvendi",
    vector_set: str | None = None,
    params: dict[str, Any] | None = None,
    quality: str | None = None,
    per_source: bool = True,
    registry: PluginRegistry | None = None,
    memory_budget: int | None = None,
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
    """
    import numpy as np

    started = time.perf_counter()
    progress = progress or NullProgress()
    cancel = cancel or CancelToken()
    params = dict(params or {})
    plugin = "vendi" if metric in KIND_FOR_METRIC else metric
    registry = registry or default_registry()
    instance = registry.create("metric", plugin, **params)  # an unknown metric is said first
    if vector_set is not None:
        target = vectors.get_set(project, dataset, vector_set)
    elif metric in KIND_FOR_METRIC:
        target = default_vector_set(project, dataset, KIND_FOR_METRIC[metric])
    else:
        raise ProjectError(f"metric '{metric}' needs a vector set (--vectors NAME)")
    weights = quality_weights(project, dataset, quality) if quality is not None else None
    run_params = {
        "metric": metric,
        "plugin": plugin,
        "params": params,
        "vector_set": target.name,
        "quality": quality,
    }
    with recorded_run(
        project,
        key=f"score:{dataset}:{metric}:{target.name}",
        kind="metric",
        plugin=f"metric:{plugin}",
        dataset_id=project.dataset(dataset).id,
        params=run_params,
        seed=params.get("seed"),
        cancel=cancel,
        started=started,
    ) as run:
        progress.start(f"Scoring {dataset} ({metric} on {target.name})", total=None)
        breakdown: dict[str, dict[str, float]] = {}
        if plugin == "vendi" and streaming.needs_streaming(target, memory_budget):
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
            with registry.running("metric", plugin, "compute"):
                result = instance.compute(matrix, quality=weights)
            registry.check_result("metric", plugin, result, rows=len(matrix))
            cancel.raise_if_cancelled()
            if per_source:
                for source, positions in source_positions(project, dataset).items():
                    cancel.raise_if_cancelled()
                    if len(positions) >= MIN_SOURCE_ROWS:
                        rows = matrix[np.asarray(positions)]
                        sub_quality = (
                            weights[np.asarray(positions)] if weights is not None else None
                        )
                        with registry.running("metric", plugin, "compute"):
                            part = instance.compute(rows, quality=sub_quality)
                        part = registry.check_result("metric", plugin, part, rows=len(rows))
                        breakdown[source] = {"n": len(positions), "value": float(part.value)}
        per_record_set = None
        if result.per_record is not None:
            per_record_set = _store_per_record(project, dataset, run.id, target, result.per_record)
        progress.finish()
        details = {k: v for k, v in result.details.items() if _jsonable(v)}
        run.finish(
            {
                "value": float(result.value),
                "n": target.n_rows,
                "computed_on": resolve.describe(target, run.id),
                "details": details,
                "per_source": breakdown,
                "per_record_set": per_record_set,
            }
        )
    return ScoreResult(
        metric,
        target,
        float(result.value),
        target.n_rows,
        details,
        breakdown,
        per_record_set,
        run.id,
    )


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
