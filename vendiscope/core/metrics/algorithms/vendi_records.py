"""Per-record diversity scores over the Vendi decomposition
(:mod:`vendiscope.core.metrics.algorithms.vendi`).

Per-record scores
-----------------
:func:`leverage_scores`
    ``h_i = x_i^T (X^T X + ridge I)^-1 x_i`` in ``[0, 1)``; they sum to the rank as
    ``ridge -> 0``. High for a row alone in a direction few others share.
:func:`vendi_contributions`
    ``VS(all) - VS(all without i)``: how much diversity the set loses without the row,
    for all rows at once from one eigendecomposition and rank-one downdates — exact (up to
    a quadrature accurate to about 1e-8) for ``0 < q <= 2`` and ``q = inf``, a second-order
    approximation for finite ``q > 2``; or by brute force for small data.
:func:`knn_uniqueness`
    ``1 - mean cosine similarity to the k nearest other rows`` (FAISS, exact search).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Literal

import numpy as np

from vendiscope.core.metrics.algorithms.vendi import (
    _EPS64,
    _STEP,
    VendiDecomposition,
    _as_matrix,
    _iter_chunks,
    _normalised,
    _work_dtype,
    check_order,
    check_quality,
    decompose,
    vendi_from_eigenvalues,
)

__all__ = ["knn_uniqueness", "leverage_scores", "vendi_contributions"]


def _squared_projections(
    matrix: np.ndarray, dec: VendiDecomposition, normalize: bool, chunk_rows: int | None
) -> Iterator[tuple[slice, np.ndarray]]:
    """Yield ``(rows, B2)`` with ``B2[i, j] = (x_i . u_j)^2`` for the Gram's eigenvectors ``u_j``.

    Dual form: ``x_i . u_j`` computed chunk by chunk (in the work precision). Primal form:
    ``(x_i . u_j)^2 = s_j V_ij^2`` from the eigenvectors ``V`` of ``X X^T``.
    """
    if dec.vectors is None:
        raise ValueError("the decomposition has no eigenvectors (decompose(eigenvectors=True))")
    if dec.form == "primal":
        yield slice(0, dec.n), dec.vectors**2 * dec.values[None, :]
        return
    basis = dec.vectors.astype(_work_dtype(matrix.dtype))
    for start, block in _iter_chunks(matrix, normalize, chunk_rows):
        projected = (block @ basis).astype(np.float64)
        yield slice(start, start + block.shape[0]), projected * projected


def _decomposition_for(
    matrix: np.ndarray,
    decomposition: VendiDecomposition | None,
    normalize: bool,
    chunk_rows: int | None,
) -> VendiDecomposition:
    if decomposition is None:
        return decompose(matrix, normalize=normalize, eigenvectors=True, chunk_rows=chunk_rows)
    if decomposition.vectors is None or decomposition.n != matrix.shape[0]:
        raise ValueError(
            "decomposition must come from decompose(vectors, eigenvectors=True) on the same rows"
        )
    return decomposition


def leverage_scores(
    vectors: np.ndarray,
    *,
    ridge: float = 1e-6,
    normalize: bool = True,
    decomposition: VendiDecomposition | None = None,
    chunk_rows: int | None = None,
) -> np.ndarray:
    """Leverage of each row: ``h_i = x_i^T (X^T X + ridge I)^-1 x_i`` for the normalised rows.

    Computed from the eigendecomposition ``X^T X = U diag(s) U^T`` as
    ``h_i = sum_j (x_i . u_j)^2 / (s_j + ridge)`` — one extra pass over the rows in the dual
    form. ``0 <= h_i < 1``; ``sum_i h_i = sum_j s_j / (s_j + ridge)``, the rank as
    ``ridge -> 0``. A row alone in its direction has leverage near 1, one of many similar
    rows near 0. Pass ``decomposition`` (with eigenvectors) to reuse one already computed.
    """
    if not ridge >= 0:
        raise ValueError(f"ridge must be >= 0; got {ridge!r}")
    matrix = _as_matrix(vectors)
    dec = _decomposition_for(matrix, decomposition, normalize, chunk_rows)
    with np.errstate(divide="ignore"):
        inverse = np.where(dec.values + ridge > 0, 1.0 / (dec.values + ridge), 0.0)
    out = np.empty(dec.n)
    for rows, b2 in _squared_projections(matrix, dec, normalize, chunk_rows):
        out[rows] = b2 @ inverse
    return out


def _trace_function(q: float) -> tuple[Callable, Callable, Callable]:
    """``g``, ``g'``, ``g''`` with ``sum_j g(lambda_j)`` the quantity behind ``VS_q``."""
    if q == 1:
        return (
            lambda t: -t * np.log(np.where(t > 0, t, 1.0)),
            lambda t: -np.log(t) - 1.0,
            lambda t: -1.0 / t,
        )
    return (
        lambda t: t**q,
        lambda t: q * t ** (q - 1.0),
        lambda t: q * (q - 1.0) * t ** (q - 2.0),
    )


