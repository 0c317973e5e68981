"""Facility location on a sparse kNN similarity graph, maximised by lazy greedy."""

from __future__ import annotations

import heapq
import time
from typing import Literal

import numpy as np

from vendiscope.core.base.jobs import CancelToken, Progress
from vendiscope.core.plugin_host.interfaces import Selection
from vendiscope.core.selection.algorithms._checks import check_quality, check_vectors
from vendiscope.core.selection.algorithms._result import job, selection
from vendiscope.core.selection.algorithms.knn_graph import KnnGraph, knn_graph
from vendiscope.core.selection.budget import check_budget


def _benefits(graph: KnnGraph, weights: np.ndarray | None) -> np.ndarray:
    """``b_ij``: how well row ``i`` is represented by its neighbour ``j`` (float64)."""
    benefit = graph.similarities.astype(np.float64)
    if weights is not None:
        benefit *= weights[graph.neighbors]
    return benefit


def facility_objective(
    graph: KnnGraph, selected: np.ndarray, quality: np.ndarray | None = None
) -> float:
    """``f(S) = sum_i max_{j in S and N(i)} q_j sim(i, j)`` (0 for a row with no neighbour in S)."""
    member = np.zeros(graph.n, dtype=bool)
    member[np.asarray(selected, dtype=np.int64)] = True
    weights = None if quality is None else np.asarray(quality, dtype=np.float64)
    benefit = np.where(member[graph.neighbors], _benefits(graph, weights), 0.0)
    return float(benefit.max(axis=1).sum())


def facility_location(
    vectors: np.ndarray,
    k: int,
    *,
    n_neighbors: int = 32,
    index: Literal["auto", "flat", "ivf", "hnsw"] = "auto",
    quality: np.ndarray | None = None,
    seed: int = 0,
    graph: KnnGraph | None = None,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> Selection:
    """Maximise the facility-location function over a sparse cosine kNN graph.

    ``f(S) = sum_i max_{j in S, j in N(i)} b_ij`` with ``N(i)`` row ``i`` and its
    ``n_neighbors`` nearest rows (:func:`~vendiscope.core.selection.algorithms.knn_graph.knn_graph`,
    similarities clipped at 0): every row wants a similar selected row among its neighbours;
    a row with none contributes 0. ``f`` is monotone submodular, so **lazy greedy** (a heap
    of stale gains, which only shrink) makes exactly the picks of plain greedy — within
    ``1 - 1/e`` of the optimum — while recomputing few gains. Ties go to the lower index.

    Quality: ``b_ij = q_j sim(i, j)`` — a row is represented by a selected neighbour only as
    well as that neighbour's quality allows (still facility location, still submodular), so
    among similar candidates the better one wins; rows of quality 0 are never picked.
    Without quality ``b_ij = sim(i, j)``.

    Objective ``"facility_location"``: ``f(S)`` (``details["objective_mean"]`` is
    ``f(S) / n``, the mean similarity of a row to its representative). Gains are the
    marginal gains; the trace is their running sum.

    Memory ``O(n * n_neighbors)``: the graph (8 bytes an edge) and its transpose (16 bytes an
    edge), never ``n x n``. ``graph`` (from :func:`knn_graph` on the same rows) skips
    building it; ``seed`` seeds an IVF index's training.
    """
    progress, cancel = job(progress, cancel)
    matrix, _ = check_vectors(vectors)
    n = matrix.shape[0]
    k = check_budget(k, n)
    weights = check_quality(quality, n, k)
    if graph is None:
        graph = knn_graph(
            matrix, n_neighbors, index=index, seed=seed, progress=progress, cancel=cancel
        )
    elif graph.n != n:
        raise ValueError(f"graph has {graph.n} rows but vectors has {n}")
    started = time.perf_counter()
    width = graph.neighbors.shape[1]
    targets = graph.neighbors.ravel()
    benefit = _benefits(graph, weights).ravel()
    # The transpose: for candidate j, the rows i that have j as a neighbour, and b_ij.
    order = np.argsort(targets, kind="stable")
    sources = (order // width).astype(graph.neighbors.dtype)
    incoming = benefit[order]
    bounds = np.concatenate([[0], np.cumsum(np.bincount(targets, minlength=n))])
    del order

    gains0 = np.bincount(targets, weights=benefit, minlength=n)
    eligible = np.ones(n, dtype=bool) if weights is None else weights > 0
    heap = [(-float(gains0[j]), int(j)) for j in np.flatnonzero(eligible)]
    heapq.heapify(heap)
    fresh = np.zeros(n, dtype=np.int64)  # the step at which each heap value was computed
    best = np.zeros(n)  # max benefit of each row from the picks so far
    picked = np.empty(k, dtype=np.int64)
    gains = np.empty(k)
    evaluations = 0
    progress.start("facility location (lazy greedy)", total=k, unit="picks")
    for t in range(k):
        cancel.raise_if_cancelled()
        while True:
            negative, j = heapq.heappop(heap)
            if fresh[j] == t:
                break
            segment = slice(bounds[j], bounds[j + 1])
            rows = sources[segment]
            gain = float(np.maximum(incoming[segment] - best[rows], 0.0).sum())
            evaluations += 1
            fresh[j] = t
            heapq.heappush(heap, (-gain, j))
        picked[t] = j
        gains[t] = -negative
        segment = slice(bounds[j], bounds[j + 1])
        rows = sources[segment]
        best[rows] = np.maximum(best[rows], incoming[segment])
        progress.update(t + 1)
    progress.finish()
    objective = float(best.sum())
    return selection(
        picked,
        gains,
        np.cumsum(gains),
        objective_name="facility_location",
        objective=objective,
        objective_mean=objective / n,
        method="facility-location",
        n_neighbors=graph.n_neighbors,
        graph=graph.info,
        evaluations=evaluations,
        select_seconds=round(time.perf_counter() - started, 3),
        weighted=weights is not None,
    )
