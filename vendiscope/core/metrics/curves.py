"""Diversity-vs-budget curves: the Vendi score of each prefix of a selection order.

A selection run records, at budgets along the way, the Vendi score of the first ``b``
picks on one or more vector sets (G-Vendi on gradients, embedding-Vendi on embeddings),
and the same curve for a random order of the same candidates, so methods can be compared
on one chart with random as the baseline.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from vendiscope.core.metrics.algorithms import vendi

if TYPE_CHECKING:
    import numpy as np

CURVE_POINTS = 16
"""Budgets per curve (geometrically spaced from 1 to ``k``, ``k`` always included)."""


def budget_points(k: int, points: int = CURVE_POINTS) -> list[int]:
    """Up to ``points`` budgets from 1 to ``k``, denser at the start, ``k`` always last."""
    import numpy as np

    if k < 1:
        raise ValueError(f"k must be at least 1; got {k}")
    grid = np.unique(np.round(np.geomspace(1, k, num=min(points, k))).astype(np.int64))
    budgets = [int(b) for b in grid if b >= 1]
    if budgets[-1] != k:
        budgets.append(k)
    return budgets


def prefix_vendi(
    matrix: np.ndarray,
    order: Sequence[int] | np.ndarray,
    budgets: Sequence[int],
    *,
    q: float = 1.0,
) -> list[float]:
    """The Vendi score of order ``q`` of ``matrix[order[:b]]`` for each budget ``b``.

    Streams the prefix: the ``d x d`` Gram matrix of the (unit-normalised) rows is
    accumulated once over the whole order, so the cost is one pass over the ``k`` chosen
    rows plus one eigen-decomposition per budget (of ``b x b`` while ``b < d``).
    """
    import numpy as np

    order = np.asarray(order, dtype=np.int64)
    d = matrix.shape[1]
    xtx = np.zeros((d, d), dtype=np.float64)
    done = 0
    values = []
    for budget in budgets:
        if not 1 <= budget <= len(order):
            raise ValueError(f"budget {budget} is outside 1..{len(order)}")
        rows = _unit_rows(matrix[order[done:budget]])
        xtx += rows.T @ rows
        done = budget
        if budget < d:
            prefix = matrix[order[:budget]]
            values.append(vendi.vendi_score(prefix, q, normalize=True))
        else:
            values.append(vendi.vendi_from_gram(xtx, budget, q))
    return values


def _unit_rows(rows: np.ndarray) -> np.ndarray:
    import numpy as np

    block = rows.astype(np.float64)
    norms = np.linalg.norm(block, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return block / norms


def random_order(n: int, k: int, seed: int) -> np.ndarray:
    """``k`` distinct positions of ``0..n-1`` in a random order (the baseline)."""
    import numpy as np

    return np.random.default_rng(seed).choice(n, size=k, replace=False)
