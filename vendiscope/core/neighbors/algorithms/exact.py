"""Exact nearest-neighbour arithmetic: a running top-k and unit-length copies of vectors.

Pure numpy, no project and no faiss.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np


class TopK:
    """The ``k`` largest similarities (and their positions) seen so far, per query.

    Feed it blocks of a similarity matrix with :meth:`update`; it keeps memory at
    ``queries x k`` whatever the number of rows scanned.
    """

    def __init__(self, n_queries: int, k: int) -> None:
        import numpy as np

        self.k = k
        self.similarities = np.full((n_queries, 0), -np.inf, dtype=np.float32)
        self.positions = np.full((n_queries, 0), -1, dtype=np.int64)

    def update(self, similarities: np.ndarray, first_position: int) -> None:
        """Merge a ``queries x m`` block whose column ``j`` is row ``first_position + j``."""
        import numpy as np

        n_queries, m = similarities.shape
        block_positions = np.broadcast_to(
            np.arange(first_position, first_position + m, dtype=np.int64), (n_queries, m)
        )
        sims = np.concatenate([self.similarities, similarities.astype(np.float32)], axis=1)
        positions = np.concatenate([self.positions, block_positions], axis=1)
        if sims.shape[1] > self.k:
            keep = np.argpartition(-sims, self.k - 1, axis=1)[:, : self.k]
            sims = np.take_along_axis(sims, keep, axis=1)
            positions = np.take_along_axis(positions, keep, axis=1)
        self.similarities, self.positions = sims, positions

    def result(self) -> tuple[np.ndarray, np.ndarray]:
        """``(similarities, positions)``, each row sorted by decreasing similarity
        (ties by increasing position)."""
        import numpy as np

        order = np.lexsort((self.positions, -self.similarities), axis=1)
        return (
            np.take_along_axis(self.similarities, order, axis=1),
            np.take_along_axis(self.positions, order, axis=1),
        )


def normalized(vectors: np.ndarray) -> np.ndarray:
    """A float32 copy with unit rows (zero rows stay zero)."""
    import numpy as np

    out = np.array(vectors, dtype=np.float32, copy=True, order="C")
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    out /= norms
    return out


def _prepared(vectors: np.ndarray, metric: str) -> np.ndarray:
    import numpy as np

    if metric == "cosine":
        return normalized(vectors)
    return np.ascontiguousarray(vectors, dtype=np.float32)
