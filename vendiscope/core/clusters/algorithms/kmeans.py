"""Spherical k-means (FAISS) and the "sparse clusters" of Prismatic Synthesis.

Rows are normalised to unit length (float32) and clustered by cosine similarity
(``faiss.Kmeans(..., spherical=True)``: centroids are renormalised after every iteration).
Following the reference code of Prismatic Synthesis (Jung et al. 2025), the default number
of clusters is ``N / 10`` and a cluster is **sparse** — an under-represented region — when
its size is below the median cluster size.

Cost: FAISS k-means is ``O(n k d)`` per iteration; with ``k = n / 10`` that is quadratic
in ``n`` (about ``2 n^2 d / 10`` flops per iteration), fine for tens of thousands of rows,
slow for millions — pass a smaller ``k`` there.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vendiscope.core.base.jobs import CancelToken, NullProgress, Progress
from vendiscope.core.neighbors.algorithms.faiss_setup import _faiss
from vendiscope.core.neighbors.algorithms.index import normalized

ASSIGN_CHUNK_ROWS = 16_384


@dataclass(frozen=True)
class Clustering:
    """The result of :func:`spherical_kmeans`.

    Attributes
    ----------
    labels
        Cluster of each row (int64, ``0 <= label < n_clusters``).
    centroids
        ``(n_clusters, d)`` float32 unit vectors.
    sizes
        Rows in each cluster (int64; a cluster can end up empty).
    cosine
        Cosine similarity of each row to its centroid (float32), when known.
    """

    labels: np.ndarray
    centroids: np.ndarray
    sizes: np.ndarray
    cosine: np.ndarray | None = None

    @property
    def n_clusters(self) -> int:
        return len(self.sizes)

    @property
    def median_size(self) -> float:
        return float(np.median(self.sizes))

    @property
    def sparse(self) -> np.ndarray:
        """Mask of the sparse clusters: size below the median cluster size."""
        return self.sizes < np.median(self.sizes)


def default_k(n: int) -> int:
    """The reference's number of clusters for ``n`` rows: ``max(1, round(n / 10))``."""
    return max(1, round(n / 10))


def _unit_rows(vectors: object, name: str) -> np.ndarray:
    matrix = np.asarray(vectors)
    if matrix.ndim != 2 or matrix.shape[0] == 0 or matrix.shape[1] == 0:
        raise ValueError(f"{name} must be a non-empty 2-D array; got shape {matrix.shape}")
    if matrix.dtype.kind not in "fiu":
        raise ValueError(f"{name} must hold real numbers; got dtype {matrix.dtype}")
    rows = normalized(matrix)
    bad = np.flatnonzero(~np.isfinite(rows).all(axis=1))
    if bad.size:
        raise ValueError(f"{name}: row {int(bad[0])} has a NaN or infinite value")
    return rows


def assign_to_centroids(
    vectors: np.ndarray, centroids: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The most cosine-similar centroid of each row: ``(labels int64, cosine float32)``.

    An exact FAISS inner-product search of the unit rows against the unit centroids (ties
    go to the lower centroid index, as FAISS returns them). Neither input is modified.
    """
    rows = _unit_rows(vectors, "vectors")
    centres = _unit_rows(centroids, "centroids")
    if rows.shape[1] != centres.shape[1]:
        raise ValueError(
            f"vectors have {rows.shape[1]} dimensions but centroids have {centres.shape[1]}"
        )
    return _assign_unit(rows, centres)


def _assign_unit(rows: np.ndarray, centres: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    faiss = _faiss()
    index = faiss.IndexFlatIP(centres.shape[1])
    index.add(np.ascontiguousarray(centres, dtype=np.float32))
    labels = np.empty(len(rows), dtype=np.int64)
    cosine = np.empty(len(rows), dtype=np.float32)
    for start in range(0, len(rows), ASSIGN_CHUNK_ROWS):
        sims, ids = index.search(rows[start : start + ASSIGN_CHUNK_ROWS], 1)
        labels[start : start + len(ids)] = ids[:, 0]
        cosine[start : start + len(ids)] = sims[:, 0]
    return labels, cosine


def spherical_kmeans(
    vectors: np.ndarray,
    k: int,
    *,
    seed: int = 0,
    niter: int = 20,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> Clustering:
    """Cluster the rows of ``vectors`` into ``k`` clusters by cosine similarity.

    FAISS ``Kmeans(d, k, niter=niter, seed=seed, spherical=True)`` trained on the unit
    float32 rows (FAISS samples at most 256 rows per centroid for training), then every row
    assigned to its most similar centroid (:func:`assign_to_centroids`). Deterministic for a
    given ``seed`` on one machine and thread count. ``vectors`` is not modified.
    """
    progress = progress or NullProgress()
    cancel = cancel or CancelToken()
    rows = _unit_rows(vectors, "vectors")
    n, d = rows.shape
    zero = np.flatnonzero(~(np.abs(rows) > 0).any(axis=1))
    if zero.size:
        raise ValueError(f"vectors: row {int(zero[0])} is all zeros and has no direction")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= n:
        raise ValueError(f"k must be a whole number of clusters between 1 and {n}; got {k!r}")
    if isinstance(niter, bool) or not isinstance(niter, (int, np.integer)) or niter < 1:
        raise ValueError(f"niter must be a whole number >= 1; got {niter!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative whole number; got {seed!r}")
    faiss = _faiss()
    cancel.raise_if_cancelled()
    progress.start(f"spherical k-means ({k} clusters)", total=None)
    kmeans = faiss.Kmeans(
        d, int(k), niter=int(niter), seed=int(seed), spherical=True, verbose=False,
        min_points_per_centroid=1,
    )  # fmt: skip
    kmeans.train(rows)
    progress.finish()
    cancel.raise_if_cancelled()
    centroids = np.array(kmeans.centroids, dtype=np.float32, copy=True)
    labels, cosine = _assign_unit(rows, centroids)
    sizes = np.bincount(labels, minlength=int(k)).astype(np.int64)
    return Clustering(labels=labels, centroids=centroids, sizes=sizes, cosine=cosine)
