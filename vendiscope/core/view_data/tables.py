"""The tables views and reports show: per source, per cluster, near-duplicate groups, coverage.

Each is built from stored runs (:mod:`vendiscope.core.view_data.runs`) and records; two
exceptions compute something, and say so: :func:`source_contributions` (one streaming pass
over a stored vector set) and :func:`coverage_data` (a coverage run, recorded like
``vendiscope coverage``).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from vendiscope.core.base.errors import ProjectError
from vendiscope.core.clusters.run_result import ClusterResult
from vendiscope.core.neighbors.options import CoverageOptions
from vendiscope.core.store import vectors
from vendiscope.core.store.view_queries import record_sources
from vendiscope.core.view_data.constants import MAX_CONTRIBUTION_SOURCES, NO_SOURCE, VENDI_METRICS
from vendiscope.core.view_data.missing import NotComputed, command
from vendiscope.core.view_data.records import record_texts
from vendiscope.core.view_data.runs import (
    cluster_labels,
    cluster_run,
    near_duplicate_summary,
    score_summary,
)

if TYPE_CHECKING:
    from vendiscope.core.store.project import Project


# ----------------------------------------------------------------------------- sources
def source_table(
    project: Project, dataset: str, *, contributions: str | None = "auto"
) -> dict[str, Any]:
    """Per source: records, share, G-Vendi and embedding-Vendi of the source alone, and what
    the source adds to the whole (its leave-one-out contribution, see
    :func:`source_contributions`).

    ``gvendi_equal_n`` / ``vendi_equal_n``: the score at the smallest source's size (an
    :func:`vendiscope.core.metrics.algorithms.equal_n.summary`, None for runs from before it), the
    one
    to compare sources of different sizes by; ``equal_n`` maps each metric to that size.

    ``contributions``: ``"gvendi"`` or ``"vendi"`` (on that score's vector set), ``"auto"``
    (G-Vendi's set if scored, else embedding-Vendi's), or None (skip: no vectors are read).
    Missing scores leave their columns None.
    """
    stats = project.stats(dataset)
    total = int(stats["rows"])
    scores: dict[str, dict[str, Any] | None] = {}
    for metric in VENDI_METRICS:
        try:
            scores[metric] = score_summary(project, dataset, metric)
        except NotComputed:
            scores[metric] = None
    basis = None
    if contributions == "auto":
        basis = next((m for m in VENDI_METRICS if scores[m] is not None), None)
    elif contributions is not None:
        if contributions not in VENDI_METRICS:
            raise ProjectError(f"contributions must be gvendi, vendi, auto or None; got "
                               f"'{contributions}'")  # fmt: skip
        basis = contributions if scores[contributions] is not None else None
    added: dict[str, float | None] = {}
    whole = None
    if basis is not None:
        summary = scores[basis]
        assert summary is not None
        found = source_contributions(project, dataset, summary["vector_set"])
        added, whole = found["contributions"], found["whole"]
    rows = []
    for name, count in stats["sources"].items():
        key = None if name == NO_SOURCE else name
        row: dict[str, Any] = {"source": name, "records": int(count),
                               "share": count / total if total else 0.0}  # fmt: skip
        for metric in VENDI_METRICS:
            per_source = (scores[metric] or {}).get("per_source") or {}
            entry = per_source.get(key) if key is not None else None
            row[metric] = float(entry["value"]) if entry else None
            row[f"{metric}_equal_n"] = (entry or {}).get("equal_n")
        row["contribution"] = added.get(name) if basis is not None else None
        rows.append(row)
    return {
        "dataset": dataset,
        "records": total,
        "sources": rows,
        "contribution_basis": basis,
        # mypy, on the next line: scores[basis] is a dict when basis is set
        "contribution_vector_set": scores[basis]["vector_set"] if basis else None,  # type: ignore[index]
        "whole": whole,
        "scores": {m: (s["run_id"] if s else None) for m, s in scores.items()},
        "equal_n": {m: _common_size(rows, m) for m in VENDI_METRICS},
    }


def _common_size(rows: list[dict[str, Any]], metric: str) -> int | None:
    """The size the sources' ``metric`` scores are compared at (None: a run without it)."""
    return next((r[f"{metric}_equal_n"]["n"] for r in rows if r[f"{metric}_equal_n"]), None)


def source_contributions(
    project: Project, dataset: str, vector_set: str, *, max_sources: int = MAX_CONTRIBUTION_SOURCES
) -> dict[str, Any]:
    """What each source adds to the dataset's Vendi score (q = 1) on ``vector_set``.

    ``contribution(s) = VS(all records) - VS(all records except source s)``, in the score's
    unit (effective number of distinct examples). It can be negative: leaving out a large
    source of near-copies can make the rest *more* diverse. One streaming pass over the set
    accumulates each source's ``X_s^T X_s`` (``d x d``); the largest ``max_sources`` sources
    get a value, the others None.
    """
    import numpy as np

    from vendiscope.core.metrics.algorithms.vendi import vendi_from_gram

    info = vectors.get_set(project, dataset, vector_set)
    sources = [s if s is not None else NO_SOURCE for s in record_sources(project, dataset)]
    names, codes, counts = np.unique(np.asarray(sources, dtype=object), return_inverse=True,
                                     return_counts=True)  # fmt: skip
    kept = np.argsort(-counts, kind="stable")[:max_sources]
    slot = np.full(len(names), len(kept), dtype=np.int64)  # the rest share one Gram
    slot[kept] = np.arange(len(kept))
    row_slot = slot[codes]
    grams = np.zeros((len(kept) + 1, info.dim, info.dim), dtype=np.float64)
    for start, chunk in vectors.iter_chunks(project, dataset, vector_set):
        block = chunk.astype(np.float32)
        block = block / np.maximum(np.linalg.norm(block, axis=1, keepdims=True), 1e-12)
        here = row_slot[start : start + len(block)]
        for s in np.unique(here):
            rows = block[here == s]
            grams[s] += (rows.T @ rows).astype(np.float64)
    total = grams.sum(axis=0)
    n = len(sources)
    whole = vendi_from_gram(total, n)
    out: dict[str, float | None] = {str(name): None for name in names}
    for position, code in enumerate(kept):
        rest = n - int(counts[code])
        out[str(names[code])] = (
            round(whole - vendi_from_gram(total - grams[position], rest), 6) if rest else whole
        )
    return {"vector_set": vector_set, "whole": round(whole, 6), "contributions": out}


# ----------------------------------------------------------------------------- near-dups
def near_duplicate_groups(
    project: Project, dataset: str, *, top: int = 10, members: int = 4, width: int = 160
) -> list[dict[str, Any]]:
    """The ``top`` largest near-duplicate groups with the texts of their first ``members``."""
    summary = near_duplicate_summary(project, dataset)
    groups = summary["group_positions"][:top]
    wanted = [p for g in groups for p in g[:members]]
    texts = record_texts(project, dataset, wanted, width)
    return [
        {"size": len(g), "representative": g[0],
         "records": [texts[p] for p in g[:members] if p in texts]}
        for g in groups
    ]  # fmt: skip


# ----------------------------------------------------------------------------- clusters
def cluster_table(project: Project, dataset: str, subset: str | None = None) -> dict[str, Any]:
    """Cluster sizes and sparse clusters of the latest clustering; with ``subset``, how many
    of its members fall in each cluster and how many clusters (and sparse ones) it reaches."""
    import numpy as np

    from vendiscope.core.store import subsets

    run = cluster_run(project, dataset)
    stored = ClusterResult.from_json(run.result)
    sizes, sparse = stored.sizes, stored.sparse
    table: dict[str, Any] = {
        "run_id": run.id,
        "vector_set": stored.vector_set,
        "n_clusters": len(sizes),
        "median_size": stored.median_size,
        "sizes": sizes,
        "sparse": sparse,
        "records_in_sparse": int(sum(sizes[c] for c in sparse)),
        "records": int(sum(sizes)),
        "subset": subset,
    }
    if subset is not None:
        positions = subsets.members(project, dataset, subset).positions
        labels = cluster_labels(project, dataset, run)
        counts = np.bincount(labels[np.asarray(positions, dtype=np.int64)], minlength=len(sizes))
        hit = counts > 0
        table.update(
            subset_size=len(positions),
            subset_counts=[int(c) for c in counts],
            clusters_reached=int(hit.sum()),
            sparse_reached=int(hit[sparse].sum()) if sparse else 0,
            subset_in_sparse=int(counts[sparse].sum()) if sparse else 0,
        )
    return table


def sparse_cluster_examples(
    project: Project, dataset: str, *, limit: int = 10, width: int = 200
) -> list[dict[str, Any]]:
    """The smallest sparse clusters (up to ``limit``) with example records (from the run)."""
    stored = ClusterResult.from_json(cluster_run(project, dataset).result)
    sizes = stored.sizes
    listed = list(stored.examples.items())[:limit]
    texts = record_texts(project, dataset, [p for _, ps in listed for p in ps], width)
    return [
        {"cluster": int(c), "size": int(sizes[int(c)]),
         "records": [texts[p] for p in ps if p in texts]}
        for c, ps in listed
    ]  # fmt: skip


# ----------------------------------------------------------------------------- coverage
def coverage_data(
    project: Project,
    dataset: str,
    target: str,
    *,
    radius: float = CoverageOptions.min_similarity,
    vector_set: str | None = None,
    target_vector_set: str | None = None,
    train_subset: str | None = None,
    listed: int = 50,
    width: int = 200,
    step: float = 0.01,
) -> dict[str, Any]:
    """How well ``dataset`` covers ``target``: runs
    :func:`vendiscope.core.neighbors.search.coverage`
    (recorded as a coverage run) and returns the fraction within ``radius``, the quantiles,
    the covered fraction at every radius on a grid (``step`` apart, the radius included),
    and the least covered targets (up to ``listed``) beside their nearest training record."""
    import numpy as np

    from vendiscope.core.neighbors.search import coverage
    from vendiscope.core.vectors.resolve import resolve

    for name, given in ((dataset, vector_set), (target, target_vector_set)):
        if given is None:
            try:
                resolve(project, name, None, ("embedding",))
            except ProjectError:
                hint = command(project, "embed", name)
                raise NotComputed(f"embeddings of '{name}'", hint) from None
    report = coverage(project, dataset, vector_set, target, target_vector_set, radius=radius,
                      train_subset=train_subset)  # fmt: skip
    sims = report.similarities.astype(np.float64)
    low = math.floor(min(float(sims.min()), radius) * 20) / 20 if len(sims) else 0.0
    low = max(low, -1.0)
    count = round((1.0 - low) / step) + 1
    radii = np.union1d(np.round(np.linspace(low, 1.0, count), 6), [round(radius, 6)])
    ordered = np.sort(sims)
    covered_at = 1.0 - np.searchsorted(ordered, radii, side="left") / max(len(sims), 1)
    worst = [int(i) for i in np.argsort(sims, kind="stable")[:listed] if sims[i] < radius]
    targets = record_texts(project, target, worst, width)
    nearest = [int(report.nearest[i]) for i in worst]
    trains = record_texts(project, dataset, [p for p in nearest if p >= 0], width)
    return {
        **report.summary(),
        "uncovered_count": len(report.uncovered),
        "radii": [round(float(r), 6) for r in radii],
        "covered_at": [round(float(c), 6) for c in covered_at],
        "least_covered": [
            {"target": targets.get(i, {"position": i, "text": ""}),
             "similarity": round(float(sims[i]), 6),
             "nearest": trains.get(p, {"position": p, "text": ""})}
            for i, p in zip(worst, nearest, strict=True)
        ],
    }  # fmt: skip


__all__ = [
    "cluster_table",
    "coverage_data",
    "near_duplicate_groups",
    "source_contributions",
    "source_table",
    "sparse_cluster_examples",
]
