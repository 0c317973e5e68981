"""The synthesis filter rules on small matrices with known structure (real NumPy and FAISS)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from vendiscope.core.clusters.algorithms.kmeans import Clustering, spherical_kmeans
from vendiscope.core.metrics.algorithms.vendi import vendi_score
from vendiscope.core.synthesis.algorithms.filters import RULES, Decision, PoolState, decide

D = 32
SIZES = (40, 40, 30, 3, 3, 2)
"""Three dense clusters and three sparse ones (median size 16.5)."""


def _near(direction: int, count: int, rng: np.random.Generator, spread: float = 0.05) -> np.ndarray:
    rows = spread * rng.normal(size=(count, D))
    rows[:, direction] += 1.0
    return rows


def _pool(seed: int = 0) -> tuple[np.ndarray, Clustering]:
    """Rows around e0..e5 with SIZES rows each, and their clustering (centroids e0..e5)."""
    rng = np.random.default_rng(seed)
    rows = np.vstack([_near(c, size, rng) for c, size in enumerate(SIZES)])
    labels = np.repeat(np.arange(len(SIZES)), SIZES)
    centroids = np.eye(D, dtype=np.float32)[: len(SIZES)]
    return rows, Clustering(labels, centroids, np.array(SIZES, dtype=np.int64))


@pytest.fixture
def state() -> PoolState:
    rows, clustering = _pool()
    return PoolState.build(rows, clustering)


def test_sparse_rule_accepts_sparse_clusters_and_refuses_dense_ones(state) -> None:
    rng = np.random.default_rng(1)
    candidates = np.vstack([_near(0, 1, rng), _near(3, 1, rng), _near(2, 1, rng), _near(5, 1, rng)])
    decisions = decide("sparse-cluster", state, candidates)
    assert [d.accepted for d in decisions] == [False, True, False, True]
    assert [d.cluster for d in decisions] == [0, 3, 2, 5]
    assert decisions[0].reason == "dense cluster 0 (40 >= median 16.5)"
    assert decisions[1].reason == "sparse cluster 3 (3 < median 16.5)"
    assert all(d.gain is None for d in decisions)
    assert state.n == sum(SIZES) + 2
    assert state.sizes.tolist() == [40, 40, 30, 4, 3, 3]


def test_sparse_cluster_stops_accepting_once_it_reaches_the_median(state) -> None:
    candidates = _near(4, 20, np.random.default_rng(2))  # cluster 4 holds 3 rows
    decisions = decide("sparse-cluster", state, candidates)
    accepted = [d.accepted for d in decisions]
    assert accepted == [True] * 14 + [False] * 6  # 3 + 14 = 17 >= 16.5
    assert decisions[-1].reason == "dense cluster 4 (17 >= median 16.5)"
    assert state.sizes[4] == 17 and state.median == 16.5


def test_gain_accepts_a_new_direction_and_refuses_a_duplicate(state) -> None:
    rows, _ = _pool()
    new = np.eye(D)[20:21]
    duplicate = rows[:1]
    before = state.vendi()
    decisions = decide("gain", state, np.vstack([duplicate, new]), threshold=0.0)
    assert decisions[0].accepted is False and decisions[0].gain < 0
    assert decisions[0].reason.startswith("gain -") and "below 0" in decisions[0].reason
    assert decisions[1].accepted is True and decisions[1].gain > 0.1
    assert decisions[1].reason.startswith("G-Vendi gain ")
    assert state.n == sum(SIZES) + 1
    assert math.isclose(state.vendi(), before + decisions[1].gain, rel_tol=1e-9)


def test_decisions_within_a_batch_see_the_rows_accepted_before_them(state) -> None:
    copy = np.eye(D)[20:21]
    alone = state.copy().gains(np.vstack([copy, copy]))
    assert alone[0] == alone[1] > 0.13  # each judged alone: the same gain
    decisions = decide("gain", state, np.vstack([copy, copy, copy]), threshold=0.13)
    assert [d.accepted for d in decisions] == [True, False, False]
    assert decisions[2].gain == decisions[1].gain < decisions[0].gain - 0.03


def test_gains_equal_the_exact_change_in_both_forms() -> None:
    rng = np.random.default_rng(3)
    for n_rows in (24, 80):  # primal (n <= d) and dual (n > d) spectra
        rows = rng.normal(size=(n_rows, D)) + 2.0 * rng.normal(size=(1, D))
        clustering = spherical_kmeans(rows, 4, seed=0)
        pool = PoolState.build(rows, clustering)
        candidates = np.vstack([rng.normal(size=(3, D)), rows[:2], np.eye(D)[:1]])
        exact = np.array([pool.vendi_with(c[None, :]) - pool.vendi() for c in candidates])
        np.testing.assert_allclose(pool.gains(candidates), exact, rtol=1e-8, atol=1e-10)


def test_vendi_matches_the_score_of_the_stacked_rows() -> None:
    rows, clustering = _pool()
    labels = clustering.labels[:30]
    sizes = np.bincount(labels, minlength=6)
    pool = PoolState.build(rows[:30], Clustering(labels, clustering.centroids, sizes))
    assert math.isclose(pool.vendi(), vendi_score(rows[:30]), rel_tol=1e-6)
    extra = _near(7, 30, np.random.default_rng(4))
    labels, _ = pool.assign(extra)
    pool.add(extra, labels)  # 60 > D rows: the state leaves the primal form
    stacked = np.vstack([rows[:30], extra])
    assert pool.n == 60
    assert math.isclose(pool.vendi(), vendi_score(stacked), rel_tol=1e-6)
    more = np.eye(D)[10:12]
    assert math.isclose(
        pool.vendi_with(more), vendi_score(np.vstack([stacked, more])), rel_tol=1e-6
    )
    assert pool.n == 60


def test_none_accepts_everything_and_copies_are_independent(state) -> None:
    twin = state.copy()
    candidates = _near(0, 5, np.random.default_rng(5))
    decisions = decide("none", twin, candidates)
    assert all(isinstance(d, Decision) and d.accepted for d in decisions)
    assert {d.cluster for d in decisions} == {0}
    assert twin.n == state.n + 5 and twin.sizes[0] == state.sizes[0] + 5
    assert state.n == sum(SIZES)
    assert decide("gain", state, np.empty((0, D))) == []
    assert RULES == ("sparse-cluster", "gain", "none")


def test_candidate_rows_are_normalised(state) -> None:
    new = np.eye(D)[20:21]
    twin = state.copy()
    assert decide("gain", state, 7.0 * new)[0].gain == pytest.approx(
        decide("gain", twin, new)[0].gain
    )


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda s: decide("random", s, np.eye(D)[:1]), "rule"),
        (lambda s: decide("gain", s, np.eye(D)[:1], threshold="high"), "threshold"),
        (lambda s: decide("gain", s, np.eye(D)[:1], threshold=float("nan")), "threshold"),
        (lambda s: decide("gain", s, np.ones((2, D + 1))), "candidates"),
        (lambda s: decide("gain", s, np.zeros((1, D))), "candidates"),
        (lambda s: decide("none", s, np.full((1, D), np.nan)), "candidates"),
        (lambda s: decide("none", s, np.ones((2, 3, D))), "candidates"),
        (lambda s: decide("none", object(), np.eye(D)[:1]), "state"),
        (lambda s: s.add(np.eye(D)[:2], np.array([0])), "labels"),
        (lambda s: s.add(np.eye(D)[:1], np.array([9])), "labels"),
        (lambda s: s.gains(np.ones((1, 5))), "rows"),
    ],
)
def test_bad_inputs_raise_value_errors_naming_the_parameter(state, call, name) -> None:
    with pytest.raises(ValueError, match=name):
        call(state)


def test_build_checks_the_clustering_matches_the_rows() -> None:
    rows, clustering = _pool()
    with pytest.raises(ValueError, match="clustering"):
        PoolState.build(rows[:-1], clustering)
    with pytest.raises(ValueError, match="clustering"):
        PoolState.build(rows, "kmeans")
    with pytest.raises(ValueError, match="rows"):
        PoolState.build(np.empty((0, D)), clustering)


def test_the_default_gain_threshold_is_the_running_median_and_at_least_zero(state) -> None:
    rows, _ = _pool()
    new = np.eye(D)[20:24]
    decisions = decide("gain", state, np.vstack([new[0], rows[0], new[1], new[2]]))
    gains = [d.gain for d in decisions]
    assert [d.accepted for d in decisions] == [True, False, True, True]
    assert decisions[0].reason.endswith(">= 0 (running median)")  # nothing seen yet: 0
    assert decisions[1].reason.endswith("(running median)") and gains[1] < 0
    bar = float(np.median(gains[:2]))
    assert decisions[2].reason == f"G-Vendi gain {gains[2]:.3g} >= {bar:.3g} (running median)"
    bar = float(np.median(gains[:3]))
    assert decisions[3].reason == f"G-Vendi gain {gains[3]:.3g} >= {bar:.3g} (running median)"
    assert state.seen_gains == gains
    refused = decide("gain", state, rows[1:2])[0]
    assert not refused.accepted and f"below {float(np.median(gains)):.3g}" in refused.reason
