"""Which diversity score of a subset predicts how a model trained on it does, and can we tell?

Pure statistics over arrays: ``outcomes`` is (n_subsets, n_seeds) with NaN for runs not
done, and each metric gives one value per subset. Bootstraps resample subsets with
replacement from a seeded numpy Generator; the rank statistics live in :mod:`.ranks`.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from itertools import combinations
from typing import Any

import numpy as np

from vendiscope.core.studies.algorithms.ranks import detection_power as _detection_power
from vendiscope.core.studies.algorithms.ranks import (
    finite_pairs,
    kendall,
    kendall_p,
    minimum_detectable,
    resampled_kendall,
    resampled_spearman,
    spearman,
    spearman_p,
    subsets_needed,
)

SEPARABLE_RELIABILITY = 0.5
"""Subsets can be ranked when the reliability of their mean outcome reaches this: at least
half of the spread between subset means is real rather than seed noise."""
TARGET_POWER = 0.8
"""The conventional chance of finding a true effect that a study should reach."""


def _clean(value: Any) -> Any:
    """``value`` with tuples as lists, numpy scalars as Python ones and NaN/inf as None."""
    if isinstance(value, dict):
        return {key: _clean(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(item) for item in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


class _Json:
    def to_json(self) -> dict[str, Any]:
        """The fields as plain JSON values (NaN becomes ``None``)."""
        return _clean(asdict(self))  # type: ignore[call-overload]  # asdict() of a dataclass mixin


@dataclass(frozen=True)
class SeedNoise(_Json):
    """How much retraining with another seed moves a subset's outcome, against its spread."""

    n_subsets: int
    n_seeds: int
    within_sd: float
    between_sd: float
    reliability: float
    separable: bool
    detail: str


@dataclass(frozen=True)
class Power(_Json):
    """The chance a Spearman test over ``n_subsets`` finds a true correlation ``rho``."""

    n_subsets: int
    rho: float
    alpha: float
    reliability: float
    power: float
    minimum_detectable: float
    detail: str


@dataclass(frozen=True)
class MetricEvidence(_Json):
    """How one metric's values rank with the outcome, with bootstrap intervals at ``level``."""

    metric: str
    n: int
    spearman: float
    spearman_p: float
    spearman_ci: tuple[float, float]
    kendall: float
    kendall_p: float
    kendall_ci: tuple[float, float]
    level: float


@dataclass(frozen=True)
class MetricComparison(_Json):
    """Whether metric ``a`` predicts the outcome more strongly than ``b`` (paired bootstrap)."""

    a: str
    b: str
    spearman_a: float
    spearman_b: float
    difference: float
    ci: tuple[float, float]
    p: float
    better: str | None
    level: float
    detail: str


@dataclass(frozen=True)
class StudyAnalysis(_Json):
    """The whole reading of a study: evidence per metric (strongest first) and its limits."""

    n_subsets: int
    outcome: tuple[float, ...]
    evidence: tuple[MetricEvidence, ...]
    noise: SeedNoise
    power: Power
    comparisons: tuple[MetricComparison, ...]
    best: str | None
    verdict: str


