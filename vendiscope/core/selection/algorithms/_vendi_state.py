"""The Vendi score of a growing set of unit rows, and the exact cost of adding a candidate.

For ``m`` unit rows with Gram matrix ``A = X_S^T X_S`` (``d x d``, trace ``m``):

- order 2: ``VS_2 = m^2 / F`` with ``F = ||A||_F^2``; adding ``x`` adds
  ``c(x) = 2 x^T A x + |x|^4`` to ``F`` (closed form);
- order 1: ``VS_1 = exp(log m - T / m)`` with ``T = tr A log A``; adding ``x`` adds
  ``c(x) = tr phi(A + x x^T) - tr phi(A)``, ``phi(t) = t log t``, to ``T``.

In both orders the best candidate (unweighted) is the one with the smallest ``c(x)``, and
``c(x)`` never decreases as rows are added: ``x^T A x`` grows with ``A``, and for order 1
``c(x) = int_0^1 x^T (1 + log(A + s x x^T)) x ds`` with ``log`` operator monotone. So a cost
computed at an earlier step is a lower bound now — what makes lazy greedy exact.

Order 1 cost, exactly, without an eigendecomposition per candidate: the resolvent change

    R(u) = tr (A + x x^T + u)^-1 - tr (A + u)^-1 = -gamma / (1 + alpha)   (Sherman-Morrison)

with ``alpha = x^T (A + u)^-1 x`` and ``gamma = x^T (A + u)^-2 x``, and the Stieltjes
representation ``t log t = int_0^inf (t / (1 + u) - 1 + u / (t + u)) du``, give

    c(x) = w (1 + log a) + int_0^inf u (R(u) + w / (u + a)^2) du,
    w = |x|^2,  a = x^T A x / w + w / 2,

where the subtracted term makes the integrand ``O(u^-3)`` at infinity. The integral is taken by
the trapezoid rule in ``log u`` (step 0.7, about 60 nodes; geometric convergence, tested
against eigendecompositions to ~1e-9).

``alpha`` and ``gamma`` come from an eigendecomposition ``A_0 = U diag(s) U^T`` of the set as
it was at the last *refresh* and the ``p`` rows ``V`` added since (``A = A_0 + V V^T``), by
Woodbury: with ``y = U^T x`` and ``R_0 = (A_0 + u)^-1`` (``1 / u`` outside the span of
``U``), ``alpha = x^T R_0 x - c^T M^-1 c`` with ``c = V^T R_0 x`` and
``M = I + V^T R_0 V``, and ``gamma`` likewise. Cost per candidate: ``O(d r)`` for ``y``
(``r`` = rank) plus ``O(r P p)``. A refresh — an eigendecomposition of the ``m x m`` kernel
while ``m <= d / 2``, of ``A`` (``d x d``) after, ~0.2 s at d = 1024 on two cores — is done
when the extra work of the ``p`` pending rows since the last one has cost about as much as
an eigendecomposition (ski rental: optimal for work growing linearly in ``p``). Costs are
estimated from flop counts, never timings, so results do not depend on machine load.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

_EPS64 = float(np.finfo(np.float64).eps)
STEP = 0.7
"""Trapezoid step in ``log u``."""
TOP_MARGIN = 12.0
"""The grid ends ``e^12`` above the largest scale (the integrand decays as ``u^-2`` there)."""
SINGLE_THREAD_BELOW = 512
"""Eigendecompositions smaller than this run on one BLAS thread. Measured on two busy cores:
a 64 x 64 ``eigh`` took 0.5 ms on one thread and 70 ms on two (threads spin-waiting for a
core); at 1024 x 1024 two threads still win on an idle machine."""
EIGH_COST = 10.0
"""An ``N x N`` eigendecomposition costs about ``EIGH_COST * N^3`` flops of matrix product
(measured 8-30 here, 2 cores; the low end at N = 1024)."""
MAX_PENDING = 64
"""At most this many rows are added between two refreshes."""


def _one_blas_thread() -> Callable[[], Any]:
    """A context-manager factory limiting BLAS to one thread (a no-op without threadpoolctl)."""
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:  # pragma: no cover - scikit-learn brings it
        return contextlib.nullcontext
    controller = ThreadpoolController()
    return lambda: controller.limit(limits=1, user_api="blas")


class VendiSet:
    """A growing set of unit rows; :meth:`costs` of candidates, :meth:`value` of the set."""

    def __init__(self, order: int, d: int, capacity: int, dtype: type[np.floating]) -> None:
        self.order = order
        self.d = d
        self.dtype = dtype
        self.rows = np.zeros((capacity, d))  # the picks, float64
        self.m = 0
        self.trace = 0.0  # sum of |x|^2 (m for unit rows)
        self.gram: np.ndarray | None = None  # A = X_S^T X_S (float64) of the first `_in_gram`
        self._in_gram = 0
        self.frobenius = 0.0  # order 2: ||A||_F^2
        self.entropy_sum = 0.0  # order 1: tr A log A
        self.base: _Base | None = None  # order 1: the last refresh and the rows added since
        self.eigendecompositions = 0
        self.decompose_seconds = 0.0
        self._one_thread = _one_blas_thread() if order == 1 else contextlib.nullcontext

    # ------------------------------------------------------------------ state
    def add(self, x: np.ndarray) -> None:
        """Add one row (float64, unit length)."""
        x = np.asarray(x, dtype=np.float64)
        w = float(x @ x)
        if self.order == 2:
            inner = self.rows[: self.m] @ x
            self.frobenius += 2.0 * float(inner @ inner) + w * w
        cost = self._costs1(x[None, :], exact=True)[0] if self.order == 1 and self.m else 0.0
        self.rows[self.m] = x
        self.m += 1
        self.trace += w
        if self.order == 2:
            self._sync_gram()
        elif self._refresh_due():
            self._decompose()
        else:
            assert self.base is not None
            self.entropy_sum += float(cost)
            self.base.extend(x)

    def _sync_gram(self) -> None:
        """Bring ``A`` up to date once ``m > d / 2`` (before that the ``m x m`` kernel is used)."""
        if self.gram is None and self.m > self.d // 2:
            self.gram = np.zeros((self.d, self.d))
        if self.gram is not None and self._in_gram < self.m:
            new = self.rows[self._in_gram : self.m]
            self.gram += new.T @ new
            self._in_gram = self.m

    def _refresh_due(self) -> bool:
        if self.base is None or self.base.p >= MAX_PENDING:
            return True
        r = len(self.base.values)
        if self.m > self.d // 2:
            rebuild = EIGH_COST * self.d**3
        else:  # the m x m kernel, its eigendecomposition and the basis X_S^T V
            rebuild = EIGH_COST * self.m**3 + 2.0 * self.d * self.m * (self.m + r)
        return self.base.work >= rebuild

    def _decompose(self) -> None:
        started = time.perf_counter()
        self.eigendecompositions += 1
        self._sync_gram()
        picked = self.rows[: self.m]
        primal = self.gram is None
        matrix = picked @ picked.T if primal else self.gram
        assert matrix is not None
        small = len(matrix) < SINGLE_THREAD_BELOW
        with self._one_thread() if small else contextlib.nullcontext():
            lam, vecs = np.linalg.eigh(matrix)
        keep = lam > lam[-1] * lam.size * _EPS64
        lam, vecs = lam[keep], vecs[:, keep]
        # primal: eigenvectors of A are X_S^T v / sqrt(lambda) for those of K = X_S X_S^T
        basis = (picked.T @ vecs) / np.sqrt(lam) if primal else vecs
        self.base = _Base(lam, np.ascontiguousarray(basis), self.dtype)
        self.entropy_sum = float(lam @ np.log(lam))
        self.decompose_seconds += time.perf_counter() - started

    def value(self) -> float:
        """The Vendi score of the set (of order :attr:`order`)."""
        if self.m == 0:
            return 0.0
        if self.order == 2:
            return self.trace**2 / self.frobenius
        # H = -sum (s / m) log(s / m) = (trace log m - tr A log A) / m
        return math.exp((self.trace * math.log(self.m) - self.entropy_sum) / self.m)

    def log_value_with(self, cost: np.ndarray, extra_weight: np.ndarray) -> np.ndarray:
        """``log VS`` of the set plus a candidate of cost ``cost``, times ``extra_weight``.

        ``extra_weight`` is the candidate's share of the mean: ``(sum of quality + q_x)``
        for quality-weighted scores; the caller passes ``m + 1`` when unweighted, which
        gives ``log VS`` itself up to a constant of the step.
        """
        m1 = self.m + 1
        with np.errstate(divide="ignore"):
            base = np.log(extra_weight)
        if self.order == 2:
            return base + math.log(m1) - np.log(self.frobenius + cost)
        return base - (self.entropy_sum + cost) / m1

    # ------------------------------------------------------------------ costs
    def costs(self, x: np.ndarray) -> np.ndarray:
        """``c(x)`` of each row of ``x`` (``B x d``, unit rows, work dtype), float64."""
        if self.m == 0:
            w = np.einsum("ij,ij->i", x, x, dtype=np.float64)
            return w * w if self.order == 2 else w * np.log(w)
        if self.order == 2:
            return self._costs2(x)
        return self._costs1(x)

    def _costs2(self, x: np.ndarray) -> np.ndarray:
        w = np.einsum("ij,ij->i", x, x, dtype=np.float64)
        if self.gram is None:
            inner = (x @ self.rows[: self.m].T.astype(self.dtype)).astype(np.float64)
            quad = np.einsum("ij,ij->i", inner, inner)
        else:
            quad = np.einsum("ij,ij->i", (x @ self.gram.astype(self.dtype)), x, dtype=np.float64)
        return 2.0 * quad + w * w

    def _costs1(self, x: np.ndarray, *, exact: bool = False) -> np.ndarray:
        """Order-1 costs; ``exact``: in float64 throughout (for the picked row)."""
        base = self.base
        assert base is not None
        if exact:
            x, basis = np.asarray(x, dtype=np.float64), base.basis64
        else:
            basis = base.basis
        u, count = base.u, len(base.u)
        w = np.einsum("ij,ij->i", x, x, dtype=np.float64)
        y = (x @ basis).astype(np.float64)
        y2 = y * y
        rho2 = np.maximum(w - y2.sum(axis=1), 0.0)  # outside the span of U
        sigma = y2 @ base.values
        both = y2 @ base.inverses  # y^T D y and y^T D^2 y at every node
        alpha = both[:, :count] + rho2[:, None] / u
        gamma = both[:, count:] + rho2[:, None] / (u * u)
        if base.p:
            z = (x @ base.rows[: base.p].T.astype(x.dtype)).astype(np.float64)
            sigma = sigma + np.einsum("ij,ij->i", z, z)
            alpha, gamma = base.woodbury(y, z, alpha, gamma, count_work=not exact)
        a = sigma / w + w / 2.0
        alpha = np.maximum(alpha, 0.0)
        gamma = np.maximum(gamma, 0.0)
        # 0 <= -R(u) <= 1 / u (interlacing); clamp rounding noise at tiny u
        resolvent = np.clip(-gamma / (1.0 + alpha), -1.0 / u, 0.0)
        integrand = u * u * (resolvent + w[:, None] / (u[None, :] + a[:, None]) ** 2)
        integral = integrand @ base.weights
        # Below the first node u0 only a new eigenvalue far smaller than u0 matters, where
        # R(u) ~ -kappa / u: its integral is -kappa u0.
        kappa = np.clip(-u[0] * resolvent[:, 0], 0.0, 1.0)
        return w * (1.0 + np.log(a)) + integral - kappa * u[0]


class _Base:
    """Order 1: the eigendecomposition ``A_0 = U diag(s) U^T`` of the last refresh, the
    quadrature nodes, and the rows ``V`` added since with what Woodbury needs of them.

    The grid runs from the numerical-zero level to ``e^12`` above ``s_1 + MAX_PENDING + 1``,
    which bounds both the spectrum of ``A_0 + V V^T`` and ``a`` of every unit candidate, so
    it stays fixed until the next refresh and the per-node matrices grow by one row and
    column per added row.
    """

    def __init__(self, values: np.ndarray, basis64: np.ndarray, dtype: type[np.floating]) -> None:
        r, d = len(values), basis64.shape[0]
        self.values = values
        self.basis64 = basis64
        self.basis = basis64.astype(dtype)
        top = float(values[-1]) + MAX_PENDING + 1.0
        low = math.log(top * (r + MAX_PENDING + 1) * _EPS64)
        high = math.log(top) + TOP_MARGIN
        count = math.ceil((high - low) / STEP) + 1
        grid = np.linspace(low, high, count)
        self.u = np.exp(grid)
        self.weights = np.full(count, float(grid[1] - grid[0]))
        self.weights[[0, -1]] /= 2.0
        inverse = 1.0 / (values[:, None] + self.u[None, :])
        self.inverses = np.hstack([inverse, inverse * inverse])  # (r, 2P): D and D^2
        self.p = 0
        self.work = 0.0  # flops spent because of pending rows (decides the next refresh)
        self.rows = np.empty((MAX_PENDING, d))  # V
        self.cross = np.empty((r, MAX_PENDING))  # W = U^T V
        self.perp = np.empty((MAX_PENDING, MAX_PENDING))  # V_perp^T V_perp = V^T V - W^T W
        # column block k of `spread` is W[:, k] times `inverses`: c and e in one product
        self.spread = np.empty((r, MAX_PENDING * 2 * count))
        self.m_matrix = np.empty((count, MAX_PENDING, MAX_PENDING))  # M = I + V^T R0 V
        self.g_matrix = np.empty((count, MAX_PENDING, MAX_PENDING))  # G = V^T R0^2 V
        self.m_inverse = np.empty((count, 0, 0))

    def extend(self, x: np.ndarray) -> None:
        """Add one pending row ``x`` (float64)."""
        k, count, u = self.p, len(self.u), self.u
        r = len(self.values)
        w_new = self.basis64.T @ x
        self.rows[k] = x
        self.cross[:, k] = w_new
        perp = self.rows[: k + 1] @ x - self.cross[:, : k + 1].T @ w_new
        self.perp[: k + 1, k] = perp
        self.perp[k, : k + 1] = perp
        self.spread[:, 2 * count * k : 2 * count * (k + 1)] = w_new[:, None] * self.inverses
        products = (self.cross[:, : k + 1] * w_new[:, None]).T @ self.inverses  # (k+1, 2P)
        column = products[:, :count].T + perp[None, :] / u[:, None]
        column[:, k] += 1.0
        self.m_matrix[:, : k + 1, k] = column
        self.m_matrix[:, k, : k + 1] = column
        column = products[:, count:].T + perp[None, :] / (u * u)[:, None]
        self.g_matrix[:, : k + 1, k] = column
        self.g_matrix[:, k, : k + 1] = column
        self.p = k + 1
        self.m_inverse = np.linalg.inv(self.m_matrix[:, : k + 1, : k + 1])
        self.work += 2.0 * r * (2 * count) * (k + 2) + count * (k + 1) ** 3

    def woodbury(
        self,
        y: np.ndarray,
        z: np.ndarray,
        alpha0: np.ndarray,
        gamma0: np.ndarray,
        *,
        count_work: bool = True,
    ) -> tuple[np.ndarray, np.ndarray]:
        """``alpha`` and ``gamma`` for ``A_0 + V V^T`` from those for ``A_0`` (per node).

        With ``R_0 = (A_0 + u)^-1`` (``1 / u`` outside the span of ``U``), ``c = V^T R_0 x``,
        ``e = V^T R_0^2 x``: ``alpha = alpha0 - c^T M^-1 c`` and
        ``gamma = gamma0 - 2 e^T M^-1 c + c^T M^-1 G M^-1 c``. ``y = U^T x``, ``z = V^T x``.
        """
        p, u, count = self.p, self.u, len(self.u)
        z_perp = z - y @ self.cross[:, :p]  # V_perp^T x_perp
        both = (y @ self.spread[:, : 2 * count * p]).reshape(len(y), p, 2 * count)
        c = both[:, :, :count].transpose(0, 2, 1) + z_perp[:, None, :] / u[None, :, None]
        e = both[:, :, count:].transpose(0, 2, 1) + z_perp[:, None, :] / (u * u)[None, :, None]
        solved = np.matmul(self.m_inverse[None], c[..., None])[..., 0]  # M^-1 c
        second = np.matmul(self.g_matrix[None, :, :p, :p], solved[..., None])[..., 0]
        alpha = alpha0 - np.einsum("bnk,bnk->bn", c, solved)
        gamma = (
            gamma0
            - 2.0 * np.einsum("bnk,bnk->bn", solved, e)
            + np.einsum("bnk,bnk->bn", solved, second)
        )
        if count_work:
            self.work += len(y) * (4.0 * len(self.values) * count * p + 6.0 * count * p * p)
        return alpha, gamma