def _divided_differences(m: np.ndarray, g1: Callable, g2: Callable) -> np.ndarray:
    """``D_jk = (g'(m_j) - g'(m_k)) / (m_j - m_k)`` (``g''`` when close), zero diagonal."""
    diff = m[:, None] - m[None, :]
    close = np.abs(diff) <= 1e-6 * np.maximum(m[:, None], m[None, :])
    with np.errstate(divide="ignore", invalid="ignore"):
        table = (g1(m)[:, None] - g1(m)[None, :]) / np.where(close, 1.0, diff)
    table = np.where(close, g2((m[:, None] + m[None, :]) / 2.0), table)
    np.fill_diagonal(table, 0.0)
    return table


def _dk_scores(
    b2: np.ndarray, values: np.ndarray, n: int, q: float, table: np.ndarray
) -> np.ndarray:
    """``VS_q`` without each row to second order (Daleckii-Krein); used for finite q > 2.

    First-order eigenvalues ``mu_j = (s_j - b_j^2) / (n - 1)`` (exact for a row alone in
    its direction) plus the second-order eigenvector term
    ``1/2 sum_{j != k} beta_j beta_k (g'(m_j) - g'(m_k)) / (m_j - m_k)`` on ``sum g(mu)``,
    ``m_j = s_j / (n - 1)``, ``beta_j = b_j^2 / (n - 1)``, ``g(t) = t^q``.
    """
    g, _, _ = _trace_function(q)
    beta = b2 / (n - 1)
    first = np.clip(values[None, :] / (n - 1) - beta, 0.0, None)
    trace = g(first).sum(axis=1) + 0.5 * np.einsum("ij,ij->i", beta @ table, beta)
    return np.maximum(trace, np.finfo(np.float64).tiny) ** (1.0 / (1.0 - q))


def _top_downdated(b2: np.ndarray, values: np.ndarray, iterations: int = 60) -> np.ndarray:
    """Largest eigenvalue of ``G - x_i x_i^T`` for each row: a root of the secular equation.

    With ``G = U diag(s) U^T`` and ``b = U^T x_i`` the eigenvalues ``t`` of the downdated
    matrix solve ``phi(t) = sum_j b_j^2 / (s_j - t) = 1``; the largest lies in ``[s_2, s_1]``
    (interlacing), where ``phi`` increases, so bisection finds it. Terms with ``s_j`` far
    below that interval (more than 8 half-widths from its centre ``c``) are summed once as
    a power series in ``(c - t) / h`` (16 terms, ratio <= 1/8), so an iteration costs the
    number of eigenvalues near the top, not ``d``.
    """
    s1 = values[-1]
    if values.size == 1:
        return np.maximum(s1 - b2[:, -1], 0.0)
    s2 = values[-2]
    if s1 - s2 <= 1e-12 * s1:
        return np.full(b2.shape[0], s1)
    centre, half = (s1 + s2) / 2.0, (s1 - s2) / 2.0
    near = values >= centre - 8.0 * half
    gaps = centre - values[~near]
    series = (1.0 / gaps)[:, None] * (half / gaps)[:, None] ** np.arange(16)[None, :]
    moments = b2[:, ~near] @ series  # far sum = -sum_k moments_k z^k, z = (c - t) / h
    close, close_values = b2[:, near], values[near]
    low = np.full(b2.shape[0], s2)
    high = np.full(b2.shape[0], s1)
    with np.errstate(divide="ignore", invalid="ignore"):
        for _ in range(iterations):
            mid = (low + high) / 2.0
            z = (centre - mid) / half
            far = moments[:, -1]
            for k in range(moments.shape[1] - 2, -1, -1):
                far = far * z + moments[:, k]
            phi = (close / (close_values[None, :] - mid[:, None])).sum(axis=1) - far
            above = phi > 1.0
            high = np.where(above, mid, high)
            low = np.where(above, low, mid)
    return (low + high) / 2.0


