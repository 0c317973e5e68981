"""The random baseline of a subset's score: the same Vendi score on random subsets of its size.

A subset's Vendi score means little alone — a smaller set has a smaller score. The baseline
draws ``draws`` subsets of the same size uniformly (without replacement) from all the
dataset's rows, seeded, scores each with the core Vendi functions
(:mod:`vendiscope.core.metrics.algorithms.vendi`, no per-record scores) and says where the subset
sits:
its value minus the random mean in standard deviations (``z``) and the share of the draws
scoring below it. Pure NumPy: the caller loads the matrix once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from vendiscope.core.metrics.algorithms import vendi
from vendiscope.core.metrics.options import ScoreOptions

LEVEL = 0.95
"""The random range is the central 95% of the draws (2.5th to 97.5th percentile)."""


def unit_rows(matrix: np.ndarray) -> np.ndarray:
    """The rows scaled to unit length once, in the work precision (float32 stays float32)."""
    dtype = np.float32 if matrix.dtype in (np.float16, np.float32) else np.float64
    norms = np.sqrt(np.einsum("ij,ij->i", matrix, matrix, dtype=np.float64))
    if not (np.isfinite(norms).all() and norms.min() > 0):
        raise ValueError("vectors: a row is all zeros or not finite; it cannot be normalised")
    return (np.asarray(matrix, dtype=dtype) / norms[:, None]).astype(dtype, copy=False)


def random_baseline(
    matrix: np.ndarray,
    size: int,
    value: float,
    *,
    draws: int = ScoreOptions.random_draws,
    seed: int = 0,
    q: float | str = 1.0,
    normalize: bool = True,
    quality: np.ndarray | None = None,
    check_cancel: Callable[[], None] | None = None,
) -> dict[str, Any]:
    """Score ``draws`` random subsets of ``size`` rows of ``matrix``; compare with ``value``.

    ``quality`` (one weight per row of ``matrix``) weights each draw as the scored set was
    weighted: ``mean(quality of the draw) * VS_q``. Returns a JSON-ready dict: ``draws``,
    ``seed``, ``size``, ``mean``, ``sd`` (``ddof=1``; 0 for one draw), ``low``/``high`` (the
    2.5th and 97.5th percentiles), ``level``, ``z`` (``(value - mean) / sd``, ``None`` when
    the draws do not vary), ``share_below`` (the fraction of draws scoring below ``value``)
    and ``values`` (every draw's score).
    """
    n = int(matrix.shape[0])
    if int(draws) != draws or draws < 1:
        raise ValueError(f"draws must be a positive whole number; got {draws!r}")
    if not 1 <= size <= n:
        raise ValueError(f"size must be between 1 and the {n} rows; got {size}")
    order = vendi.check_order(q)
    weights = None if quality is None else vendi.check_quality(quality, n)
    rows = unit_rows(matrix) if normalize else matrix
    rng = np.random.default_rng(seed)
    scores = np.empty(int(draws))
    for number in range(int(draws)):
        if check_cancel is not None:
            check_cancel()
        drawn = np.sort(rng.choice(n, size=size, replace=False))
        sub_quality = None if weights is None else weights[drawn]
        scores[number] = vendi.vendi_score(rows[drawn], order, normalize=False, quality=sub_quality)
    mean = float(scores.mean())
    sd = float(scores.std(ddof=1)) if draws > 1 else 0.0
    tail = (1.0 - LEVEL) / 2.0 * 100.0
    low, high = (float(x) for x in np.percentile(scores, [tail, 100.0 - tail]))
    varies = sd > abs(mean) * 1e-12
    return {
        "draws": int(draws),
        "seed": int(seed),
        "size": int(size),
        "mean": mean,
        "sd": sd,
        "low": low,
        "high": high,
        "level": LEVEL,
        "z": (float(value) - mean) / sd if varies else None,
        "share_below": float(np.mean(scores < float(value))),
        "values": [float(x) for x in scores],
    }