def seed_noise(outcomes: np.ndarray) -> SeedNoise:
    """Pooled within-subset (seed) SD, SD of subset means, and the reliability of a mean.

    Reliability is the one-way random-effects ICC of a subset mean:
    ``true / (true + within_var / k)`` with ``true = max(0, var(means) - within_var / k)``
    and ``k`` the harmonic mean of seeds per subset (the plain mean when balanced).
    """
    y = _outcomes(outcomes)
    runs = np.isfinite(y).sum(axis=1)
    done = runs > 0
    means = _row_means(y)[done]
    k_runs = runs[done]
    repeat = (k_runs - 1).sum()
    dev = np.where(np.isfinite(y[done]), y[done] - means[:, None], 0.0)
    within_var = float((dev**2).sum() / repeat) if repeat > 0 else math.nan
    between_var = float(means.var(ddof=1)) if means.size > 1 else math.nan
    k = k_runs.size / float((1.0 / k_runs).sum()) if k_runs.size else math.nan
    true, noise = max(0.0, between_var - within_var / k), within_var / k
    defined = math.isfinite(between_var + within_var) and true + noise > 0
    reliability = true / (true + noise) if defined else math.nan
    separable = bool(reliability >= SEPARABLE_RELIABILITY)
    within_sd, between_sd = math.sqrt(within_var), math.sqrt(between_var)
    if math.isnan(within_sd):
        detail = (
            "each subset was trained with one seed, so seed noise is unknown: "
            "train some subsets with 2 or more seeds to measure it"
        )
    else:
        reading = "subsets can be ranked" if separable else "subsets cannot be told apart"
        detail = (
            f"reruns with another seed move an outcome by {within_sd:.3g} on average while "
            f"subsets spread by {between_sd:.3g}: reliability {reliability:.2f}, {reading}"
        )
    n_seeds = int(runs.max()) if runs.size else 0
    return SeedNoise(
        int(done.sum()), n_seeds, within_sd, between_sd, reliability, separable, detail
    )


def power(
    n_subsets: int, *, rho: float = 0.5, alpha: float = 0.05, reliability: float = 1.0
) -> Power:
    """The chance a two-sided Spearman test at ``alpha`` finds a true ``rho`` (see .ranks)."""
    found = _detection_power(n_subsets, rho, alpha=alpha, reliability=reliability)
    smallest = minimum_detectable(
        n_subsets, alpha=alpha, power=TARGET_POWER, reliability=reliability
    )
    seen = f" (seen as {abs(rho) * math.sqrt(reliability):.2f} through seed noise)"
    head = f"with {n_subsets} subsets a true Spearman {rho:.2g}{seen if reliability < 1 else ''}"
    if math.isnan(found):
        detail = f"{head} cannot be tested: at least 4 subsets are needed"
    else:
        tail = (
            f"the smallest true rho found {TARGET_POWER:.0%} of the time is {smallest:.2f}"
            if math.isfinite(smallest)
            else f"no correlation is found {TARGET_POWER:.0%} of the time"
        )
        detail = f"{head} is found {found:.0%} of the time at alpha {alpha:g}; {tail}"
    return Power(n_subsets, rho, alpha, reliability, found, smallest, detail)


def _p(p: float) -> str:
    return "p < 0.001" if p < 0.001 else f"p = {p:.2g}"


def _outcomes(outcomes: np.ndarray) -> np.ndarray:
    y = np.asarray(outcomes, dtype=float)
    if y.ndim != 2:
        raise ValueError(f"outcomes must be 2-D (n_subsets, n_seeds), got shape {y.shape}")
    return y


def _row_means(y: np.ndarray) -> np.ndarray:
    """Mean of each row over its finite values, NaN for a row without any."""
    runs = np.isfinite(y).sum(axis=1)
    total = np.where(np.isfinite(y), y, 0.0).sum(axis=1)
    return np.where(runs > 0, total / np.maximum(runs, 1), np.nan)


def _one_per_subset(name: str, values: np.ndarray, n: int) -> np.ndarray:
    v = np.asarray(values, dtype=float)
    if v.ndim != 1 or v.size != n:
        raise ValueError(f"metric '{name}' has {v.size} values for {n} subsets")
    return v


def _counts(n: int, n_boot: int, seed: int) -> np.ndarray:
    """(n_boot, n): how often each subset is drawn in each resample with replacement."""
    if n_boot < 1:
        raise ValueError(f"n_boot must be at least 1, got {n_boot}")
    draws = np.random.default_rng(seed).integers(0, n, size=(n_boot, n))
    flat = (draws + n * np.arange(n_boot)[:, None]).ravel()
    return np.bincount(flat, minlength=n_boot * n).reshape(n_boot, n).astype(float)


def _interval(stats: np.ndarray, level: float) -> tuple[float, float]:
    """Percentile interval of the defined (finite) resampled statistics."""
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level}")
    stats = stats[np.isfinite(stats)]
    if stats.size == 0:
        return (math.nan, math.nan)
    low, high = np.quantile(stats, [(1 - level) / 2, (1 + level) / 2])
    return (float(low), float(high))