@dataclass(frozen=True)
class _Downdate:
    """What the leave-one-out formulas need besides each row's projections (see below)."""

    values: np.ndarray  # eigenvalues s_j of the Gram, ascending, clipped at 0
    n: int
    q: float
    score: float
    power_sum: float  # sum_j s_j^q (q != 1) or sum_j s_j log s_j (q == 1), significant s_j
    nodes: np.ndarray  # quadrature nodes u_p (Stieltjes integral), for 0 < q < 2
    weights: np.ndarray  # trapezoid weights in log u, times u_p^(q + 1)
    table: np.ndarray | None  # divided differences, for finite q > 2
    step: float = _STEP  # the grid step in log u

    @classmethod
    def prepare(cls, dec: VendiDecomposition, q: float) -> _Downdate:
        values = dec.values
        significant = values[values > values[-1] * values.size * _EPS64]
        if q == 1:
            power_sum = float(np.dot(significant, np.log(significant)))
        elif math.isinf(q):
            power_sum = float(significant[-1])
        else:
            power_sum = float(np.sum(significant**q))
        nodes = weights = np.empty(0)
        table = None
        step = _STEP
        if q < 2:
            # Trapezoid rule in v = log u from the numerical-zero level to 18 e-folds above
            # the top eigenvalue: the integrand is analytic in the strip |Im v| < pi, so the
            # rule converges geometrically; the tails are below 1e-8 of the integral.
            low = math.log(values[-1] * values.size * _EPS64)
            high = math.log(values[-1]) + 18.0
            count = math.ceil((high - low) / _STEP) + 1
            grid = np.linspace(low, high, count)
            nodes = np.exp(grid)
            step = float(grid[1] - grid[0])
            weights = np.full(count, step)
            weights[[0, -1]] /= 2.0
            weights *= nodes ** (q + 1.0)
        elif q > 2 and not math.isinf(q):
            _, g1, g2 = _trace_function(q)
            keep = values > values[-1] * values.size * _EPS64
            table = np.zeros((values.size, values.size))
            table[np.ix_(keep, keep)] = _divided_differences(values[keep] / (dec.n - 1), g1, g2)
        return cls(values, dec.n, q, dec.score(q), power_sum, nodes, weights, table, step)

    def contributions(self, b2: np.ndarray) -> np.ndarray:
        """``VS_q(all) - VS_q(without i)`` for rows with squared projections ``b2``."""
        n, q, values = self.n, self.q, self.values
        if math.isinf(q):
            return self.score - (n - 1) / _top_downdated(b2, values)
        if q > 2:
            return self.score - _dk_scores(b2, values, n, q, self.table)
        norm2 = b2.sum(axis=1)  # |x_i|^2
        sigma = b2 @ values  # x_i^T G x_i
        # q = 2 is exact and closed: tr (G - x x^T)^2 - tr G^2 = |x|^4 - 2 x^T G x.
        change = norm2**2 - 2.0 * sigma if q == 2 else self._stieltjes(b2, norm2, sigma)
        if q == 1:
            trace = float(values.sum())
            # H' - H with H = log n - (sum s log s) / n for trace n; written generally.
            entropy_all = (trace * math.log(n) - self.power_sum) / n
            entropy_without = ((trace - norm2) * math.log(n - 1) - (self.power_sum + change)) / (
                n - 1
            )
            return -self.score * np.expm1(entropy_without - entropy_all)
        log_ratio = np.log1p(change / self.power_sum) - q * math.log1p(-1.0 / n)
        return -self.score * np.expm1(log_ratio / (1.0 - q))

    def _stieltjes(self, b2: np.ndarray, norm2: np.ndarray, sigma: np.ndarray) -> np.ndarray:
        """Change of ``sum s^q`` (or ``sum s log s`` for q = 1) when row ``x`` is removed.

        ``R(u) = tr (G - x x^T + u)^-1 - tr (G + u)^-1 = gamma / (1 - alpha)`` (Sherman-
        Morrison) with ``alpha = sum_j b_j^2 / (s_j + u)`` and ``gamma = sum_j b_j^2 /
        (s_j + u)^2``. The Stieltjes representation of ``t^q`` then gives the change exactly
        as ``-w q a^(q-1) - sin(pi q) / pi * int_0^inf u^q rho(u) du`` (q = 1: ``-w (1 +
        log a) + int u rho``), with ``w = |x|^2``, ``a = x^T G x / w - w / 2`` and
        ``rho(u) = R(u) - w / (u + a)^2``: the subtracted term matches ``R`` to ``O(u^-4)``
        at infinity, so the integrand decays fast at both ends.
        """
        q, nodes = self.q, self.nodes
        inverse = 1.0 / (self.values[:, None] + nodes[None, :])
        alpha = b2 @ inverse
        gamma = b2 @ (inverse * inverse)
        with np.errstate(divide="ignore", invalid="ignore"):
            resolvent = gamma / (1.0 - alpha)
        # 0 <= R(u) <= 1/u (interlacing); below that, 1 - alpha is rounding noise.
        ceiling = 1.0 / nodes[None, :]
        resolvent = np.where((alpha < 1.0) & (resolvent < ceiling), resolvent, ceiling)
        safe = norm2 > 0
        shift = np.where(safe, sigma / np.where(safe, norm2, 1.0) - norm2 / 2.0, 1.0)
        rho = resolvent - norm2[:, None] / (nodes[None, :] + shift[:, None]) ** 2
        # Below the first node u0 only a lost eigenvalue (a row alone in its direction,
        # where R(u) ~ kappa / u, kappa = u0 R(u0)) still matters: add int_0^u0 kappa u^(q-1)
        # du, and the trapezoid rule's end correction for that non-decayed end (h^2 f' / 12).
        lost = np.clip(nodes[0] * resolvent[:, 0], 0.0, 1.0)
        tail = lost * nodes[0] ** q * (1.0 / q + self.step**2 * q / 12.0)
        integral = rho @ self.weights + tail
        if q == 1:
            return -norm2 * (1.0 + np.log(shift)) + integral
        return -norm2 * q * shift ** (q - 1.0) - math.sin(math.pi * q) / math.pi * integral


