"""Selection over a vector set read chunk by chunk (larger than memory).

:class:`StreamedRows` offers what the pass-based algorithms need from
:class:`~vendiscope.core.selection.algorithms._rows.Rows` — ``products`` (one pass over the chunks),
``take`` (a few rows by position) and the squared lengths — without holding the matrix.
k-center needs exactly that, so it streams: memory ``O(n)`` besides one chunk, one pass
over the set per pick. Random selection needs only the number of rows.
"""

from __future__ import annotations

import numpy as np

from vendiscope.core.plugin_host.interfaces import VectorSource
from vendiscope.core.selection.algorithms._rows import work_dtype


class StreamedRows:
    """The rows of ``source`` (unit length when ``normalize``), read chunk by chunk."""

    def __init__(self, source: VectorSource, *, normalize: bool, nonzero: bool = True) -> None:
        self.source = source
        self.n, self.d = source.n, source.dim
        self.dtype = work_dtype(np.dtype(source.dtype))
        self.normalize = normalize
        raw = np.empty(self.n, dtype=np.float64)
        for start, chunk in source.chunks():
            block = np.asarray(chunk, dtype=np.float64)
            finite = np.isfinite(block).all(axis=1)
            if not finite.all():
                row = start + int(np.argmin(finite))
                raise ValueError(f"vectors: row {row} has a NaN or infinite value")
            raw[start : start + len(block)] = np.einsum("ij,ij->i", block, block)
        if nonzero and raw.min() <= 0:
            row = int(np.argmin(raw))
            raise ValueError(f"vectors: row {row} is all zeros (it has no direction)")
        with np.errstate(divide="ignore"):
            scale = 1.0 / np.sqrt(raw) if normalize else np.ones(self.n)
        self.scale = np.where(np.isfinite(scale), scale, 0.0)
        self.squares = raw * self.scale**2 if normalize else raw

    def materialize(self) -> bool:
        return False  # never: the point is not to hold the set

    def take(self, indices: np.ndarray) -> np.ndarray:
        idx = np.asarray(indices, dtype=np.int64)
        out = np.array(self.source.rows(idx.tolist()), dtype=self.dtype, copy=True)
        if self.normalize:
            out *= self.scale[idx].astype(self.dtype)[:, None]
        return out

    def products(self, vector: np.ndarray) -> np.ndarray:
        """``prepared rows @ vector`` for all rows, float64 (one pass over the chunks)."""
        v = np.asarray(vector, dtype=self.dtype)
        out = np.empty(self.n, dtype=np.float64)
        for start, chunk in self.source.chunks():
            block = np.asarray(chunk, dtype=self.dtype)
            values = block @ v
            if self.normalize:
                values = values * self.scale[start : start + len(block)]
            out[start : start + len(block)] = values
        return out
