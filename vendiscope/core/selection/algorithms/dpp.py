"""Greedy MAP inference for a k-DPP with a (quality-weighted) cosine kernel on features.

Chen, Zhang & Zhou (2018) pick, ``k`` times, the row with the largest conditional variance
``d_i^2 = L_ii - L_iS L_SS^-1 L_Si`` and update every ``d_i^2`` with one more incremental
Cholesky entry ``e_i``; their version keeps the ``n x k`` Cholesky rows (40 GB in float64
for 1,000,000 rows and k = 5,000). Here the kernel is a feature kernel,

    L = diag(q) (X X^T + ridge I) diag(q),        X: the rows normalised to unit length,

i.e. ``L_ij = <psi_i, psi_j>`` with ``psi_i = q_i [x_i, sqrt(ridge) e_i]``, and the Cholesky
recursion *is* Gram-Schmidt on the ``psi``. Only the feature part ``a_t`` of each
orthonormal direction matters for rows not yet picked: ``e_i = q_i <x_i, a_j>`` with

    a_j = q_j (x_j - sum_t <x_j, a_t> a_t) / d_j,

so memory is ``O(n + k d)`` (the ``d_i^2`` and the ``a_t``), never ``n x n`` nor ``n x k``,
and each pick costs one pass over the rows (``O(n d)``). The picks, gains and objective
are those of Chen et al. on the same kernel (tested against brute-force ``slogdet``).
"""

from __future__ import annotations

import numpy as np

from vendiscope.core.base.jobs import CancelToken, Progress
from vendiscope.core.plugin_host.interfaces import Selection
from vendiscope.core.selection.algorithms._checks import check_quality, check_vectors
from vendiscope.core.selection.algorithms._result import job, selection
from vendiscope.core.selection.algorithms._rows import Rows
from vendiscope.core.selection.budget import check_budget

_NOISE = 200.0
"""A conditional variance below ``_NOISE * eps * max L_ii`` is rounding noise (no room left)."""


def greedy_dpp(
    vectors: np.ndarray,
    k: int,
    *,
    quality: np.ndarray | None = None,
    ridge: float = 1e-3,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> Selection:
    """The greedy MAP subset of a k-DPP: ``argmax log det L_S``, built one row at a time.

    Kernel ``L = diag(q) (X X^T + ridge I) diag(q)`` on rows normalised to unit length
    (cosine similarity). ``q`` is ``quality`` (all ones without it): the standard
    quality-diversity decomposition of a DPP (Kulesza & Taskar 2012) — a row's chance grows
    with ``q_i^2`` and its kernel-distance from the rows already picked; rows of quality 0
    are never picked.

    ``ridge`` (>= 0) keeps ``L`` full rank: ``X X^T`` has rank at most ``d``, so without it
    ``log det L_S`` is ``-inf`` once ``k`` exceeds the rank. With ``ridge > 0`` later picks
    maximise ``q_i^2 ridge (1 + x_i^T (X_S^T X_S + ridge I)^-1 x_i)``, the row least explained by
    the picks. With ``ridge = 0`` and ``k`` beyond the rank, a ``ValueError`` says so.

    Objective: ``log det L_S`` (natural log); a gain is ``log d_j^2``, the log conditional
    variance of the pick; the trace is their running sum. Deterministic (ties go to the
    lower row index). Cost ``O(n d k)`` time, ``O(n + k d)`` memory (see module docstring);
    conditional variances are updated in the rows' precision (float32 rows: ~1e-6 relative),
    the picked row's own variance and gain are recomputed in float64.
    """
    progress, cancel = job(progress, cancel)
    try:
        ridge = float(ridge)
    except (TypeError, ValueError):
        raise ValueError(f"ridge must be a number >= 0; got {ridge!r}") from None
    if not (np.isfinite(ridge) and ridge >= 0):
        raise ValueError(f"ridge must be a finite number >= 0; got {ridge!r}")
    matrix, squares = check_vectors(vectors)
    n, d = matrix.shape
    k = check_budget(k, n)
    weights = check_quality(quality, n, k)
    q = np.ones(n) if weights is None else weights
    rows = Rows(matrix, squares, normalize=True)
    rows.materialize()

    variance = q**2 * (1.0 + ridge)  # unit rows: ties (e.g. the first pick) go to the lower index
    floor = _NOISE * float(np.finfo(rows.dtype).eps) * float(variance.max())
    available = q > 0
    directions = np.zeros((k, d))
    picked = np.empty(k, dtype=np.int64)
    gains = np.empty(k)
    progress.start("greedy DPP (log det)", total=k, unit="picks")
    for t in range(k):
        cancel.raise_if_cancelled()
        j = int(np.argmax(np.where(available, variance, -np.inf)))
        x = rows.take(np.array([j]), np.float64)[0]
        projections = directions[:t] @ x
        exact = q[j] ** 2 * (float(x @ x) + ridge - float(projections @ projections))
        if not exact > floor:
            raise ValueError(
                f"k={k} is larger than the rank of the DPP kernel: after {t} picks every "
                "remaining row lies in the span of the picked ones (log det would be -inf); "
                "use ridge > 0 or a smaller k"
            )
        picked[t] = j
        gains[t] = np.log(exact)
        available[j] = False
        if t + 1 < k:
            direction = q[j] * (x - directions[:t].T @ projections) / np.sqrt(exact)
            directions[t] = direction
            update = q * rows.products(direction)
            variance -= update * update
        progress.update(t + 1)
    progress.finish()
    return selection(
        picked,
        gains,
        np.cumsum(gains),
        objective_name="log_det",
        method="dpp",
        ridge=ridge,
        weighted=weights is not None,
        kernel="diag(q) (cosine + ridge I) diag(q)",
    )
