"""Random selection: the control every diverse selector is compared with."""

from __future__ import annotations

import numpy as np

from vendiscope.core.base.jobs import CancelToken, Progress
from vendiscope.core.plugin_host.interfaces import Selection
from vendiscope.core.selection.algorithms._checks import check_quality, check_seed, check_vectors
from vendiscope.core.selection.algorithms._result import job, selection
from vendiscope.core.selection.budget import check_budget


def weighted_order(weights: np.ndarray, rng: np.random.Generator, count: int) -> np.ndarray:
    """``count`` rows drawn without replacement with probability proportional to ``weights``.

    Efraimidis-Spirakis: the ``count`` largest keys ``log(u) / w`` (``u`` uniform), in
    decreasing order — the same distribution as drawing one row at a time proportionally to
    the weights of the rows not drawn yet, in ``O(n)``. Rows of weight 0 are never drawn
    (the caller makes sure at least ``count`` weights are positive).
    """
    u = rng.random(len(weights))
    with np.errstate(divide="ignore"):
        keys = np.where(weights > 0, np.log(u) / np.where(weights > 0, weights, 1.0), -np.inf)
    top = np.argpartition(-keys, count - 1)[:count] if count < len(keys) else np.arange(len(keys))
    return top[np.lexsort((top, -keys[top]))].astype(np.int64)


def random_selection(
    vectors: np.ndarray,
    k: int,
    *,
    quality: np.ndarray | None = None,
    seed: int = 0,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> Selection:
    """``k`` rows at random without replacement: uniformly, or proportionally to ``quality``.

    With ``quality``, rows are drawn one at a time with probability proportional to their
    weight among the rows not drawn yet (rows of quality 0 are never drawn). The order of
    :attr:`Selection.indices` is the order of the draws.

    There is no objective to optimise: ``objective_name`` is ``"count"``, the trace is the
    prefix size ``1, 2, ..., k`` and every gain is 1 (each pick adds one row). Diversity
    curves of the random subset are computed by the caller, like those of every selector.
    ``vectors`` is only checked (shape, finite values); its content does not matter.
    """
    progress, cancel = job(progress, cancel)
    matrix, _ = check_vectors(vectors, nonzero=False)
    n = matrix.shape[0]
    k = check_budget(k, n)
    weights = check_quality(quality, n, k)
    rng = np.random.default_rng(check_seed(seed))
    progress.start("random selection", total=k, unit="rows")
    cancel.raise_if_cancelled()
    if weights is None:
        picked = rng.choice(n, size=k, replace=False).astype(np.int64)
    else:
        picked = weighted_order(weights, rng, k)
    progress.update(k)
    progress.finish()
    return selection(
        picked,
        np.ones(k),
        np.arange(1, k + 1, dtype=np.float64),
        objective_name="count",
        method="random",
        weighted=weights is not None,
        seed=int(seed),
    )
