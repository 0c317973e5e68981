"""The diversity of every planned subset, by each metric the study compares.

``g-vendi`` and ``embedding-vendi`` are the Vendi score (order 1, cosine) of the subset's rows
of the pool's gradient and embedding sets; ``ngram`` is the lexical baseline
(:func:`~vendiscope.core.studies.algorithms.lexical.ngram_diversity` of prompt and response); any
other
name is a metric plugin, computed on the gradient rows. Repeated rows (duplicate-heavy
subsets) are scored as they are trained: repeated.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from vendiscope.core.base.errors import ProjectError
from vendiscope.core.base.jobs import CancelToken, Progress
from vendiscope.core.metrics.algorithms import vendi
from vendiscope.core.store import vectors
from vendiscope.core.store.project import Project
from vendiscope.core.studies.algorithms.lexical import ngram_diversity
from vendiscope.core.studies.algorithms.plan import PlannedSubset
from vendiscope.core.studies.options import BUILTIN_METRICS, StudyOptions
from vendiscope.core.vectors import resolve

if TYPE_CHECKING:
    from vendiscope.core.plugin_host.registry import PluginRegistry
    from vendiscope.core.studies.examples import Examples

_KINDS = {"g-vendi": ("gradient", "feature"), "embedding-vendi": ("embedding",)}


def score_subsets(
    project: Project,
    options: StudyOptions,
    plan: Sequence[PlannedSubset],
    examples: Examples,
    registry: PluginRegistry,
    *,
    progress: Progress,
    cancel: CancelToken,
) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """Each metric's value per subset (plan order), and notes on metrics that were skipped.

    A metric whose vectors the pool lacks is skipped with a note naming the command that
    computes them; when every metric is skipped, a :class:`ProjectError` says why.
    """
    pool = examples.dataset
    found: dict[str, dict[str, Any]] = {}
    notes: list[str] = []
    loaded: dict[str, tuple[str, np.ndarray]] = {}
    progress.start("Scoring the subsets' diversity", total=len(options.metrics), unit="metrics")
    for done, metric in enumerate(options.metrics):
        cancel.raise_if_cancelled()
        kind = "embedding-vendi" if metric == "embedding-vendi" else "g-vendi"
        entry: dict[str, Any] = {"label": BUILTIN_METRICS.get(metric, metric), "vector_set": None}
        if metric != "ngram":
            try:
                if kind not in loaded:
                    loaded[kind] = _rows(project, pool, options, kind)
            except ProjectError as exc:
                notes.append(f"{entry['label']} skipped: {exc}")
                continue
            entry["vector_set"], rows = loaded[kind]
        if metric == "ngram":
            values = [ngram_diversity(examples.texts(s.positions)) for s in plan]
        elif metric in _KINDS:
            values = [vendi.vendi_score(rows[list(s.positions)]) for s in plan]
        else:
            values = _plugin_values(registry, metric, rows, plan)
        entry["values"] = [float(v) for v in values]
        found[metric] = entry
        progress.update(done + 1)
    progress.finish()
    if not found:
        raise ProjectError("no metric could be computed: " + "; ".join(notes))
    return found, notes


def _rows(project: Project, pool: str, options: StudyOptions, kind: str) -> tuple[str, np.ndarray]:
    name = options.embedding_set if kind == "embedding-vendi" else options.vector_set
    info = resolve.resolve(project, pool, name, _KINDS[kind])
    return info.name, vectors.load(project, pool, info.name).astype(np.float64, copy=False)


def _plugin_values(
    registry: PluginRegistry, metric: str, rows: np.ndarray, plan: Sequence[PlannedSubset]
) -> list[float]:
    instance = registry.create("metric", metric)
    values = []
    for subset in plan:
        matrix = rows[list(subset.positions)]
        with registry.running("metric", metric, "compute"):
            result = instance.compute(matrix, quality=None)
        registry.check_result("metric", metric, result, rows=len(matrix))
        values.append(float(result.value))
    return values
