"""The built index (:class:`VectorIndex`) and its searches. Pure numpy/faiss, no project.

:func:`vendiscope.core.neighbors.algorithms.index.build_index` builds one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from vendiscope.core.base.errors import VendiscopeError
from vendiscope.core.neighbors.algorithms.exact import _prepared

if TYPE_CHECKING:
    import numpy as np

# Emulated range search (GPU and HNSW indexes have none): first k, grown 4x when needed.
RANGE_FIRST_K = 64
GPU_MAX_K = 2048  # FAISS GPU indexes return at most 2048 neighbours and probe at most 2048 lists


class VectorIndexError(VendiscopeError):
    """An index cannot be built or searched as asked (wrong dimension, kind, device...)."""


class VectorIndex:
    """A built index: search it with :meth:`search` and :meth:`range_search`.

    ``params`` holds what was chosen at build time (lists, ``nprobe``/``efSearch``, the
    recall@10 measured on a calibration sample, build seconds, and any fallback).
    Searching is thread-safe; the index is never modified after it is built.
    """

    def __init__(
        self,
        index: Any,
        *,
        kind: str,
        metric: str,
        dim: int,
        device: str,
        params: dict[str, Any],
        keep: tuple[Any, ...] = (),
    ) -> None:
        self._index = index
        self._keep = keep  # objects the faiss index points to (quantizer, CPU original)
        self.kind = kind
        self.metric = metric
        self.dim = dim
        self.device = device
        self.params = params

    @property
    def ntotal(self) -> int:
        return int(self._index.ntotal)

    def __repr__(self) -> str:
        return (
            f"VectorIndex(kind={self.kind!r}, metric={self.metric!r}, dim={self.dim}, "
            f"ntotal={self.ntotal}, device={self.device!r})"
        )

    def describe(self) -> dict[str, Any]:
        """A JSON-serialisable description, for runs and reports."""
        return {
            "kind": self.kind,
            "metric": self.metric,
            "dim": self.dim,
            "ntotal": self.ntotal,
            "device": self.device,
            **self.params,
        }

    def prepare_queries(self, queries: np.ndarray) -> np.ndarray:
        """Queries as a C-contiguous float32 ``(n, dim)`` array (normalised for cosine)."""
        import numpy as np

        q = np.asarray(queries)
        if q.ndim == 1:
            q = q.reshape(1, -1)
        if q.ndim != 2:
            raise VectorIndexError(
                f"queries must be a vector or a matrix of vectors; got an array of shape {q.shape}"
            )
        if q.shape[1] != self.dim:
            raise VectorIndexError(
                f"queries have dimension {q.shape[1]}, but the index holds {self.dim}-dimensional "
                "vectors; use vectors from the same model (or the same vector set kind)"
            )
        if not np.issubdtype(q.dtype, np.number):
            raise VectorIndexError(f"queries must be numeric; got dtype {q.dtype}")
        return _prepared(q, self.metric)

    def search(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """The ``k`` most similar rows of each query: ``(similarities, positions)``.

        Both arrays are ``(n_queries, min(k, ntotal))``, rows sorted by decreasing
        similarity. An approximate index may find fewer than ``k`` rows for a query: the
        missing slots (at the end of the row) hold position ``-1`` and similarity ``-inf``.
        """
        import numpy as np

        if k < 1:
            raise VectorIndexError(f"k must be at least 1, got {k}")
        if self.device == "gpu" and k > GPU_MAX_K:
            raise VectorIndexError(
                f"k={k}: a GPU index returns at most {GPU_MAX_K} neighbours per query"
            )
        q = self.prepare_queries(queries)
        k = min(k, self.ntotal)
        if k == 0 or len(q) == 0:
            return (
                np.empty((len(q), k), dtype=np.float32),
                np.empty((len(q), k), dtype=np.int64),
            )
        similarities, positions = self._index.search(q, k)
        similarities = np.asarray(similarities, dtype=np.float32)
        positions = np.asarray(positions, dtype=np.int64)
        similarities[positions < 0] = -np.inf
        return similarities, positions

    def range_search(
        self, queries: np.ndarray, threshold: float
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        """Every row with similarity ``>= threshold`` to each query.

        One ``(similarities, positions)`` pair per query, sorted by decreasing similarity.
        Flat and IVF indexes on the CPU use FAISS's range search; GPU and HNSW indexes
        (which have none) emulate it with k-NN searches of growing ``k``.
        """
        import numpy as np

        q = self.prepare_queries(queries)
        if len(q) == 0 or self.ntotal == 0:
            return [
                (np.empty(0, dtype=np.float32), np.empty(0, dtype=np.int64)) for _ in range(len(q))
            ]
        if self.device == "cpu" and self.kind in ("flat", "ivf"):
            # faiss keeps similarities strictly above the radius: step just below it.
            radius = float(np.nextafter(np.float32(threshold), np.float32(-np.inf)))
            lims, sims, ids = self._index.range_search(q, radius)
            out = []
            for i in range(len(q)):
                s, p = sims[lims[i] : lims[i + 1]], ids[lims[i] : lims[i + 1]].astype(np.int64)
                order = np.lexsort((p, -s))
                out.append((s[order].astype(np.float32), p[order]))
            return out
        return self._range_by_knn(q, threshold)

    def _range_by_knn(self, q: np.ndarray, threshold: float) -> list[tuple[np.ndarray, np.ndarray]]:
        """Range search as k-NN searches, ``k`` growing 4x for queries whose k-th hit is still
        within the threshold (on a GPU, up to :data:`GPU_MAX_K` hits per query)."""
        import numpy as np

        limit = self.ntotal if self.device == "cpu" else min(self.ntotal, GPU_MAX_K)
        results: list[tuple[np.ndarray, np.ndarray] | None] = [None] * len(q)
        pending = np.arange(len(q))
        k = min(RANGE_FIRST_K, limit)
        while len(pending):
            sims, ids = self._index.search(q[pending], k)
            more = (sims[:, -1] >= threshold) & (k < limit)
            for row, query in enumerate(pending):
                if not more[row]:
                    keep = (sims[row] >= threshold) & (ids[row] >= 0)
                    results[query] = (sims[row][keep].astype(np.float32), ids[row][keep])
            pending = pending[more]
            k = min(k * 4, limit)
        return [r for r in results if r is not None]
