"""Prismatic sparse-cluster sampling: draw from the under-represented regions of the data."""

from __future__ import annotations

from typing import Literal

import numpy as np

from vendiscope.core.base.jobs import CancelToken, Progress
from vendiscope.core.clusters.algorithms.kmeans import Clustering, default_k, spherical_kmeans
from vendiscope.core.plugin_host.interfaces import Selection
from vendiscope.core.selection.algorithms._checks import (
    check_choice,
    check_positive_int,
    check_quality,
    check_seed,
    check_vectors,
)
from vendiscope.core.selection.algorithms._result import job, selection
from vendiscope.core.selection.algorithms.random_choice import weighted_order
from vendiscope.core.selection.budget import check_budget

MODES = ("hard", "soft")


def prismatic(
    vectors: np.ndarray,
    k: int,
    *,
    n_clusters: int = 0,
    mode: Literal["hard", "soft"] = "hard",
    quality: np.ndarray | None = None,
    seed: int = 0,
    niter: int = 20,
    clustering: Clustering | None = None,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> Selection:
    """Sample ``k`` rows favouring sparse clusters (Prismatic Synthesis, Jung et al. 2025).

    The rows are clustered by spherical k-means (:func:`vendiscope.core.clusters.algorithms.kmeans.
    spherical_kmeans`; ``n_clusters=0`` means the reference's ``round(n / 10)``); a
    cluster smaller than the median cluster size is *sparse*.

    ``mode="hard"``: draw only from rows of sparse clusters, uniformly without replacement.
    If they hold fewer than ``k`` rows, all of them are taken (in random order) and the rest
    is filled from the other clusters, smallest clusters first (random order within a size);
    ``details["filled_from_dense"]`` says how many. ``mode="soft"``: draw from all rows
    with probability proportional to ``1 / size of the row's cluster`` — every cluster gets
    about the same share, so small clusters are over-sampled relative to their size.

    Quality: multiplies the drawing weight (within the chosen clusters, proportional to
    quality); rows of quality 0 are never drawn.

    Objective ``"clusters_covered"``: the number of distinct k-means clusters among the
    picks; the trace counts them after each pick and a gain is 1 when the pick opens a new
    cluster, else 0. ``clustering`` (from ``spherical_kmeans`` on the same rows) skips the
    clustering step; ``seed`` seeds both k-means and the draws.
    """
    progress, cancel = job(progress, cancel)
    # mypy, on the next line: check_choice returns str; mode is the Literal
    mode = check_choice("mode", mode, MODES)  # type: ignore[assignment]
    matrix, _ = check_vectors(vectors)
    n = matrix.shape[0]
    k = check_budget(k, n)
    weights = check_quality(quality, n, k)
    seed = check_seed(seed)
    if clustering is None:
        count = check_positive_int("n_clusters", n_clusters, minimum=0) or default_k(n)
        if count > n:
            raise ValueError(f"n_clusters={count} is larger than the number of rows ({n})")
        clustering = spherical_kmeans(
            matrix, count, seed=seed, niter=niter, progress=progress, cancel=cancel
        )
    elif len(clustering.labels) != n:
        raise ValueError(f"clustering has {len(clustering.labels)} rows but vectors has {n}")
    cancel.raise_if_cancelled()
    labels = clustering.labels
    sizes = clustering.sizes
    sparse = clustering.sparse
    in_sparse = sparse[labels]
    q = np.ones(n) if weights is None else weights
    rng = np.random.default_rng(seed)
    progress.start(f"prismatic sampling ({mode})", total=k, unit="rows")
    filled = 0
    if mode == "soft":
        picked = weighted_order(q / sizes[labels], rng, k)
    else:
        pool = np.where(in_sparse, q, 0.0)
        available = int(np.count_nonzero(pool > 0))
        if available >= k:
            picked = weighted_order(pool, rng, k)
        else:
            first = weighted_order(pool, rng, available) if available else np.empty(0, np.int64)
            rest = np.flatnonzero(~in_sparse & (q > 0))
            u = rng.random(len(rest))
            keys = np.log(u) / q[rest]  # random order within a size, favouring quality
            rest = rest[np.lexsort((-keys, sizes[labels[rest]]))]
            filled = k - available
            picked = np.concatenate([first, rest[:filled]]).astype(np.int64)
    progress.update(k)
    progress.finish()

    seen = np.zeros(clustering.n_clusters, dtype=bool)
    gains = np.zeros(k)
    for t, row in enumerate(picked):
        if not seen[labels[row]]:
            seen[labels[row]] = True
            gains[t] = 1.0
    return selection(
        picked,
        gains,
        np.cumsum(gains),
        objective_name="clusters_covered",
        method="prismatic",
        mode=mode,
        n_clusters=clustering.n_clusters,
        n_sparse=int(np.count_nonzero(sparse)),
        empty_clusters=int(np.count_nonzero(sizes == 0)),
        median_size=clustering.median_size,
        sparse_rows=int(np.count_nonzero(in_sparse)),
        picked_from_sparse=int(np.count_nonzero(in_sparse[picked])),
        filled_from_dense=int(filled),
        fill_rule="smallest clusters first" if filled else None,
        weighted=weights is not None,
        seed=seed,
    )
