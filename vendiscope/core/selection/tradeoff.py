"""Quality against diversity: what weighting a selection by quality costs in diversity.

For a budget ``k`` and a quality column (a number column of a signal, a score set or a
numeric field; :mod:`vendiscope.core.metrics.quality`), :func:`quality_tradeoff` runs the
quality-weighted greedy Vendi selection at a few **strengths** ``s``. Each candidate's
quality is divided by the largest candidate's, so it lies in (0, 1] (a record of quality 0
stays 0 and, as in any quality-weighted selection, is never chosen), and raised to the power
``s``:

- strength 0 weighs every record the same: the plain greedy Vendi selection;
- strength 1 is exactly ``select --quality COLUMN`` (the weighted objective
  ``mean(w) * VS`` chooses the same records whatever the scale of ``w``);
- larger strengths favour quality more, smaller ones diversity.

Each point reports the subset's mean quality (in the column's own units) and its unweighted
Vendi score of order 1 at n = k, computed as ``vendiscope score --subset`` computes it
(:func:`vendiscope.core.metrics.algorithms.vendi.vendi_score` on the subset's rows). A few
seeded random subsets of the same candidates give the reference point. Nothing is written to
the project: keep a point's records with ``Project.save_subset(dataset, name,
point.positions)``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from vendiscope.core.base.errors import ProjectError
from vendiscope.core.base.jobs import CancelToken, NullProgress, PartProgress, Progress
from vendiscope.core.plugin_host.registry import PluginRegistry, default_registry

if TYPE_CHECKING:
    import numpy as np

    from vendiscope.core.store.project import Project

METHOD = "greedy-vendi"
"""The selector every point runs (the quality-weighted greedy Vendi selection)."""
DEFAULT_STRENGTHS = (0.0, 0.5, 1.0, 2.0, 4.0)
"""Strengths tried unless others are given: diversity only, then ever more quality."""
RANDOM_DRAWS = 5
"""Random subsets of ``k`` candidates averaged into the reference point."""
RANDOM_SEED = 0
VENDI_ORDER = 1.0
"""The points' Vendi score: order 1, the score ``vendiscope score`` reports by default."""


@dataclass(frozen=True)
class TradeoffPoint:
    """One selection of the trade-off: its strength, records, mean quality and diversity."""

    strength: float
    positions: tuple[int, ...]
    """The chosen records' dataset positions, in the order they were picked."""
    mean_quality: float
    """The mean of the quality column over the chosen records (the column's own units)."""
    vendi: float
    """The unweighted Vendi score of the chosen records (order 1, n = k)."""


@dataclass(frozen=True)
class RandomReference:
    """What choosing ``k`` of the same candidates at random gives: the mean of a few draws."""

    draws: int
    seed: int
    mean_quality: float
    vendi: float
    quality_sd: float
    vendi_sd: float


@dataclass(frozen=True)
class TradeoffResult:
    """The quality/diversity trade-off of one budget, quality column and vector set."""

    dataset: str
    quality: str
    k: int
    vector_set: str
    vector_kind: str
    n_candidates: int
    excluded: int
    points: tuple[TradeoffPoint, ...]
    """One per strength, weakest first."""
    random: RandomReference
    exclude: tuple[str, ...] = ()
    drop: tuple[str, ...] = ()
    seed: int | None = None
    seconds: float = 0.0

    @property
    def strengths(self) -> tuple[float, ...]:
        return tuple(p.strength for p in self.points)

    def point(self, strength: float) -> TradeoffPoint:
        """The point of ``strength`` (a ``KeyError`` naming the strengths there are)."""
        for found in self.points:
            if math.isclose(found.strength, float(strength)):
                return found
        raise KeyError(f"no point of strength {strength:g} (strengths: {_listed(self.strengths)})")


def check_strengths(strengths: Sequence[float]) -> tuple[float, ...]:
    """The strengths as sorted distinct floats, each finite and >= 0 (else a ProjectError)."""
    if isinstance(strengths, str | bytes) or not isinstance(strengths, Sequence):
        raise ProjectError(
            f"strengths must be a list of numbers such as (0, 1, 2); got {strengths!r}"
        )
    found: list[float] = []
    for value in strengths:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ProjectError(f"strengths: {value!r} is not a number")
        if not math.isfinite(value) or value < 0:
            raise ProjectError(f"strengths: {value!r} must be a finite number >= 0")
        found.append(float(value))
    if not found:
        raise ProjectError("strengths: give at least one, e.g. (0, 1, 2)")
    return tuple(sorted(set(found)))


def scaled_weights(quality: np.ndarray, strength: float) -> np.ndarray | None:
    """Per-candidate weights at ``strength``: quality over its largest value, to the power
    ``strength``; None (every record alike) at strength 0."""
    import numpy as np

    if strength == 0:
        return None
    top = float(np.max(quality))
    return np.power(quality / top, strength)


