"""Gradient coherence: the mean pairwise cosine similarity of per-example gradients, in O(n d).

Coherent gradients push the model the same way (the examples teach one thing, redundantly);
incoherent ones pull in many directions. With unit rows ``u_i = g_i / |g_i|`` and their sum
``S``, the sum over ordered pairs is ``sum_{i != j} u_i . u_j = |S|^2 - n``, so

    coherence = (n^2 |mean u|^2 - n) / (n (n - 1))

needs one pass over the rows instead of the n x n similarity matrix. A record's score is the
cosine of its gradient with the mean of the others' (``S - u_i``): high for a typical
example, low or negative for one that pulls against the rest.

With quality weights ``w`` the pairs are weighted by ``w_i w_j``:
``(|sum w_i u_i|^2 - sum w_i^2) / ((sum w_i)^2 - sum w_i^2)``, and a record is compared with
the weighted sum of the others.
"""

from __future__ import annotations

from typing import Annotated

import numpy as np
from vendiscope.api import Metric, MetricResult, Range

CHUNK_ROWS = 8192  # rows converted to float64 at a time (memory stays O(chunk x d))


class GradientCoherence(Metric):
    """Mean pairwise cosine similarity of the rows (per-example gradients), in O(n d).

    The value lies in ``[-1 / (n - 1), 1]``: 1 when every gradient points the same way, about
    0 for unrelated directions. Rows are normalised to unit length, so their scale does not
    matter; a row of zeros (or shorter than ``min_norm``) has no direction and is refused.

    Parameters
    ----------
    per_record
        Attach each record's cosine with the mean of the other records' gradients.
    min_norm
        Rows with a norm at or below this are refused (``ValueError`` naming the row).
    """

    def __init__(
        self,
        per_record: bool = True,
        min_norm: Annotated[float, Range(ge=0)] = 0.0,
    ) -> None:
        self.per_record = per_record
        self.min_norm = min_norm

    def compute(self, vectors: np.ndarray, *, quality: np.ndarray | None = None) -> MetricResult:
        """The coherence of ``vectors`` (never modified), optionally quality-weighted."""
        matrix = np.asarray(vectors)
        if matrix.ndim != 2 or not np.issubdtype(matrix.dtype, np.number):
            raise ValueError(f"vectors must be a 2-D numeric array; got shape {matrix.shape}")
        n, d = matrix.shape
        if n < 2:
            raise ValueError(f"coherence compares pairs of rows: it needs 2 or more, got {n}")
        weights = _weights(quality, n)
        norms = np.empty(n)
        for start in range(0, n, CHUNK_ROWS):
            chunk = matrix[start : start + CHUNK_ROWS].astype(np.float64)
            norms[start : start + len(chunk)] = np.linalg.norm(chunk, axis=1)
        bad = ~np.isfinite(norms) | (norms <= self.min_norm)
        if bad.any():
            row = int(np.argmax(bad))
            raise ValueError(f"row {row} has no direction (norm {norms[row]:.3g}); drop it first")
        # S = sum_i w_i u_i, accumulated chunk by chunk
        total = np.zeros(d)
        for start in range(0, n, CHUNK_ROWS):
            chunk = matrix[start : start + CHUNK_ROWS].astype(np.float64)
            scale = weights[start : start + len(chunk)] / norms[start : start + len(chunk)]
            total += scale @ chunk
        squares = float(weights @ weights)
        pairs = float(weights.sum()) ** 2 - squares
        if pairs <= 0:
            raise ValueError("quality must give positive weight to at least two rows")
        value = (float(total @ total) - squares) / pairs
        details = {
            "n": n,
            "d": d,
            "mean_resultant_length": float(np.linalg.norm(total) / weights.sum()),
            "weighted": quality is not None,
        }
        scores = self._per_record(matrix, norms, weights, total) if self.per_record else None
        return MetricResult(float(np.clip(value, -1.0, 1.0)), per_record=scores, details=details)

    @staticmethod
    def _per_record(
        matrix: np.ndarray, norms: np.ndarray, weights: np.ndarray, total: np.ndarray
    ) -> np.ndarray:
        """cos(u_i, S - w_i u_i) = (u_i . S - w_i) / |S - w_i u_i| for every row."""
        along = np.empty(len(matrix))
        for start in range(0, len(matrix), CHUNK_ROWS):
            chunk = matrix[start : start + CHUNK_ROWS].astype(np.float64)
            along[start : start + len(chunk)] = chunk @ total / norms[start : start + len(chunk)]
        others = np.sqrt(np.maximum(total @ total - 2 * weights * along + weights**2, 0.0))
        with np.errstate(divide="ignore", invalid="ignore"):
            cosine = np.where(others > 1e-12, (along - weights) / others, 0.0)
        return np.clip(cosine, -1.0, 1.0).astype(np.float32)


def _weights(quality: np.ndarray | None, n: int) -> np.ndarray:
    if quality is None:
        return np.ones(n)
    weights = np.asarray(quality, dtype=np.float64)
    if weights.shape != (n,):
        raise ValueError(f"quality must have one weight per row ({n}); got shape {weights.shape}")
    if not np.isfinite(weights).all() or (weights < 0).any():
        raise ValueError("quality weights must be finite and non-negative")
    return weights
