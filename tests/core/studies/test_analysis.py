"""The statistics of a study: checked against scipy and against simulations."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import stdtr

from vendiscope.core.studies.algorithms.analysis import (
    SEPARABLE_RELIABILITY,
    analyse,
    compare_metrics,
    kendall,
    kendall_p,
    metric_evidence,
    minimum_detectable,
    power,
    seed_noise,
    spearman,
    spearman_p,
    subsets_needed,
)
from vendiscope.core.studies.algorithms.ranks import resampled_kendall, resampled_spearman

TOL = 1e-9


def _tied_pair(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Correlated integer data with many ties, and a few NaN."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 60))
    x = rng.integers(0, 6, n).astype(float)
    y = x + rng.integers(-3, 4, n)
    x[rng.random(n) < 0.1] = np.nan
    y[rng.random(n) < 0.1] = np.nan
    return x, y


def _scipy(x: np.ndarray, y: np.ndarray) -> tuple[float, float, float, float]:
    keep = np.isfinite(x) & np.isfinite(y)
    s = scipy.stats.spearmanr(x[keep], y[keep])
    k = scipy.stats.kendalltau(x[keep], y[keep], method="asymptotic")
    return s.statistic, s.pvalue, k.statistic, k.pvalue


@pytest.mark.parametrize("seed", range(25))
def test_rank_correlations_match_scipy_with_ties_and_nan(seed: int) -> None:
    x, y = _tied_pair(seed)
    rho, rho_p, tau, tau_p = _scipy(x, y)
    n = int((np.isfinite(x) & np.isfinite(y)).sum())
    assert spearman(x, y) == pytest.approx(rho, abs=TOL)
    assert spearman_p(spearman(x, y), n) == pytest.approx(rho_p, abs=TOL)
    assert kendall(x, y) == pytest.approx(tau, abs=TOL)
    assert kendall_p(x, y) == pytest.approx(tau_p, abs=TOL)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.integers(-3, 3), st.integers(-3, 3)), min_size=4, max_size=30).filter(
        lambda pairs: len({a for a, _ in pairs}) > 1 and len({b for _, b in pairs}) > 1
    )
)
def test_rank_correlations_match_scipy_on_small_integer_samples(
    pairs: list[tuple[int, int]],
) -> None:
    x, y = np.array(pairs, dtype=float).T
    rho, rho_p, tau, tau_p = _scipy(x, y)
    assert spearman(x, y) == pytest.approx(rho, abs=TOL)
    assert spearman_p(spearman(x, y), x.size) == pytest.approx(rho_p, abs=TOL)
    assert kendall(x, y) == pytest.approx(tau, abs=TOL)
    assert kendall_p(x, y) == pytest.approx(tau_p, abs=TOL)


@pytest.mark.parametrize(
    ("x", "y"),
    [
        ([1.0, 2.0], [2.0, 1.0]),  # two pairs
        ([1.0, np.nan, 3.0, 4.0], [1.0, 2.0, np.inf, 4.0]),  # two finite pairs left
        ([2.0, 2.0, 2.0, 2.0], [1.0, 2.0, 3.0, 4.0]),  # constant x
        ([1.0, 2.0, 3.0, 4.0], [5.0, 5.0, 5.0, np.nan]),  # constant y once NaN is dropped
    ],
)
def test_rank_correlations_are_nan_when_undefined(x: list[float], y: list[float]) -> None:
    x_, y_ = np.array(x), np.array(y)
    assert math.isnan(spearman(x_, y_))
    assert math.isnan(kendall(x_, y_))
    assert math.isnan(kendall_p(x_, y_))
    assert math.isnan(spearman_p(spearman(x_, y_), 4))


def test_resampled_statistics_equal_the_statistic_of_the_repeated_sample() -> None:
    rng = np.random.default_rng(3)
    x, y = rng.integers(0, 5, 25).astype(float), rng.integers(0, 4, 25).astype(float)
    counts = np.stack([np.bincount(rng.integers(0, 25, 25), minlength=25) for _ in range(40)])
    rhos, taus = resampled_spearman(x, y, counts), resampled_kendall(x, y, counts)
    for c, rho, tau in zip(counts, rhos, taus, strict=True):
        expect_rho = spearman(np.repeat(x, c), np.repeat(y, c))
        expect_tau = kendall(np.repeat(x, c), np.repeat(y, c))
        assert rho == pytest.approx(expect_rho, abs=TOL, nan_ok=True)
        assert tau == pytest.approx(expect_tau, abs=TOL, nan_ok=True)
    flat = np.zeros((1, 25))
    flat[0, 4] = 25  # one subset drawn every time: undefined
    assert np.isnan(resampled_spearman(x, y, flat)).all()
    assert np.isnan(resampled_kendall(x, y, flat)).all()


def _linked(n: int, seed: int, noise: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    return x, x + noise * rng.normal(size=n)


def test_bootstrap_interval_holds_the_estimate_narrows_and_repeats() -> None:
    small = metric_evidence("m", *_linked(20, 0), n_boot=1000, seed=1)
    large = metric_evidence("m", *_linked(200, 0), n_boot=1000, seed=1)
    for e in (small, large):
        assert e.spearman_ci[0] <= e.spearman <= e.spearman_ci[1]
        assert e.kendall_ci[0] <= e.kendall <= e.kendall_ci[1]
    width = [e.spearman_ci[1] - e.spearman_ci[0] for e in (small, large)]
    assert width[1] < 0.6 * width[0]  # sqrt(20 / 200) ~ 0.32 in theory
    again = metric_evidence("m", *_linked(20, 0), n_boot=1000, seed=1)
    other = metric_evidence("m", *_linked(20, 0), n_boot=1000, seed=2)
    assert again == small
    assert other.spearman_ci != small.spearman_ci
    assert small.n == 20 and small.spearman_p < 0.05


def test_metric_evidence_drops_nonfinite_pairs() -> None:
    x, y = _linked(30, 4)
    x[[0, 5]] = np.nan
    y[9] = np.inf
    e = metric_evidence("m", x, y, n_boot=200)
    keep = np.isfinite(x) & np.isfinite(y)
    assert e.n == 27
    assert e.spearman == pytest.approx(scipy.stats.spearmanr(x[keep], y[keep])[0], abs=TOL)


def _simulated(subsets: int, seeds: int, between: float, within: float, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    true = rng.normal(scale=between, size=(subsets, 1))
    return true + rng.normal(scale=within, size=(subsets, seeds))


@pytest.mark.parametrize(("between", "within"), [(1.0, 1.5), (1.0, 0.5), (0.3, 1.0)])
def test_seed_noise_recovers_the_reliability_of_a_subset_mean(
    between: float, within: float
) -> None:
    noise = seed_noise(_simulated(400, 3, between, within, seed=7))
    expected = between**2 / (between**2 + within**2 / 3)
    assert noise.reliability == pytest.approx(expected, abs=0.1)
    assert noise.within_sd == pytest.approx(within, rel=0.1)
    assert noise.between_sd == pytest.approx(math.sqrt(between**2 + within**2 / 3), rel=0.1)
    assert noise.separable == (noise.reliability >= SEPARABLE_RELIABILITY)
    assert (noise.n_subsets, noise.n_seeds) == (400, 3)
    assert f"{noise.reliability:.2f}" in noise.detail


def test_seed_noise_with_missing_runs_still_recovers_reliability() -> None:
    y = _simulated(400, 4, 1.0, 1.0, seed=11)
    y[np.random.default_rng(0).random(y.shape) < 0.3] = np.nan
    y[0] = np.nan  # a subset never trained
    noise = seed_noise(y)
    runs = np.isfinite(y).sum(axis=1)
    k = 1 / np.mean(1 / runs[runs > 0])
    assert noise.n_subsets == int((runs > 0).sum()) < 400
    assert noise.reliability == pytest.approx(1 / (1 + 1 / k), abs=0.1)


def test_seed_noise_without_repeats_is_unknown() -> None:
    single = seed_noise(np.arange(10.0)[:, None])
    holes = np.full((10, 3), np.nan)
    holes[np.arange(10), np.arange(10) % 3] = np.arange(10.0)
    for noise in (single, seed_noise(holes)):
        assert math.isnan(noise.within_sd) and math.isnan(noise.reliability)
        assert noise.between_sd == pytest.approx(np.std(np.arange(10.0), ddof=1))
        assert not noise.separable
        assert "one seed" in noise.detail
    assert json.dumps(single.to_json(), allow_nan=False)


def _simulated_power(n: int, rho: float, reliability: float, reps: int, seed: int) -> float:
    """Share of bivariate-normal samples where a two-sided Spearman t-test rejects at 0.05."""
    rng = np.random.default_rng(seed)
    r = 2 * math.sin(math.pi * rho / 6)  # the Pearson r whose Spearman rho is `rho`
    x = rng.standard_normal((reps, n))
    y = r * x + math.sqrt(1 - r * r) * rng.standard_normal((reps, n))
    y += math.sqrt(1 / reliability - 1) * rng.standard_normal((reps, n))
    rx, ry = (np.argsort(np.argsort(a, axis=1), axis=1).astype(float) for a in (x, y))
    rx -= rx.mean(axis=1, keepdims=True)
    ry -= ry.mean(axis=1, keepdims=True)
    rs = (rx * ry).sum(axis=1) / np.sqrt((rx * rx).sum(axis=1) * (ry * ry).sum(axis=1))
    t = rs * np.sqrt((n - 2) / ((1 + rs) * (1 - rs)))
    return float(np.mean(2 * stdtr(n - 2, -np.abs(t)) < 0.05))


@pytest.mark.parametrize(
    ("n", "rho", "reliability"), [(20, 0.5, 1.0), (60, 0.3, 1.0), (60, 0.5, 0.6), (20, 0.0, 1.0)]
)
def test_power_matches_a_simulated_spearman_test(n: int, rho: float, reliability: float) -> None:
    found = power(n, rho=rho, reliability=reliability)
    simulated = _simulated_power(n, rho, reliability, reps=3000, seed=n)
    assert found.power == pytest.approx(simulated, abs=0.05)  # MC standard error <= 0.01
    assert (found.n_subsets, found.rho, found.reliability) == (n, rho, reliability)


def test_minimum_detectable_falls_with_more_subsets_and_rises_with_noise() -> None:
    sizes = [8, 16, 32, 64, 128]
    smallest = [minimum_detectable(n) for n in sizes]
    assert np.all(np.diff(smallest) < 0)
    for n, rho in zip(sizes, smallest, strict=True):
        assert power(n, rho=rho).power == pytest.approx(0.8, abs=1e-6)
    assert minimum_detectable(32, reliability=0.5) > smallest[2]
    assert math.isnan(minimum_detectable(5, reliability=0.3))  # even rho = 1 is not enough


@pytest.mark.parametrize(("rho", "reliability"), [(0.5, 1.0), (0.3, 1.0), (0.5, 0.7)])
def test_subsets_needed_is_the_first_size_with_enough_power(rho: float, reliability: float) -> None:
    n = subsets_needed(rho, reliability=reliability)
    assert power(n, rho=rho, reliability=reliability).power >= 0.8
    assert power(n - 1, rho=rho, reliability=reliability).power < 0.8
    assert minimum_detectable(n, reliability=reliability) <= rho


def test_power_refuses_impossible_settings() -> None:
    with pytest.raises(ValueError, match="rho"):
        subsets_needed(0.0)
    with pytest.raises(ValueError, match="alpha"):
        power(20, alpha=1.5)
    assert math.isnan(power(3).power)


def test_compare_metrics_finds_the_strong_metric_against_noise() -> None:
    rng = np.random.default_rng(5)
    outcome = rng.normal(size=60)
    strong, noise = outcome + 0.3 * rng.normal(size=60), rng.normal(size=60)
    c = compare_metrics("noise", noise, "strong", strong, outcome, n_boot=1000)
    assert c.better == "strong"
    assert c.ci[1] < 0 and c.p < 0.01
    assert c.difference == pytest.approx(
        scipy.stats.spearmanr(noise, outcome)[0] - scipy.stats.spearmanr(strong, outcome)[0],
        abs=TOL,
    )
    assert "strong" in c.detail


def test_compare_metrics_cannot_split_identical_metrics() -> None:
    x, outcome = _linked(60, 2)
    c = compare_metrics("a", x, "b", x.copy(), outcome, n_boot=500)
    assert c.ci[0] <= 0 <= c.ci[1]
    assert c.better is None and c.p == 1.0


def _study(subsets: int, seed: int) -> tuple[dict[str, np.ndarray], np.ndarray]:
    rng = np.random.default_rng(seed)
    true = rng.normal(size=subsets)
    outcomes = true[:, None] + 0.3 * rng.normal(size=(subsets, 3))
    outcomes[0, 1] = np.nan
    metrics = {
        "gvendi": true + 0.2 * rng.normal(size=subsets),
        "lexical": rng.normal(size=subsets),
        "embedding": true + 1.0 * rng.normal(size=subsets),
    }
    return metrics, outcomes


def test_analyse_a_small_study_says_it_is_underpowered() -> None:
    metrics, outcomes = _study(8, seed=1)
    a = analyse(metrics, outcomes, n_boot=500)
    assert "underpowered" in a.verdict
    assert f"{a.power.minimum_detectable:.2f}" in a.verdict
    assert a.power.power < 0.8 and a.n_subsets == 8
    assert a.best is None  # 8 subsets cannot beat every rival
    assert a.outcome[0] == pytest.approx(np.nanmean(outcomes[0]))
    strengths = [e.spearman for e in a.evidence]
    assert strengths == sorted(strengths, reverse=True)
    assert len(a.comparisons) == 3
    assert json.loads(json.dumps(a.to_json(), allow_nan=False))["n_subsets"] == 8


def test_analyse_a_large_study_names_the_best_metric() -> None:
    metrics, outcomes = _study(80, seed=2)
    a = analyse(metrics, outcomes, n_boot=500)
    assert a.best == "gvendi" and a.evidence[0].metric == "gvendi"
    assert a.noise.separable
    assert "underpowered" not in a.verdict and "gvendi" in a.verdict
    assert a.comparisons[0].a == "gvendi"


def test_a_metric_that_falls_as_the_outcome_rises_is_never_the_best() -> None:
    metrics, outcomes = _study(80, seed=2)
    flipped = {"gvendi": -metrics["gvendi"], "lexical": metrics["lexical"]}
    a = analyse(flipped, outcomes, n_boot=500)
    assert a.evidence[-1].metric == "gvendi" and a.evidence[-1].spearman < -0.5
    assert a.best is None
    c = compare_metrics("gvendi", flipped["gvendi"], "lexical", flipped["lexical"],
                        np.nanmean(outcomes, axis=1), n_boot=500)  # fmt: skip
    assert c.better == "lexical" and c.difference < 0
    everything_falls = analyse({"gvendi": -metrics["gvendi"]}, outcomes, n_boot=200)
    assert everything_falls.best is None and "did worse" in everything_falls.verdict


def test_analyse_names_what_is_wrong() -> None:
    metrics, outcomes = _study(16, seed=3)
    with pytest.raises(ValueError, match="metric 'gvendi' has 12 values for 16 subsets"):
        analyse({**metrics, "gvendi": metrics["gvendi"][:12]}, outcomes)
    with pytest.raises(ValueError, match="outcomes must be 2-D"):
        analyse(metrics, outcomes[:, 0])
    few = np.full_like(outcomes, np.nan)
    few[:2] = 1.0
    with pytest.raises(ValueError, match="2 subsets have an outcome"):
        analyse(metrics, few)
    with pytest.raises(ValueError, match="metrics is empty"):
        analyse({}, outcomes)


def test_analyse_says_when_seed_noise_hides_the_subsets() -> None:
    outcomes = _simulated(30, 2, 0.1, 1.0, seed=4)  # true reliability 0.02 / 0.52 ~ 0.04
    metrics = {"gvendi": np.random.default_rng(1).normal(size=30)}
    a = analyse(metrics, outcomes, n_boot=300)
    assert not a.noise.separable and a.noise.reliability < 0.3
    assert "cannot be separated from seed noise" in a.verdict
    assert a.power.reliability == a.noise.reliability
    assert a.power.power < power(30).power  # the noise is priced in


def test_undefined_cases_give_nan_not_numbers() -> None:
    one = seed_noise(np.array([[1.0, 2.0, 3.0]]))
    assert math.isnan(one.reliability) and one.within_sd == pytest.approx(1.0)
    e = metric_evidence("m", np.array([1.0, 2.0, np.nan]), np.array([3.0, 1.0, 2.0]))
    assert e.n == 2 and math.isnan(e.spearman)
    assert all(math.isnan(v) for v in (*e.spearman_ci, *e.kendall_ci))