def vendi_contributions(
    vectors: np.ndarray,
    q: float | str = 1.0,
    *,
    normalize: bool = True,
    quality: np.ndarray | None = None,
    method: Literal["fast", "exact"] = "fast",
    decomposition: VendiDecomposition | None = None,
    chunk_rows: int | None = None,
) -> np.ndarray:
    """Leave-one-out contribution of each row: ``VS_q(all) - VS_q(all without row i)``.

    Positive for a row that adds diversity; negative for a redundant row, whose removal
    *raises* the score (without one of many near-copies the rest is more even). With
    ``quality``, the contribution to ``mean(quality) * VS_q``. A single row contributes
    its whole score (the empty set scores 0).

    Method ``"fast"`` (default) needs one eigendecomposition ``G = X^T X = U diag(s) U^T``
    and one more pass over the rows. Removing unit row ``x`` (``b = U^T x``) leaves
    ``G - x x^T`` and ``n - 1`` rows, so only ``sum_j t_j^q`` (or ``sum_j t_j log t_j``)
    over the eigenvalues ``t`` of ``G - x x^T`` is needed:

    - ``q = 2``: ``tr (G - x x^T)^2 = tr G^2 - 2 x^T G x + |x|^4``, exact;
    - ``q = inf``: the top eigenvalue of ``G - x x^T`` solves the secular equation
      ``sum_j b_j^2 / (s_j - t) = 1`` on ``[s_2, s_1]``; found by bisection, exact;
    - ``0 < q < 2``: ``t^q`` (and ``t log t``) is a Stieltjes integral of ``t / (t + u)``,
      and ``sum_j 1 / (t_j + u)`` follows from Sherman-Morrison; the integral over ``u``
      is taken by the trapezoid rule in ``log u`` (about 120 nodes), which converges
      geometrically — exact to about 1e-8 relative (see :meth:`_Downdate._stieltjes`);
    - finite ``q > 2``: a second-order (Daleckii-Krein) perturbation of the eigenvalues,
      an approximation (about 1% of the largest contribution when ``n >> d``; worse for
      rows nearly alone in a weak direction).

    Cost: ``O(n d^2)`` (``O(n d P)`` for the integral), memory one chunk of rows.
    Eigenvalues at the numerical-zero level count as zero, as in :func:`vendi_score`.

    Method ``"exact"`` recomputes the score without each row from the downdated Gram
    (``n`` eigendecompositions of ``min(n, d)``-square matrices): for small data and tests.
    """
    order = check_order(q)
    matrix = _as_matrix(vectors)
    n = matrix.shape[0]
    weights = None if quality is None else check_quality(quality, n)
    if method not in ("fast", "exact"):
        raise ValueError(f"method must be 'fast' or 'exact'; got {method!r}")
    mean_all = 1.0 if weights is None else float(weights.mean())
    if n == 1:
        return np.array([mean_all * decompose(matrix, normalize=normalize).score(order)])
    if method == "exact":
        dec = decompose(matrix, normalize=normalize, chunk_rows=chunk_rows)
        contributions = dec.score(order) - _loo_scores_exact(matrix, dec, order, normalize)
    else:
        dec = _decomposition_for(matrix, decomposition, normalize, chunk_rows)
        downdate = _Downdate.prepare(dec, order)
        contributions = np.empty(n)
        for rows, b2 in _squared_projections(matrix, dec, normalize, chunk_rows):
            contributions[rows] = downdate.contributions(b2)
    if weights is None:
        return contributions
    score = dec.score(order)
    mean_without = (weights.sum() - weights) / (n - 1)
    return mean_all * score - mean_without * (score - contributions)


