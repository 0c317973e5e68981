"""Read access to the rows of a vector set for the selection algorithms, without copying it.

:class:`Rows` wraps the caller's matrix (never modified) with the inverse length of each
row, and hands out *prepared* rows — unit length for cosine similarity, or as they are —
either a few at a time (:meth:`Rows.take`) or in chunks of bounded size
(:meth:`Rows.chunks`). Products run in the work precision: float32 for float32 and float16
input, float64 otherwise. When the prepared matrix is small enough
(:data:`MATERIALIZE_BYTES`) it is built once and reused by algorithms that pass over all
rows every step (k-center, DPP).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

CHUNK_BYTES = 32 * 2**20
"""Target size of one prepared chunk."""

MATERIALIZE_BYTES = 1 * 2**30
"""A prepared copy of at most this size is kept for repeated passes."""


def work_dtype(dtype: np.dtype) -> type[np.floating]:
    """float32 for float32/float16 input, float64 for everything else."""
    return np.float32 if dtype in (np.float16, np.float32) else np.float64


class Rows:
    """The rows of ``matrix`` (unit length when ``normalize``), read in chunks or by index.

    ``squares`` are the float64 squared lengths of the raw rows (from
    :func:`~vendiscope.core.selection.algorithms._checks.check_vectors`).
    """

    def __init__(self, matrix: np.ndarray, squares: np.ndarray, *, normalize: bool) -> None:
        self.matrix = matrix
        self.n, self.d = matrix.shape
        self.dtype = work_dtype(matrix.dtype)
        self.normalize = normalize
        with np.errstate(divide="ignore"):
            scale = 1.0 / np.sqrt(squares) if normalize else np.ones(self.n)
        self.scale = np.where(np.isfinite(scale), scale, 0.0)
        # Squared lengths of the prepared rows (1 for unit rows), float64.
        self.squares = squares * self.scale**2 if normalize else squares
        itemsize = np.dtype(self.dtype).itemsize
        self.chunk_rows = int(max(256, min(65_536, CHUNK_BYTES // max(1, self.d * itemsize))))
        self._prepared: np.ndarray | None = None

    def _prepare(self, block: np.ndarray, scale: np.ndarray) -> np.ndarray:
        out = np.array(block, dtype=self.dtype, copy=True)
        if self.normalize:
            out *= scale.astype(self.dtype)[:, None]
        return out

    def take(self, indices: np.ndarray, dtype: type[np.floating] | None = None) -> np.ndarray:
        """Prepared rows at ``indices`` (a copy), in the work dtype or ``dtype``."""
        idx = np.asarray(indices, dtype=np.int64)
        if self._prepared is not None and dtype in (None, self.dtype):
            return self._prepared[idx]
        out = np.array(self.matrix[idx], dtype=dtype or self.dtype, copy=True)
        if self.normalize:
            out *= self.scale[idx].astype(out.dtype)[:, None]
        return out

    def materialize(self) -> bool:
        """Keep a prepared copy when it fits in :data:`MATERIALIZE_BYTES`; whether it did."""
        if self._prepared is None:
            size = self.n * self.d * np.dtype(self.dtype).itemsize
            if size > MATERIALIZE_BYTES:
                return False
            same = self.matrix.dtype == self.dtype and self.matrix.flags.c_contiguous
            if not self.normalize and same:
                self._prepared = self.matrix  # read-only use: no copy needed
            else:
                self._prepared = np.empty((self.n, self.d), dtype=self.dtype)
                for start, block in self._raw_chunks():
                    self._prepared[start : start + len(block)] = block
        return True

    def _raw_chunks(self) -> Iterator[tuple[int, np.ndarray]]:
        for start in range(0, self.n, self.chunk_rows):
            stop = min(self.n, start + self.chunk_rows)
            yield start, self._prepare(self.matrix[start:stop], self.scale[start:stop])

    def chunks(self) -> Iterator[tuple[int, np.ndarray]]:
        """``(first row, prepared rows)`` over all rows, in order, in the work dtype."""
        if self._prepared is not None:
            for start in range(0, self.n, self.chunk_rows):
                yield start, self._prepared[start : start + self.chunk_rows]
            return
        yield from self._raw_chunks()

    def products(self, vector: np.ndarray) -> np.ndarray:
        """``prepared rows @ vector`` for all rows, float64 (one pass)."""
        v = np.asarray(vector, dtype=self.dtype)
        out = np.empty(self.n, dtype=np.float64)
        for start, block in self.chunks():
            out[start : start + len(block)] = block @ v
        return out
