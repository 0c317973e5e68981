"""Sets of different sizes compared at one size: each scored at the smallest set's ``n``.

A Vendi score grows with the number of rows, so the dataset and its subsets
(``vendiscope score --subset A --subset B``) are compared at the smallest set's size ``m``
(:mod:`.equal_n`): a larger set by the mean of random ``m``-row draws, with their spread;
the set of ``m`` rows by its own score. The vector set is read once; one larger than the
memory budget is read draw by draw instead (:func:`.streaming.stored_score`, which the streamed
per-source scores use too).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from vendiscope.core.base.jobs import CancelToken
from vendiscope.core.metrics import streaming, subset_scoring
from vendiscope.core.metrics.algorithms import equal_n, vendi
from vendiscope.core.metrics.quality import quality_weights
from vendiscope.core.store import vectors

if TYPE_CHECKING:
    from vendiscope.core.store.project import Project


def scores_at_common_size(
    project: Project,
    dataset: str,
    subsets: Sequence[str | None],
    *,
    vector_set: str,
    q: float | str = 1.0,
    normalize: bool = True,
    quality: str | None = None,
    draws: int = equal_n.DEFAULT_DRAWS,
    seed: int = 0,
    memory_budget: int | None = None,
    cancel: CancelToken | None = None,
) -> list[dict[str, Any]]:
    """Each set's Vendi score (order ``q``) at the smallest set's size, in ``subsets``' order.

    ``subsets`` names subsets of ``dataset``; ``None`` is the whole dataset. Each answer is an
    :func:`.equal_n.summary` (``n`` the common size, ``of`` the set's size): the mean of
    ``draws`` seeded random draws for a larger set, the set's own score for one of ``n`` rows.
    ``quality`` (a record field or score set, as in scoring) weights each draw by the mean
    weight of its rows; ``normalize`` as the Vendi metric's parameter.
    """
    cancel = cancel or CancelToken()
    info = vectors.complete_set(project, dataset, vector_set)
    every = range(info.n_rows)
    sets = [
        every if name is None else subset_scoring.subset_positions(project, dataset, name)
        for name in subsets
    ]
    m = equal_n.common_size([len(positions) for positions in sets])
    weights = quality_weights(project, dataset, quality) if quality is not None else None
    order = vendi.check_order(q)
    budget = streaming.memory_budget() if memory_budget is None else memory_budget
    if streaming.needs_streaming(info, budget):
        score = streaming.stored_score(project, info, q=order, normalize=normalize, budget=budget)
    else:
        matrix = vectors.load(project, dataset, info.name)
        score = equal_n.matrix_score(matrix, q=order, normalize=normalize)
    found = []
    for positions in sets:
        found.append(equal_n.at_size_with(
            score, positions, m, draws=draws, seed=seed, quality=weights,
            check_cancel=cancel.raise_if_cancelled,
        ))  # fmt: skip
    return found