def _loo_scores_exact(
    matrix: np.ndarray, dec: VendiDecomposition, q: float, normalize: bool
) -> np.ndarray:
    """``VS_q`` without each row, by brute force (downdated Gram, one eigvalsh per row)."""
    n = dec.n
    rows = _normalised(matrix, normalize)
    out = np.empty(n)
    if dec.form == "primal":
        kernel = rows @ rows.T
        for i in range(n):
            keep = np.arange(n) != i
            values = np.linalg.eigvalsh(kernel[np.ix_(keep, keep)])
            out[i] = vendi_from_eigenvalues(np.clip(values, 0, None) / (n - 1), q)
        return out
    xtx = rows.T @ rows
    for i in range(n):
        values = np.linalg.eigvalsh(xtx - np.outer(rows[i], rows[i]))
        out[i] = vendi_from_eigenvalues(np.clip(values, 0, None) / (n - 1), q)
    return out


def knn_uniqueness(
    vectors: np.ndarray,
    k: int = 10,
    *,
    normalize: bool = True,
    chunk_rows: int | None = None,
) -> np.ndarray:
    """``1 - mean cosine similarity to the k nearest other rows``, per row.

    About 0 for a row with ``k`` near-duplicates, about 1 for a row orthogonal to all others,
    up to 2 for rows pointing away from everything. ``k`` is capped at ``n - 1``; a single
    row scores 1 (nothing is similar to it). Exact search with FAISS ``IndexFlatIP`` on a
    float32 copy of the normalised rows: ``O(n^2 d)`` time, ``n x d`` float32 memory. A row
    is never its own neighbour (if a duplicate displaces it from the results, the farthest
    result is dropped instead).
    """
    if int(k) != k or k < 1:
        raise ValueError(f"k must be a positive integer; got {k!r}")
    matrix = _as_matrix(vectors)
    n, d = matrix.shape
    if n == 1:
        return np.ones(1)
    k = min(int(k), n - 1)

    import faiss

    rows = np.empty((n, d), dtype=np.float32)
    for start, block in _iter_chunks(matrix, normalize, chunk_rows):
        rows[start : start + block.shape[0]] = block
    index = faiss.IndexFlatIP(d)
    index.add(rows)
    sims, ids = index.search(rows, k + 1)
    self_hit = ids == np.arange(n)[:, None]
    self_hit[~self_hit.any(axis=1), -1] = True
    neighbours = sims[~self_hit].reshape(n, k).astype(np.float64)
    return 1.0 - neighbours.mean(axis=1)
