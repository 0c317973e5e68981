"""2-D maps of a vector set: UMAP fed with the FAISS kNN graph, or PCA as the fast fallback.

UMAP spends most of its time finding neighbours; Vendiscope already has a FAISS index for
that, so the kNN graph (cosine) is computed once with FAISS and handed to umap-learn through
``precomputed_knn``. Sets larger than ``fit_sample`` rows are fitted on a random sample; the
other rows are placed at the similarity-weighted mean position of their nearest fitted
neighbours (what UMAP's own ``transform`` starts from), and the result says so.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vendiscope.core.base.jobs import CancelToken, NullProgress, Progress
from vendiscope.core.maps.options import MapOptions

if TYPE_CHECKING:
    import numpy as np

FIT_SAMPLE = MapOptions.fit_sample
"""Above this many rows, UMAP is fitted on a sample and the rest are placed by neighbours."""
PLACE_NEIGHBORS = 10
TRUST_SAMPLE = 2_000
"""Rows on which the trustworthiness of a map is measured (scikit-learn's, O(n^2))."""


@dataclass(frozen=True)
class Map2D:
    """Coordinates of every row, and how they were made."""

    coords: np.ndarray
    method: str
    fitted_rows: int
    placed_rows: int
    details: dict[str, Any] = field(default_factory=dict)


def knn_graph(
    matrix: np.ndarray,
    k: int,
    *,
    seed: int = 0,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """Each row's ``k`` nearest rows by cosine (itself first): indices and cosine distances."""
    import numpy as np

    from vendiscope.core.neighbors.algorithms.index import build_index

    progress = progress or NullProgress()
    cancel = cancel or CancelToken()
    index = build_index(matrix, n_queries=len(matrix), seed=seed, progress=progress,
                        cancel=cancel)  # fmt: skip
    indices = np.empty((len(matrix), k), dtype=np.int64)
    sims = np.empty((len(matrix), k), dtype=np.float32)
    batch = 4096
    progress.start("finding nearest neighbours", total=len(matrix), unit="rows")
    for start in range(0, len(matrix), batch):
        cancel.raise_if_cancelled()
        found_sims, found = index.search(matrix[start : start + batch], k)
        indices[start : start + batch] = found
        sims[start : start + batch] = found_sims
        progress.update(min(start + batch, len(matrix)))
    progress.finish()
    _put_self_first(indices, sims)
    distances = np.clip(1.0 - sims, 0.0, 2.0).astype(np.float32)
    return indices, distances, index.describe()


def _put_self_first(indices: np.ndarray, sims: np.ndarray) -> None:
    """UMAP expects each row to be its own first neighbour (exact duplicates can tie)."""
    import numpy as np

    own = np.arange(len(indices))
    wrong = indices[:, 0] != own
    for row in np.flatnonzero(wrong):
        where = np.flatnonzero(indices[row] == row)
        slot = int(where[0]) if len(where) else indices.shape[1] - 1
        indices[row, 1 : slot + 1] = indices[row, :slot].copy()
        sims[row, 1 : slot + 1] = sims[row, :slot].copy()
        indices[row, 0], sims[row, 0] = row, 1.0


def umap_map(
    matrix: np.ndarray,
    *,
    n_neighbors: int = MapOptions.n_neighbors,
    min_dist: float = MapOptions.min_dist,
    seed: int = 0,
    fit_sample: int = FIT_SAMPLE,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> Map2D:
    """UMAP of the rows (cosine), its neighbour graph from FAISS."""
    import numpy as np

    progress = progress or NullProgress()
    cancel = cancel or CancelToken()
    n = len(matrix)
    if n < 3:
        raise ValueError(f"a map needs at least 3 rows; got {n}")
    rng = np.random.default_rng(seed)
    fitted = np.sort(rng.choice(n, size=fit_sample, replace=False)) if n > fit_sample else None
    sample = matrix if fitted is None else matrix[fitted]
    k = min(n_neighbors, len(sample) - 1)
    started = time.perf_counter()
    indices, distances, index = knn_graph(sample, k, seed=seed, progress=progress, cancel=cancel)
    knn_seconds = time.perf_counter() - started
    cancel.raise_if_cancelled()
    progress.start(f"laying out {len(sample)} points (UMAP)", total=None)
    coords = _fit_umap(sample, indices, distances, k, min_dist, seed)
    progress.finish()
    details = {"knn_seconds": round(knn_seconds, 3), "index": index, "n_neighbors": k,
               "min_dist": min_dist}  # fmt: skip
    if fitted is None:
        return Map2D(coords.astype(np.float32), "umap", n, 0, details)
    full = place_by_neighbors(matrix, fitted, coords, progress=progress, cancel=cancel)
    details["note"] = (
        f"UMAP fitted on a random sample of {len(fitted)} of {n} rows; the other rows are "
        f"placed at the weighted mean of their {PLACE_NEIGHBORS} nearest fitted rows"
    )
    return Map2D(full, "umap", len(fitted), n - len(fitted), details)


def _fit_umap(
    sample: np.ndarray, indices: np.ndarray, distances: np.ndarray, k: int, min_dist: float,
    seed: int,
) -> np.ndarray:  # fmt: skip
    import umap

    model = umap.UMAP(
        n_neighbors=k, min_dist=min_dist, metric="cosine", random_state=seed,
        precomputed_knn=(indices, distances), n_jobs=1, init="spectral" if len(sample) > k + 1
        else "random",
    )  # fmt: skip
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*knn_search_index.*")
        warnings.filterwarnings("ignore", message=".*n_jobs value 1 overridden.*")
        warnings.filterwarnings("ignore", message=".*Graph is not fully connected.*")
        return model.fit_transform(sample)


def place_by_neighbors(
    matrix: np.ndarray,
    fitted: np.ndarray,
    fitted_coords: np.ndarray,
    *,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> np.ndarray:
    """Coordinates for every row: fitted rows keep theirs, others the weighted mean of
    their nearest fitted rows (weights: cosine similarity, clipped at a small positive)."""
    import numpy as np

    from vendiscope.core.neighbors.algorithms.index import build_index

    progress = progress or NullProgress()
    cancel = cancel or CancelToken()
    coords = np.empty((len(matrix), 2), dtype=np.float32)
    coords[fitted] = fitted_coords
    rest = np.setdiff1d(np.arange(len(matrix)), fitted, assume_unique=True)
    index = build_index(matrix[fitted], n_queries=len(rest), progress=progress, cancel=cancel)
    progress.start("placing the other rows on the map", total=len(rest), unit="rows")
    batch = 8192
    k = min(PLACE_NEIGHBORS, len(fitted))
    for start in range(0, len(rest), batch):
        cancel.raise_if_cancelled()
        rows = rest[start : start + batch]
        sims, found = index.search(matrix[rows], k)
        weights = np.clip(sims, 1e-3, None)
        weights /= weights.sum(axis=1, keepdims=True)
        coords[rows] = np.einsum("rk,rkc->rc", weights, fitted_coords[found])
        progress.update(min(start + batch, len(rest)))
    progress.finish()
    return coords


def pca_map(matrix: np.ndarray, *, seed: int = 0) -> Map2D:
    """The first two principal components of the unit-normalised rows (fast, linear)."""
    import numpy as np
    from sklearn.decomposition import PCA

    if len(matrix) < 3:
        raise ValueError(f"a map needs at least 3 rows; got {len(matrix)}")
    unit = matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
    pca = PCA(n_components=2, random_state=seed, svd_solver="randomized")
    coords = pca.fit_transform(unit).astype(np.float32)
    explained = [round(float(v), 6) for v in pca.explained_variance_ratio_]
    return Map2D(coords, "pca", len(matrix), 0, {"explained_variance_ratio": explained})


def trustworthiness_sample(
    matrix: np.ndarray, coords: np.ndarray, *, n_neighbors: int = 10, seed: int = 0
) -> float:
    """scikit-learn's trustworthiness (cosine) of the map on a random sample of rows."""
    import numpy as np
    from sklearn.manifold import trustworthiness

    rng = np.random.default_rng(seed)
    rows = rng.choice(len(matrix), size=min(TRUST_SAMPLE, len(matrix)), replace=False)
    k = min(n_neighbors, len(rows) // 2 - 1)
    return float(trustworthiness(matrix[rows], coords[rows], n_neighbors=k, metric="cosine"))
