"""Can a study tell its subsets apart, and what will it cost? (pure arithmetic)

The pilot trains a few subsets with two seeds each. From it, :func:`read_pilot` separates the
spread of subset means into seed noise and real differences (one-way random effects, as
:func:`~vendiscope.core.studies.algorithms.analysis.seed_noise`), and projects the reliability of a
subset's mean over the planned number of seeds: ``true / (true + within / seeds)``. Below
:data:`~vendiscope.core.studies.algorithms.analysis.SEPARABLE_RELIABILITY` the study would rank seed
noise, and the job refuses it unless forced. :func:`study_cost` turns a trainer's measured
cost of one run into the whole study's, and :func:`cheaper_plan` says what brings a study
longer than :data:`LONGEST_UNCONFIRMED_S` (a day) within one: the app and the CLI start such
a study only when told to.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from vendiscope.core.studies.algorithms.analysis import SEPARABLE_RELIABILITY, _Json, seed_noise
from vendiscope.core.studies.options import DEFAULT_TARGET_ROWS

LONGEST_UNCONFIRMED_S = 86_400.0
"""A study estimated longer than this (a day) starts only once its user confirms it."""


@dataclass(frozen=True)
class PilotReading(_Json):
    """Seed noise measured on the pilot, and the reliability it implies for the whole study."""

    subsets: int
    within_sd: float
    between_sd: float
    true_sd: float
    planned_seeds: int
    reliability: float
    separable: bool
    seeds_needed: int | None
    detail: str


@dataclass(frozen=True)
class StudyCost(_Json):
    """The study's cost on this machine, from the trainer's measurement of one run."""

    runs: int
    seconds_per_run: float
    one_time_seconds: float
    baseline_seconds: float
    total_seconds: float
    measured: str

    @property
    def text(self) -> str:
        """One line: "about 2 h 10 min here: 120 runs of 62 s, plus 4 min once"."""
        return (
            f"about {duration(self.total_seconds)} here: {self.runs} runs of "
            f"{duration(self.seconds_per_run)}, plus {duration(self.one_time_seconds)} once"
        )


def read_pilot(outcomes: np.ndarray, planned_seeds: int) -> PilotReading:
    """What the pilot's ``(subsets, 2)`` outcomes say about a study with ``planned_seeds``."""
    noise = seed_noise(outcomes)
    within = noise.within_sd**2
    means_var = noise.between_sd**2
    pilot_seeds = 2.0
    true = max(0.0, means_var - within / pilot_seeds)
    if not math.isfinite(within + means_var):
        reliability, needed = math.nan, None
    elif true + within == 0:
        reliability, needed = math.nan, None  # every outcome equal: nothing to rank
    else:
        reliability = true / (true + within / planned_seeds)
        needed = (
            max(1, math.ceil(within / true * SEPARABLE_RELIABILITY / (1 - SEPARABLE_RELIABILITY)))
            if true > 0
            else None
        )
    separable = bool(reliability >= SEPARABLE_RELIABILITY)
    per = f"{planned_seeds} seed{'s' if planned_seeds != 1 else ''} per subset"
    seen = (
        f"on {noise.n_subsets} pilot subsets, another seed moved an outcome by "
        f"{noise.within_sd:.3g} while the subsets' real differences were {math.sqrt(true):.3g}"
    )
    if math.isnan(reliability):
        detail = f"{seen}: the pilot outcomes do not vary, so subsets cannot be ranked"
    elif separable:
        detail = (
            f"{seen}: with {per} the reliability of a subset's "
            f"mean is {reliability:.2f} (at least {SEPARABLE_RELIABILITY} is needed)"
        )
    else:
        more = (
            f"about {needed} seeds per subset would reach {SEPARABLE_RELIABILITY}"
            if needed is not None
            else "no number of seeds helps: the pilot subsets did not differ beyond seed noise"
        )
        detail = (
            f"{seen}: with {per} the reliability of a subset's "
            f"mean is only {reliability:.2f}, below {SEPARABLE_RELIABILITY}, so the study "
            f"would rank seed noise; {more}. Larger subsets, more training steps or more "
            "different subsets (sources, duplicates) widen the real differences"
        )
    return PilotReading(
        noise.n_subsets,
        noise.within_sd,
        noise.between_sd,
        math.sqrt(true),
        planned_seeds,
        reliability,
        separable,
        needed,
        detail,
    )


def study_cost(
    runs: int,
    *,
    seconds_per_run: float,
    one_time_seconds: float,
    n_examples: int,
    n_distinct: int,
    n_target: int,
    measured: str,
) -> StudyCost:
    """The whole study: ``runs`` runs, the one-time cost grown from ``n_examples`` to the
    ``n_distinct`` pool rows the plan uses, and the baseline evaluation of the target
    (counted as one more run: an upper bound, as it trains nothing)."""
    scale = (n_distinct + n_target) / max(1, n_examples + n_target)
    once = one_time_seconds * max(1.0, scale)
    total = (runs + 1) * seconds_per_run + once
    return StudyCost(runs, seconds_per_run, once, seconds_per_run, total, measured)


@dataclass(frozen=True)
class CheaperPlan(_Json):
    """What brings a study estimated over a day within one.

    ``runs_in_a_day`` runs of this length fit in a day with the one-time cost (0: not even
    one); ``target_rows``, when not None, is a smaller sample of the target to score on
    (every run scores each target row, so a large target makes every run slow)."""

    total_seconds: float
    runs: int
    runs_in_a_day: int
    target_rows: int | None
    scored_rows: int


def cheaper_plan(cost: StudyCost, scored_rows: int) -> CheaperPlan | None:
    """None when the study fits in a day; else what would make it fit (``scored_rows``: the
    target rows each run scores now)."""
    if not cost.total_seconds > LONGEST_UNCONFIRMED_S:
        return None
    left = LONGEST_UNCONFIRMED_S - cost.one_time_seconds
    per_run = cost.seconds_per_run
    fit = int(left // per_run) - 1 if per_run > 0 and left > 0 else 0  # less the baseline
    fit = max(0, min(fit, cost.runs))
    sample = DEFAULT_TARGET_ROWS if scored_rows > DEFAULT_TARGET_ROWS else None
    return CheaperPlan(cost.total_seconds, cost.runs, fit, sample, scored_rows)


def duration(seconds: float) -> str:
    """``0.4 s``, ``45 s``, ``12 min``, ``3 h 5 min``, ``2.1 days``."""
    if not math.isfinite(seconds):
        return "unknown"
    if seconds < 10:
        return f"{seconds:.1f} s"
    if seconds < 90:
        return f"{seconds:.0f} s"
    minutes = seconds / 60
    if minutes < 90:
        return f"{minutes:.0f} min"
    hours, rest = divmod(round(minutes), 60)
    if hours < 48:
        return f"{hours} h {rest} min" if rest else f"{hours} h"
    return f"{seconds / 86400:.1f} days"