def metric_evidence(
    metric_name: str,
    values: np.ndarray,
    outcome: np.ndarray,
    *,
    n_boot: int = 2000,
    seed: int = 0,
    level: float = 0.95,
) -> MetricEvidence:
    """Spearman and Kendall of ``values`` with ``outcome``, p-values and bootstrap CIs."""
    y = np.asarray(outcome, dtype=float).ravel()
    x, y = finite_pairs(_one_per_subset(metric_name, values, y.size), y)
    counts = _counts(x.size, n_boot, seed) if x.size else np.zeros((1, 0))
    rho, tau = spearman(x, y), kendall(x, y)
    return MetricEvidence(
        metric_name,
        int(x.size),
        rho,
        spearman_p(rho, x.size),
        _interval(resampled_spearman(x, y, counts), level),
        tau,
        kendall_p(x, y),
        _interval(resampled_kendall(x, y, counts), level),
        level,
    )


def compare_metrics(
    a_name: str,
    a_values: np.ndarray,
    b_name: str,
    b_values: np.ndarray,
    outcome: np.ndarray,
    *,
    n_boot: int = 2000,
    seed: int = 0,
    level: float = 0.95,
) -> MetricComparison:
    """``spearman(a) - spearman(b)`` with a paired bootstrap CI and p-value.

    The outcome is an improvement (higher is better), so correlations are compared signed: a
    metric that falls as the outcome rises predicts the opposite of what a diversity score
    claims, and is not counted as strong. The p-value doubles the share of resampled
    differences across 0, floored at 1/resamples.
    """
    y = np.asarray(outcome, dtype=float).ravel()
    a, b = _one_per_subset(a_name, a_values, y.size), _one_per_subset(b_name, b_values, y.size)
    keep = np.isfinite(a) & np.isfinite(b) & np.isfinite(y)
    a, b, y = a[keep], b[keep], y[keep]
    counts = _counts(a.size, n_boot, seed) if a.size else np.zeros((1, 0))
    rho_a, rho_b = spearman(a, y), spearman(b, y)
    diffs = resampled_spearman(a, y, counts) - resampled_spearman(b, y, counts)
    diffs = diffs[np.isfinite(diffs)]
    difference = rho_a - rho_b
    ci = _interval(diffs, level)
    p = math.nan
    if diffs.size and math.isfinite(difference):
        across = np.mean(diffs <= 0) if difference > 0 else np.mean(diffs >= 0)
        p = 1.0 if difference == 0 else float(min(1.0, max(2 * across, 1 / diffs.size)))
    better = a_name if ci[0] > 0 else b_name if ci[1] < 0 else None
    span = f"{level:.0%} CI {ci[0]:.2f} to {ci[1]:.2f}"
    if better is None:
        gap = f"rho differs by {difference:.2f}"
        detail = f"{a_name} and {b_name} cannot be told apart ({gap}, {span})"
    else:
        worse = b_name if better == a_name else a_name
        detail = f"{better} predicts the outcome more strongly than {worse} ({span}, {_p(p)})"
    return MetricComparison(a_name, b_name, rho_a, rho_b, difference, ci, p, better, level, detail)


