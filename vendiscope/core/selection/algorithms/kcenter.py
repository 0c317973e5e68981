"""k-center greedy (farthest-point traversal): the coreset selection of Sener & Savarese 2018."""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from vendiscope.core.base.jobs import CancelToken, Progress
from vendiscope.core.plugin_host.interfaces import Selection, VectorSource
from vendiscope.core.selection.algorithms._checks import (
    check_choice,
    check_quality,
    check_seed,
    check_vectors,
)
from vendiscope.core.selection.algorithms._result import job, selection
from vendiscope.core.selection.algorithms._rows import Rows
from vendiscope.core.selection.algorithms.random_choice import weighted_order
from vendiscope.core.selection.budget import check_budget

METRICS = ("cosine", "euclidean")


def k_center(
    vectors: np.ndarray,
    k: int,
    *,
    metric: Literal["cosine", "euclidean"] = "cosine",
    quality: np.ndarray | None = None,
    seed: int = 0,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> Selection:
    """Greedy k-center: each pick is the row farthest from the rows picked so far.

    The first pick is a random row (seeded; proportional to ``quality`` when given). The
    objective is the **covering radius** ``max_i min_{j in S} dist(i, j)`` over all rows,
    which greedy keeps within twice the optimum (Gonzalez 1985); *smaller is better*
    (``details["objective_sense"] == "minimize"``). The trace holds the radius after each
    pick and a gain is the reduction of the radius by the pick (the first pick, which
    replaces an infinite radius, has gain 0).

    ``metric``: ``"cosine"`` (distance ``1 - cos``, in ``[0, 2]``, on rows normalised to
    unit length) or ``"euclidean"`` (on the rows as they are).

    Quality: the pick maximises ``quality_i * dist(i, S)`` — among far rows the better ones
    win, and a row of quality 0 is never picked; the radius still covers every row.

    Cost: one pass over the rows per pick (``O(n d)``, chunked matrix-vector products), so
    ``O(n d k)`` in all; memory ``O(n)`` besides the rows (plus a prepared float32/float64
    copy of them when it is under 1 GiB, to save re-normalising every pass).
    """
    progress, cancel = job(progress, cancel)
    metric = check_choice("metric", metric, METRICS)
    matrix, squares = check_vectors(vectors, nonzero=metric == "cosine")
    rows = Rows(matrix, squares, normalize=metric == "cosine")
    rows.materialize()
    return traverse(rows, k, metric=metric, quality=quality, seed=seed, progress=progress,
                    cancel=cancel)  # fmt: skip


def k_center_streamed(
    source: VectorSource,
    k: int,
    *,
    metric: Literal["cosine", "euclidean"] = "cosine",
    quality: np.ndarray | None = None,
    seed: int = 0,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> Selection:
    """:func:`k_center` over a set read chunk by chunk: the same picks, memory ``O(n)``.

    One pass over the set per pick (plus one to measure the rows), so ``k`` passes in all.
    """
    from vendiscope.core.selection.streamed import StreamedRows

    progress, cancel = job(progress, cancel)
    metric = check_choice("metric", metric, METRICS)
    rows = StreamedRows(source, normalize=metric == "cosine", nonzero=metric == "cosine")
    return traverse(rows, k, metric=metric, quality=quality, seed=seed, progress=progress,
                    cancel=cancel)  # fmt: skip


def traverse(
    rows: Any,
    k: int,
    *,
    metric: str,
    quality: np.ndarray | None,
    seed: int,
    progress: Progress,
    cancel: CancelToken,
) -> Selection:
    """The farthest-point traversal over ``rows`` (a :class:`Rows` or a streamed one)."""
    n = rows.n
    k = check_budget(k, n)
    weights = check_quality(quality, n, k)
    rng = np.random.default_rng(check_seed(seed))

    eligible = np.ones(n, dtype=bool) if weights is None else weights > 0
    first = int(
        weighted_order(np.where(eligible, 1.0 if weights is None else weights, 0.0), rng, 1)[0]
    )
    nearest = np.full(n, np.inf)
    picked = np.empty(k, dtype=np.int64)
    radius = np.empty(k)
    progress.start(f"k-center ({metric})", total=k, unit="picks")
    pick = first
    for t in range(k):
        cancel.raise_if_cancelled()
        picked[t] = pick
        eligible[pick] = False
        centre = rows.take(np.array([pick]))[0]
        product = rows.products(centre)
        if metric == "cosine":
            distance = np.clip(1.0 - product, 0.0, 2.0)
        else:
            distance = np.sqrt(np.maximum(rows.squares + rows.squares[pick] - 2.0 * product, 0.0))
        distance[pick] = 0.0
        np.minimum(nearest, distance, out=nearest)
        radius[t] = float(nearest.max())
        if t + 1 < k:
            score = nearest if weights is None else nearest * weights
            pick = int(np.argmax(np.where(eligible, score, -1.0)))
        progress.update(t + 1)
    progress.finish()
    gains = np.concatenate([[0.0], radius[:-1] - radius[1:]])
    return selection(
        picked,
        gains,
        radius,
        objective_name="covering_radius",
        objective_sense="minimize",
        method="k-center",
        metric=metric,
        first_pick=first,
        weighted=weights is not None,
        seed=int(seed),
    )
