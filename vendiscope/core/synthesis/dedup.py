"""Exact and near duplicates of new generations, against the pool, the stream and the batch."""

from __future__ import annotations

import numpy as np

from vendiscope.core.neighbors.algorithms.faiss_setup import _faiss
from vendiscope.core.neighbors.algorithms.index import normalized

EXACT = "exact duplicate"
NEAR = "near duplicate"


class DuplicateGuard:
    """Content hashes and unit vectors seen so far (FAISS inner-product index).

    A generation is an exact duplicate when its content hash was seen; a near duplicate when
    its cosine to a row seen is at least ``threshold``. :meth:`add` makes a row seen, so
    later rows of the same batch are judged against it.
    """

    def __init__(self, threshold: float, dim: int) -> None:
        self.threshold = float(threshold)
        self.hashes: set[str] = set()
        self._index = _faiss().IndexFlatIP(dim)

    def add_hashes(self, hashes: object) -> None:
        self.hashes.update(hashes)  # type: ignore[arg-type]  # hashes: any iterable of str

    def add_rows(self, rows: np.ndarray) -> None:
        if len(rows):
            self._index.add(np.ascontiguousarray(normalized(rows), dtype=np.float32))

    def near(self, row: np.ndarray) -> float | None:
        """The highest cosine to a row seen when it reaches the threshold, else ``None``."""
        if self._index.ntotal == 0:
            return None
        query = np.ascontiguousarray(normalized(row.reshape(1, -1)), dtype=np.float32)
        sims, _ = self._index.search(query, 1)
        best = float(sims[0, 0])
        return best if best >= self.threshold else None