def analyse(
    metrics: dict[str, np.ndarray],
    outcomes: np.ndarray,
    *,
    n_boot: int = 2000,
    seed: int = 0,
    level: float = 0.95,
    rho: float = 0.5,
    alpha: float = 0.05,
) -> StudyAnalysis:
    """Read a study: evidence per metric, seed noise, power, and pairwise comparisons.

    A subset's outcome is the mean over its seeds. ``best`` is the strongest metric only when
    its own correlation is significant at ``alpha`` and it beats every other metric.
    """
    y = _outcomes(outcomes)
    if not metrics:
        raise ValueError("metrics is empty: give at least one metric")
    n_subsets = y.shape[0]
    values = {name: _one_per_subset(name, v, n_subsets) for name, v in metrics.items()}
    outcome = _row_means(y)
    measured = int(np.isfinite(outcome).sum())
    if measured < 3:
        raise ValueError(f"outcomes: {measured} subsets have an outcome, at least 3 are needed")
    options = {"n_boot": n_boot, "seed": seed, "level": level}
    found = [metric_evidence(name, v, outcome, **options) for name, v in values.items()]
    evidence = sorted(found, key=lambda e: -e.spearman if math.isfinite(e.spearman) else 2)
    noise = seed_noise(y)
    reliability = noise.reliability if math.isfinite(noise.reliability) else 1.0
    study_power = power(measured, rho=rho, alpha=alpha, reliability=reliability)
    comparisons = tuple(
        compare_metrics(a.metric, values[a.metric], b.metric, values[b.metric], outcome, **options)
        for a, b in combinations(evidence, 2)
    )
    top = evidence[0]
    wins = all(c.better == top.metric for c in comparisons if top.metric in (c.a, c.b))
    best = top.metric if wins and top.spearman > 0 and top.spearman_p < alpha else None
    verdict = _verdict(evidence, comparisons, best, noise, study_power, alpha)
    return StudyAnalysis(
        measured,
        tuple(float(v) for v in outcome),
        tuple(evidence),
        noise,
        study_power,
        comparisons,
        best,
        verdict,
    )


def _verdict(
    evidence: list[MetricEvidence],
    comparisons: tuple[MetricComparison, ...],
    best: str | None,
    noise: SeedNoise,
    study_power: Power,
    alpha: float,
) -> str:
    """Two or three plain sentences: what predicts, whether seeds blur it, whether n suffices."""
    top, n = evidence[0], study_power.n_subsets
    reading = f"Spearman {top.spearman:.2f}, {_p(top.spearman_p)}, over {n} subsets"
    if math.isnan(top.spearman):
        said = "No metric could be ranked against the outcome (constant or too few values)."
    elif top.spearman <= 0 and top.spearman_p < alpha:
        said = (
            "Every metric falls as the outcome improves: the most diverse subsets did worse "
            f"(the best, {top.metric}, has {reading})."
        )
    elif not top.spearman_p < alpha:
        said = (
            "No metric predicts the outcome significantly "
            f"(the strongest, {top.metric}, has {reading})."
        )
    elif best is not None or len(evidence) == 1:
        others = " and beats every other metric" if len(evidence) > 1 else ""
        said = f"{top.metric} predicts the outcome ({reading}){others}."
    else:
        rival = next(c for c in comparisons if c.better != top.metric and top.metric in (c.a, c.b))
        second = rival.b if rival.a == top.metric else rival.a
        said = (
            f"{top.metric} predicts the outcome most strongly ({reading}), "
            f"but not significantly more than {second}."
        )
    sentences = [said]
    if math.isnan(noise.reliability):
        sentences.append(
            "Seed noise is unknown because no subset was trained with more than one seed, "
            "so the power estimate assumes noiseless outcomes."
        )
    elif not noise.separable:
        sentences.append(
            f"Subsets cannot be separated from seed noise (reliability {noise.reliability:.2f}): "
            "train more seeds per subset before trusting any ranking."
        )
    p = study_power
    if math.isnan(p.power):
        sentences.append(
            f"With {n} subsets the study is too small to test a correlation: at least 4 are needed."
        )
    elif not p.power >= TARGET_POWER:
        if math.isfinite(p.minimum_detectable):
            limit = f"minimum detectable rho {p.minimum_detectable:.2f} with {n} subsets"
        else:
            limit = f"no correlation is detectable with {n} subsets at this noise"
        need = ""
        if p.reliability > 0:
            count = subsets_needed(
                p.rho, alpha=alpha, power=TARGET_POWER, reliability=p.reliability
            )
            need = f"; about {count} subsets are needed to find a true {p.rho:.2g}"
        sentences.append(
            f"The study is underpowered ({limit}, a true {p.rho:.2g} is found "
            f"{p.power:.0%} of the time{need})."
        )
    else:
        sentences.append(
            f"With {n} subsets a true correlation of {p.minimum_detectable:.2f} or more is found "
            f"{TARGET_POWER:.0%} of the time."
        )
    return " ".join(sentences)