def quality_tradeoff(
    project: Project,
    dataset: str,
    *,
    k: int,
    quality: str,
    vector_set: str | None = None,
    strengths: Sequence[float] = DEFAULT_STRENGTHS,
    exclude: Sequence[str] = (),
    drop: Sequence[str] = (),
    seed: int | None = None,
    random_draws: int = RANDOM_DRAWS,
    registry: PluginRegistry | None = None,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> TradeoffResult:
    """The mean quality and Vendi score of a quality-weighted greedy Vendi selection of ``k``
    records at each of ``strengths``, and of random subsets of the same candidates.

    Parameters
    ----------
    k
        The budget, checked against the candidates as a selection checks it.
    quality
        The quality column (required): a signal's number column (``language-confidence``),
        a one-column score set or a numeric record field; a column with a missing (NaN) or
        negative value is refused by name, as ``select --quality`` refuses it.
    vector_set
        The features to select on and to score; default as ``select`` (gradients first).
    strengths
        Exponents of the scaled quality (see the module's doc); sorted, duplicates dropped.
    exclude, drop
        Subsets, and signal flags or filters, whose records are not candidates (as
        ``select``'s).
    seed
        The selector's seed (its default when None), as ``select --seed``.
    random_draws
        Random subsets averaged into the reference point (seeded by ``RANDOM_SEED``).

    Nothing is written to the project. Progress counts picks over every strength; a cancel
    stops at the next pick (:class:`~vendiscope.core.base.jobs.Cancelled`).
    """
    import numpy as np

    from vendiscope.core.metrics.streaming import needs_streaming
    from vendiscope.core.metrics.subset_scoring import check_draws
    from vendiscope.core.selection.job import resolve_selection_set
    from vendiscope.core.selection.job_checks import load_checked, plan_selection
    from vendiscope.core.selection.options import selector_params

    started = time.perf_counter()
    progress = progress or NullProgress()
    cancel = cancel or CancelToken()
    registry = registry or default_registry()
    chosen_strengths = check_strengths(strengths)
    draws = check_draws(random_draws)
    params = selector_params(None, seed)
    selector = registry.create("selector", METHOD, **params)
    target = resolve_selection_set(project, dataset, vector_set)
    if needs_streaming(target):
        raise ProjectError(
            f"vector set '{target.name}' is larger than the memory budget; the quality/diversity "
            "trade-off needs it in memory"
        )
    # The selection's own checks: candidates, budget, quality weights (NaN refused by name).
    # Nothing is saved, so the subset name it settles is not used (overwrite: no refusal).
    plan = plan_selection(
        project, dataset, METHOD, k, target, quality, exclude, None, None, True, drop
    )
    assert plan.quality is not None
    budget = plan.k
    values = plan.quality[plan.candidates]
    positive = int(np.count_nonzero(values > 0))
    if positive < budget and any(s > 0 for s in chosen_strengths):
        raise ProjectError(
            f"quality '{quality}': {positive:,} of the {len(values):,} candidates have a quality "
            f"above 0, fewer than k = {budget:,} (a record of quality 0 is never chosen when "
            "quality weighs)"
        )
    matrix = load_checked(project, dataset, target)
    rows = matrix if len(plan.candidates) == len(matrix) else matrix[plan.candidates]
    del matrix

    total = budget * len(chosen_strengths) + draws
    progress.start(
        f"Quality vs diversity: {len(chosen_strengths)} selections of {budget:,} records",
        total=total,
        unit="picks",
    )
    points = []
    for number, strength in enumerate(chosen_strengths):
        cancel.raise_if_cancelled()
        picked = _select(
            registry, selector, rows, budget, scaled_weights(values, strength),
            PartProgress(progress, number * budget), cancel,
        )  # fmt: skip
        points.append(
            TradeoffPoint(
                strength,
                tuple(int(p) for p in plan.candidates[picked]),
                float(values[picked].mean()),
                subset_vendi(rows, picked),
            )
        )
    reference = _random_reference(rows, values, budget, draws, progress, total - draws, cancel)
    progress.update(total)
    progress.finish()
    return TradeoffResult(
        dataset=dataset,
        quality=quality,
        k=budget,
        vector_set=target.name,
        vector_kind=target.kind,
        n_candidates=len(plan.candidates),
        excluded=plan.excluded,
        points=tuple(points),
        random=reference,
        exclude=tuple(exclude),
        drop=tuple(drop),
        seed=seed,
        seconds=round(time.perf_counter() - started, 3),
    )


def subset_vendi(rows: np.ndarray, picked: np.ndarray) -> float:
    """The unweighted Vendi score (order 1) of ``rows[picked]``, taken in dataset order as
    ``vendiscope score --subset`` reads them."""
    import numpy as np

    from vendiscope.core.metrics.algorithms import vendi

    return float(vendi.vendi_score(rows[np.sort(picked)], q=VENDI_ORDER))


def _select(
    registry: PluginRegistry,
    selector: Any,
    rows: np.ndarray,
    k: int,
    weights: np.ndarray | None,
    progress: Progress,
    cancel: CancelToken,
) -> np.ndarray:
    from vendiscope.core.selection.runner import run_selector

    chosen = run_selector(
        registry, METHOD, selector, rows, k, quality=weights, progress=progress, cancel=cancel
    )
    return chosen.indices


def _random_reference(
    rows: np.ndarray,
    values: np.ndarray,
    k: int,
    draws: int,
    progress: Progress,
    done: int,
    cancel: CancelToken,
) -> RandomReference:
    import numpy as np

    rng = np.random.default_rng(RANDOM_SEED)
    qualities, scores = [], []
    for number in range(draws):
        cancel.raise_if_cancelled()
        drawn = rng.choice(len(rows), size=k, replace=False)
        qualities.append(float(values[drawn].mean()))
        scores.append(subset_vendi(rows, drawn))
        progress.update(done + number + 1)
    spread = 1 if draws > 1 else 0
    return RandomReference(
        draws=draws,
        seed=RANDOM_SEED,
        mean_quality=float(np.mean(qualities)),
        vendi=float(np.mean(scores)),
        quality_sd=float(np.std(qualities, ddof=spread)),
        vendi_sd=float(np.std(scores, ddof=spread)),
    )


def _listed(strengths: Sequence[float]) -> str:
    return ", ".join(f"{s:g}" for s in strengths)
