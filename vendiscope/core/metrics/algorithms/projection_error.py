"""How much the random projection moves a Vendi score: the re-projection estimate.

G-Vendi scores gradients projected from millions of coordinates to ``d`` by a seeded random
sketch. Each cosine between two projected rows carries a noise of about ``1 / sqrt(d)``,
and noise in the kernel's off-diagonal spreads its eigenvalues, which lowers the score on
average (most at small ``d`` and large ``n``) and makes it depend on the seed.

The unprojected rows are gone once projected, so the effect is estimated by doing the same
thing once more: the unit rows ``Y`` (``n x d``) are count-sketched again from ``d`` to
``d`` with independent seeds and normalised. A count-sketch of dense unit vectors adds
inner-product noise of the same variance whether it starts from ``P`` or from ``d``
coordinates, so for each draw ``VS(Y') - VS(Y)`` is a draw of what the first projection did
to the score (a parametric bootstrap of the projection step):

- ``shift``: the mean of ``VS(Y') - VS(Y)``; the unprojected score is about
  ``VS(Y) - shift``;
- ``sd``: the spread of ``VS(Y')`` over draws — how far another projection seed would move
  the score.

It models the final projection only; mode "fast"'s inner Kronecker projections add noise of
their own (measured in docs/benchmarks.md).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from vendiscope.core.metrics.algorithms.vendi import vendi_score

DRAWS = 6
"""Re-projections per estimate (each costs one score)."""

MAX_ROWS = 20_000
"""Larger sets are estimated on a seeded random sample of this many rows."""


def resketch(rows: np.ndarray, seed: int) -> np.ndarray:
    """``rows`` count-sketched from ``d`` to ``d`` columns (one bucket and sign per column)."""
    n, d = rows.shape
    rng = np.random.default_rng(seed)
    buckets = rng.integers(0, d, size=d)
    signs = rng.choice(np.array([-1.0, 1.0]), size=d)
    order = np.argsort(buckets, kind="stable")
    signed = rows[:, order] * signs[order]
    starts = np.flatnonzero(np.r_[True, np.diff(buckets[order]) != 0])
    out = np.zeros((n, d), dtype=np.float64)
    out[:, buckets[order][starts]] = np.add.reduceat(signed, starts, axis=1)
    return out


def projection_error(
    rows: np.ndarray,
    *,
    q: float = 1.0,
    draws: int = DRAWS,
    seed: int = 0,
    max_rows: int = MAX_ROWS,
) -> dict[str, Any]:
    """``{"sd", "shift", "draws", "rows", "method"}`` for the unit rows of a projection.

    ``rows`` are the projected vectors as stored (they are normalised here). Sets larger
    than ``max_rows`` are estimated on a seeded random sample of that size.
    """
    matrix = np.asarray(rows, dtype=np.float64)
    if matrix.ndim != 2 or len(matrix) < 2 or draws < 2:
        raise ValueError("projection_error needs at least 2 rows and 2 draws")
    if len(matrix) > max_rows:
        picked = np.random.default_rng(seed).choice(len(matrix), max_rows, replace=False)
        matrix = matrix[np.sort(picked)]
    matrix = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
    base = vendi_score(matrix, q)
    values = np.array(
        [vendi_score(resketch(matrix, seed * 1_000_003 + i + 1), q) for i in range(draws)]
    )
    return {
        "sd": float(values.std(ddof=1)),
        "shift": float(values.mean() - base),
        "draws": int(draws),
        "rows": len(matrix),
        "method": "re-projection",
    }
