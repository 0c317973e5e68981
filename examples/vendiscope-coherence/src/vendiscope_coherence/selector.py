"""Covariance-preserving selection: k rows whose sample covariance best matches the full set's.

Made for paired data — rows that put the two sides of a pair side by side, ``[a | b]`` (prompt
and response embeddings, two views of one example). The covariance of such rows holds the
cross-covariance block ``Cov(a, b)``, so a subset that matches the full covariance keeps how
the two sides relate, not only how each side is spread; a diverse-but-unrepresentative
subset does not.

Algorithm: greedy forward selection on the Frobenius error ``|C_S - C|_F`` between the
maximum-likelihood covariance of the chosen rows ``C_S`` (about their own mean, ``1/m``) and
that of all rows ``C``. Each step adds the row that makes the error smallest. With running
sums ``s = sum y_i``, the second moment ``M = sum y_i y_i^T`` (rows centred on the full
mean) and, per candidate ``x``, ``q(x) = x^T M x`` and ``t(x) = x^T s`` kept up to date, the
error after adding ``x`` is, up to a term common to all candidates (``m' = m + 1``,
``a = 1/m' - 1/m'^2``, ``b = 1/m'^2``, ``E = M/m' - s s^T/m'^2 - C``):

    2a x^T E x - 4b s^T E x + a^2 |x|^4 - 4ab t |x|^2 + b^2 (2 |s|^2 |x|^2 + 2 t^2)

so a step costs O(n d) and the selection O(n d^2 + k n d) time, O(n d + d^2) memory. The
first pick (any single row has covariance 0) is the row closest to the mean.
"""

from __future__ import annotations

import numpy as np
from vendiscope.api import CancelToken, Progress, Selection, Selector


class CovarianceSelector(Selector):
    """Greedy covariance matching: the chosen rows' covariance approaches the full set's.

    ``gains`` are the decrease of the Frobenius error at each pick; ``details`` hold the
    relative error ``|C_S - C|_F / |C|_F`` after each pick (``relative_error``).

    Parameters
    ----------
    standardize
        Scale every column to unit variance first, so the correlation structure is matched
        and columns with a large spread do not dominate.
    """

    def __init__(self, standardize: bool = False) -> None:
        self.standardize = standardize

    def select(
        self,
        vectors: np.ndarray,
        k: int,
        *,
        quality: np.ndarray | None = None,
        progress: Progress,
        cancel: CancelToken,
    ) -> Selection:
        """Choose ``k`` rows of ``vectors`` (never modified)."""
        matrix = np.asarray(vectors, dtype=np.float64)
        if matrix.ndim != 2 or matrix.shape[1] == 0:
            raise ValueError(f"vectors must be a 2-D array with columns; got {matrix.shape}")
        n = matrix.shape[0]
        if isinstance(k, bool) or not 0 <= k <= n:
            raise ValueError(f"k must be between 0 and {n} (the number of rows); got {k}")
        if quality is not None:
            raise ValueError("the covariance selector has no quality-weighted form")
        if not np.isfinite(matrix).all():
            raise ValueError(f"row {int(np.argmin(np.isfinite(matrix).all(axis=1)))} is not finite")
        cancel.raise_if_cancelled()
        progress.start("Covariance-preserving selection", total=k, unit="rows")
        state = _Greedy(_prepare(matrix, self.standardize))
        for step in range(k):
            cancel.raise_if_cancelled()
            state.add(state.best())
            progress.update(step + 1)
        progress.finish()
        errors = np.array([state.full_error, *state.errors])
        details = {
            "relative_error": (errors[1:] / (state.full_error or 1.0)).tolist(),
            "standardize": self.standardize,
        }
        return Selection(np.array(state.chosen, dtype=np.int64), errors[:-1] - errors[1:], details)


def _prepare(matrix: np.ndarray, standardize: bool) -> np.ndarray:
    centred = matrix - matrix.mean(axis=0) if len(matrix) else matrix.copy()
    if standardize and len(matrix):
        spread = centred.std(axis=0)
        centred /= np.where(spread > 0, spread, 1.0)
    return centred


class _Greedy:
    """The running sums of the greedy selection over centred rows ``y``."""

    def __init__(self, rows: np.ndarray) -> None:
        n, d = rows.shape
        self.rows = rows
        self.cov = rows.T @ rows / max(n, 1)
        self.norms = np.einsum("ij,ij->i", rows, rows)  # |y_j|^2
        self.curv = np.einsum("ij,ij->i", rows @ self.cov, rows)  # y_j^T C y_j
        self.full_error = float(np.linalg.norm(self.cov))
        self.sum = np.zeros(d)  # s
        self.along = np.zeros(n)  # t_j = y_j . s
        self.moment = np.zeros(n)  # q_j = y_j^T M y_j
        self.taken = np.zeros(n, dtype=bool)
        self.chosen: list[int] = []
        self.errors: list[float] = []
        self._m_norm2 = 0.0  # |M|_F^2
        self._m_dot_c = 0.0  # <M, C>

    def best(self) -> int:
        if not self.chosen:  # every single row has covariance 0: start near the mean
            return int(np.argmin(self.norms))
        m1 = len(self.chosen) + 1
        a, b = 1 / m1 - 1 / m1**2, 1 / m1**2
        s, t, x2 = self.sum, self.along, self.norms
        picked = self.rows[self.chosen]
        e_s = picked.T @ t[self.chosen] / m1 - s * (s @ s) / m1**2 - self.cov @ s  # E s
        x_e_x = self.moment / m1 - t**2 / m1**2 - self.curv
        s_e_x = self.rows @ e_s
        score = (
            2 * a * x_e_x
            - 4 * b * s_e_x
            + a**2 * x2**2
            - 4 * a * b * t * x2
            + b**2 * (2 * (s @ s) * x2 + 2 * t**2)
        )
        score[self.taken] = np.inf
        return int(np.argmin(score))

    def add(self, j: int) -> None:
        row = self.rows[j]
        overlap = self.rows @ row  # y_i . y_j for every i
        self._m_norm2 += 2 * self.moment[j] + self.norms[j] ** 2
        self._m_dot_c += self.curv[j]
        self.moment += overlap**2
        self.along += overlap
        self.sum += row
        self.taken[j] = True
        self.chosen.append(j)
        self.errors.append(self._error())

    def _error(self) -> float:
        """|C_S - C|_F from the running sums (no d x d matrix of the subset is formed)."""
        m = len(self.chosen)
        s = self.sum
        s_m_s = float(self.along[self.chosen] @ self.along[self.chosen])
        squared = (
            self._m_norm2 / m**2
            + float(s @ s) ** 2 / m**4
            + self.full_error**2
            - 2 * s_m_s / m**3
            - 2 * self._m_dot_c / m
            + 2 * float(s @ self.cov @ s) / m**2
        )
        return float(np.sqrt(max(squared, 0.0)))
