"""Rank correlations, their two-sided tests, and the power of the Spearman test (pure numpy).

``spearman`` and ``kendall`` (tau-b) use average ranks for ties and drop pairs with a
non-finite value; the p-values follow ``scipy.stats.spearmanr`` (t approximation) and
``scipy.stats.kendalltau(method="asymptotic")`` (normal, tie-corrected). The ``resampled_*``
forms score many bootstrap resamples at once, each given as counts of how often every pair
was drawn. The power functions use Fisher's z with the Bonett & Wright (2000) Spearman
variance, ``(1 + r**2 / 2) / (n - 3)``.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

MIN_PAIRS = 3
"""A rank correlation needs at least this many finite pairs; fewer give NaN."""

_NORMAL = NormalDist()
_FLAT = 1e-9  # a rank variance below this is a constant input


def finite_pairs(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``x`` and ``y`` as float arrays without the pairs where either is non-finite."""
    x, y = np.asarray(x, dtype=float).ravel(), np.asarray(y, dtype=float).ravel()
    if x.shape != y.shape:
        raise ValueError(f"x has {x.size} values but y has {y.size}")
    keep = np.isfinite(x) & np.isfinite(y)
    return x[keep], y[keep]


def _ranks(a: np.ndarray) -> np.ndarray:
    """Ranks from 1, ties given the average of the ranks they span."""
    order = np.argsort(a, kind="mergesort")
    ordered = a[order]
    starts = np.r_[True, ordered[1:] != ordered[:-1]]
    first = np.flatnonzero(starts)
    sizes = np.diff(np.r_[first, a.size])
    ranks = np.empty(a.size)
    ranks[order] = (first + (sizes + 1) / 2)[np.cumsum(starts) - 1]
    return ranks


def spearman(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman's rho; NaN with fewer than 3 finite pairs or a constant input."""
    x, y = finite_pairs(x, y)
    if x.size < MIN_PAIRS or np.ptp(x) == 0 or np.ptp(y) == 0:
        return math.nan
    rx, ry = _ranks(x), _ranks(y)
    rx, ry = rx - rx.mean(), ry - ry.mean()
    return float(np.clip(rx @ ry / math.sqrt((rx @ rx) * (ry @ ry)), -1.0, 1.0))


def _signs(a: np.ndarray) -> np.ndarray:
    """``sign(a[i] - a[j])`` for every pair, as an (n, n) matrix."""
    return np.sign(a[:, None] - a[None, :])


def kendall(x: np.ndarray, y: np.ndarray) -> float:
    """Kendall's tau-b; NaN with fewer than 3 finite pairs or a constant input."""
    x, y = finite_pairs(x, y)
    if x.size < MIN_PAIRS or np.ptp(x) == 0 or np.ptp(y) == 0:
        return math.nan
    sx, sy = _signs(x), _signs(y)
    upper = np.triu_indices(x.size, k=1)
    sx, sy = sx[upper], sy[upper]
    score = float(sx @ sy)
    return float(np.clip(score / math.sqrt(np.abs(sx).sum() * np.abs(sy).sum()), -1.0, 1.0))


def spearman_p(rho: float, n: int) -> float:
    """Two-sided p-value of a Spearman ``rho`` over ``n`` pairs (t with n - 2 dof)."""
    if not math.isfinite(rho) or n < MIN_PAIRS:
        return math.nan
    from scipy.special import stdtr

    if abs(rho) >= 1.0:
        return 0.0
    t = rho * math.sqrt((n - 2) / ((1.0 + rho) * (1.0 - rho)))
    return float(min(1.0, 2.0 * stdtr(n - 2, -abs(t))))


def _tie_terms(a: np.ndarray) -> tuple[float, float, float]:
    """Sums over tie groups of t(t-1)/2, t(t-1)(t-2) and t(t-1)(2t+5)."""
    t = np.unique(a, return_counts=True)[1].astype(float)
    return (
        float((t * (t - 1) / 2).sum()),
        float((t * (t - 1) * (t - 2)).sum()),
        float((t * (t - 1) * (2 * t + 5)).sum()),
    )


def kendall_p(x: np.ndarray, y: np.ndarray) -> float:
    """Two-sided asymptotic p-value of Kendall's tau, with the tie-corrected variance."""
    x, y = finite_pairs(x, y)
    n = x.size
    if n < MIN_PAIRS or np.ptp(x) == 0 or np.ptp(y) == 0:
        return math.nan
    upper = np.triu_indices(n, k=1)
    score = float(_signs(x)[upper] @ _signs(y)[upper])
    (xtie, x0, x1), (ytie, y0, y1) = _tie_terms(x), _tie_terms(y)
    m = n * (n - 1.0)
    var = (m * (2 * n + 5) - x1 - y1) / 18 + 2 * xtie * ytie / m + x0 * y0 / (9 * m * (n - 2))
    return float(math.erfc(abs(score) / math.sqrt(2 * var)))


def resampled_spearman(x: np.ndarray, y: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Spearman's rho of each resample; ``counts[b, i]`` is how often pair ``i`` was drawn.

    A resample with a constant side, or fewer than 3 pairs to draw from, gives NaN.
    ``x`` and ``y`` must be finite.
    """
    counts = np.atleast_2d(np.asarray(counts, dtype=float))
    if counts.shape[1] < MIN_PAIRS:
        return np.full(counts.shape[0], np.nan)
    total = counts.sum(axis=1, keepdims=True)

    def ranks(a: np.ndarray) -> np.ndarray:
        below = counts @ (a[None, :] < a[:, None]).T.astype(float)
        equal = counts @ (a[None, :] == a[:, None]).T.astype(float)
        r = below + (equal + 1) / 2
        return r - (counts * r).sum(axis=1, keepdims=True) / total

    rx, ry = ranks(np.asarray(x, dtype=float)), ranks(np.asarray(y, dtype=float))
    vx, vy = (counts * rx * rx).sum(axis=1), (counts * ry * ry).sum(axis=1)
    flat = (vx < _FLAT) | (vy < _FLAT)
    with np.errstate(divide="ignore", invalid="ignore"):
        rho = (counts * rx * ry).sum(axis=1) / np.sqrt(vx * vy)
    return np.where(flat, np.nan, np.clip(rho, -1.0, 1.0))


def resampled_kendall(x: np.ndarray, y: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Kendall's tau-b of each resample, given as counts like :func:`resampled_spearman`."""
    counts = np.atleast_2d(np.asarray(counts, dtype=float))
    if counts.shape[1] < MIN_PAIRS:
        return np.full(counts.shape[0], np.nan)
    sx, sy = _signs(np.asarray(x, dtype=float)), _signs(np.asarray(y, dtype=float))

    def pairs(m: np.ndarray) -> np.ndarray:  # sum of m over drawn pairs (twice)
        return ((counts @ m) * counts).sum(axis=1)

    nx, ny = pairs(np.abs(sx)), pairs(np.abs(sy))
    with np.errstate(divide="ignore", invalid="ignore"):
        tau = pairs(sx * sy) / np.sqrt(nx * ny)
    return np.where((nx == 0) | (ny == 0), np.nan, np.clip(tau, -1.0, 1.0))


def _check_test(alpha: float, reliability: float, power: float | None = None) -> None:
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha}")
    if not 0 <= reliability <= 1:
        raise ValueError(f"reliability must lie in [0, 1], got {reliability}")
    if power is not None and not alpha < power < 1:
        raise ValueError(f"power must lie in (alpha, 1), got {power}")


def detection_power(
    n_subsets: int, rho: float, *, alpha: float = 0.05, reliability: float = 1.0
) -> float:
    """Chance that a two-sided Spearman test at ``alpha`` finds a true ``rho``.

    The outcome's measurement noise attenuates ``rho`` to ``rho * sqrt(reliability)``.
    NaN below 4 subsets, where Fisher's z has no variance.
    """
    _check_test(alpha, reliability)
    if not abs(rho) <= 1:
        raise ValueError(f"rho must lie in [-1, 1], got {rho}")
    if n_subsets < 4:
        return math.nan
    r = min(abs(rho) * math.sqrt(reliability), 1 - 1e-12)
    z, crit = math.atanh(r), _NORMAL.inv_cdf(1 - alpha / 2) / math.sqrt(n_subsets - 3)
    se = math.sqrt((1 + r * r / 2) / (n_subsets - 3))
    return _NORMAL.cdf((z - crit) / se) + _NORMAL.cdf((-z - crit) / se)


def minimum_detectable(
    n_subsets: int, *, alpha: float = 0.05, power: float = 0.8, reliability: float = 1.0
) -> float:
    """The smallest true rho found with chance ``power``; NaN when even rho = 1 is not."""
    _check_test(alpha, reliability, power)
    if (
        n_subsets < 4
        or detection_power(n_subsets, 1.0, alpha=alpha, reliability=reliability) < power
    ):
        return math.nan
    low, high = 0.0, 1.0
    for _ in range(60):
        mid = (low + high) / 2
        found = detection_power(n_subsets, mid, alpha=alpha, reliability=reliability)
        low, high = (low, mid) if found >= power else (mid, high)
    return high


def subsets_needed(
    rho: float, *, alpha: float = 0.05, power: float = 0.8, reliability: float = 1.0
) -> int:
    """The fewest subsets with which a true ``rho`` is found with chance ``power``."""
    _check_test(alpha, reliability, power)
    if rho == 0 or reliability == 0 or not math.isfinite(rho):
        raise ValueError(f"rho must be a nonzero number seen with reliability > 0, got {rho}")

    def enough(n: int) -> bool:
        return detection_power(n, rho, alpha=alpha, reliability=reliability) >= power

    low, high = 3, 4  # enough(low) is false, as power is NaN there
    while not enough(high):
        low, high = high, high * 2
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (low, mid) if enough(mid) else (mid, high)
    return high
