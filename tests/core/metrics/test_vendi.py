"""The Vendi family in vendiscope.core.metrics.algorithms.vendi: equal to the reference package,
identities,
streaming, bootstrap, and per-record scores checked against brute force."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from vendiscope.core.metrics.algorithms import vendi as V
from vendiscope.core.metrics.algorithms import vendi_records as R

ORDERS = [0.5, 1.0, 2.0, math.inf]


def rows(n: int, d: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((n, d))


def unit(x: np.ndarray) -> np.ndarray:
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def ref_q(q: float) -> float | str:
    """The reference package spells the infinite order as the string "inf"."""
    return "inf" if math.isinf(q) else q


# --------------------------------------------------------------------------- reference
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:vendi_score.*")


@pytest.fixture(scope="module")
def reference():
    return pytest.importorskip("vendi_score.vendi")


@pytest.mark.parametrize("q", ORDERS)
@pytest.mark.parametrize("shape", [(300, 24), (40, 64), (48, 48)])
def test_equals_the_reference_package(reference, q: float, shape: tuple[int, int]) -> None:
    x = rows(*shape, seed=shape[0])
    ours = V.vendi_score(x, q)
    if shape[0] > shape[1]:
        expected = reference.score_dual(x, q=ref_q(q))
    else:  # the primal form; the reference's dual keeps n - d rounding-noise eigenvalues
        expected = reference.score_K(unit(x) @ unit(x).T, q=ref_q(q))
    assert ours == pytest.approx(expected, rel=1e-6)
    assert V.decompose(x).form == ("dual" if shape[0] > shape[1] else "primal")


def test_unnormalised_rows_match_the_reference(reference) -> None:
    x = unit(rows(200, 16)) * 1.0
    assert V.vendi_score(x, normalize=False) == pytest.approx(
        reference.score_dual(x, normalize=False), rel=1e-9
    )


# --------------------------------------------------------------------------- identities
@pytest.mark.parametrize("q", ORDERS)
def test_identical_rows_score_one(q: float) -> None:
    x = np.tile(rows(1, 32), (50, 1)) * np.arange(1, 51)[:, None]  # same direction, any length
    assert V.vendi_score(x, q) == pytest.approx(1.0, rel=1e-9)
    assert V.vendi_score(x[:10, :], q) == pytest.approx(1.0, rel=1e-9)


@pytest.mark.parametrize("q", ORDERS)
@pytest.mark.parametrize("n", [1, 7, 32])
def test_orthonormal_rows_score_n(q: float, n: int) -> None:
    basis, _ = np.linalg.qr(rows(32, 32, seed=n))
    assert V.vendi_score(basis[:n], q) == pytest.approx(n, rel=1e-9)


@pytest.mark.parametrize("q", ORDERS)
@pytest.mark.parametrize("shape", [(200, 12), (20, 30)])
def test_duplicating_every_row_changes_nothing(q: float, shape: tuple[int, int]) -> None:
    x = rows(*shape)
    twice = np.concatenate([x, x[::-1]])  # (20, 30) doubles into the dual form
    assert V.vendi_score(twice, q) == pytest.approx(V.vendi_score(x, q), rel=1e-9)


@pytest.mark.parametrize("q", ORDERS)
def test_permutation_invariant_and_input_untouched(q: float) -> None:
    x = rows(500, 20).astype(np.float32)
    x.flags.writeable = False  # a write would raise
    before = x.copy()
    shuffled = x[np.random.default_rng(3).permutation(len(x))]
    assert V.vendi_score(shuffled, q) == pytest.approx(V.vendi_score(x, q), rel=1e-5)
    np.testing.assert_array_equal(x, before)


def test_orders_decrease_and_the_spectrum_sums_to_one() -> None:
    x = rows(400, 30) * np.geomspace(1, 0.05, 30)
    scores = [V.vendi_score(x, q) for q in [0.5, 1, 2, "inf"]]
    assert scores == sorted(scores, reverse=True)
    assert scores[-1] >= 1 and scores[0] <= 30
    spectrum = V.vendi_spectrum(x)
    assert spectrum.shape == (30,) and spectrum.sum() == pytest.approx(1.0)
    assert np.all(np.diff(spectrum) <= 0) and spectrum.min() >= 0
    assert V.effective_number(x) == V.vendi_score(x, 1)


def test_float32_input_agrees_with_float64() -> None:
    x = rows(3000, 64)
    for q in ORDERS:
        assert V.vendi_score(x.astype(np.float32), q) == pytest.approx(
            V.vendi_score(x, q), rel=1e-5
        )


def test_overflowing_float32_rows_are_normalised_in_float64() -> None:
    x = rows(100, 8).astype(np.float32)
    big = x * np.float32(1e30)  # squares overflow float32
    assert V.vendi_score(big) == pytest.approx(V.vendi_score(x), rel=1e-5)


# --------------------------------------------------------------------------- streaming
def test_streaming_gram_equals_in_memory() -> None:
    x = rows(1000, 16)
    sizes = [1, 299, 0, 400, 300]
    chunks = (x[a:b] for a, b in itertools.pairwise(np.cumsum([0, *sizes])))
    xtx, n = V.gram_dual(chunks)
    assert n == 1000 and xtx.dtype == np.float64 and xtx.shape == (16, 16)
    np.testing.assert_allclose(xtx, unit(x).T @ unit(x), rtol=1e-12, atol=1e-12)
    for q in ORDERS:
        assert V.vendi_from_gram(xtx, n, q) == pytest.approx(V.vendi_score(x, q), rel=1e-12)
    # the in-memory path in small chunks gives the same score
    dec = V.decompose(x, chunk_rows=7)
    assert dec.score(1) == pytest.approx(V.vendi_score(x), rel=1e-12)


def test_streaming_errors_name_the_problem() -> None:
    with pytest.raises(ValueError, match="no rows"):
        V.gram_dual(iter([]))
    with pytest.raises(ValueError, match="chunk 1 has 3 columns"):
        V.gram_dual([np.ones((2, 4)), np.ones((2, 3))])
    bad = rows(10, 4)
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="row 13 has a NaN"):
        V.gram_dual([rows(10, 4), bad])


# --------------------------------------------------------------------------- validation
@pytest.mark.parametrize(
    ("vectors", "message"),
    [
        (np.empty((0, 8)), r"empty \(shape \(0, 8\)\)"),
        (np.ones(8), "2-D array"),
        (np.ones((3, 0)), "no columns"),
        (np.array([["a", "b"]]), "real numbers"),
    ],
)
def test_bad_vectors_are_refused(vectors: np.ndarray, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        V.vendi_score(vectors)


def test_bad_rows_and_orders_are_named() -> None:
    x = rows(50, 8)
    x[17, 2] = np.inf
    with pytest.raises(ValueError, match="row 17 has a NaN or infinite"):
        V.vendi_score(x)
    x[17] = 0.0
    with pytest.raises(ValueError, match="row 17 is all zeros"):
        V.vendi_score(x)
    assert V.vendi_score(x, normalize=False) > 0
    for q in (0, -1, float("nan"), "many"):
        with pytest.raises(ValueError, match="q must be"):
            V.vendi_score(rows(5, 3), q)
    assert V.vendi_score(rows(50, 8), "inf") == V.vendi_score(rows(50, 8), math.inf)


# --------------------------------------------------------------------------- quality
def test_quality_weighted_is_mean_quality_times_score() -> None:
    x = rows(300, 12)
    quality = np.random.default_rng(1).uniform(0, 2, 300)
    for q in ORDERS:
        assert V.vendi_score(x, q, quality=quality) == pytest.approx(
            quality.mean() * V.vendi_score(x, q), rel=1e-12
        )
    with pytest.raises(ValueError, match="one weight per row"):
        V.vendi_score(x, quality=quality[:-1])
    with pytest.raises(ValueError, match="non-negative"):
        V.vendi_score(x, quality=quality - 1)
    with pytest.raises(ValueError, match="finite"):
        V.vendi_score(x, quality=np.full(300, np.nan))


# --------------------------------------------------------------------------- bootstrap
@pytest.mark.parametrize("q", ORDERS)
def test_bootstrap_interval_contains_the_score_and_is_reproducible(q: float) -> None:
    # well spread but not isotropic: at the maximum (isotropic data) every resample scores lower
    x = rows(3000, 6, seed=5) * np.geomspace(1.0, 0.3, 6)
    low, high = V.bootstrap_ci(x, q, n_boot=60, seed=11)
    assert low <= V.vendi_score(x, q) <= high
    assert (low, high) == V.bootstrap_ci(x, q, n_boot=60, seed=11)
    assert (low, high) != V.bootstrap_ci(x, q, n_boot=60, seed=12)


def test_bootstrap_primal_form_and_quality() -> None:
    x = rows(30, 40)
    quality = np.linspace(0.5, 1.5, 30)
    low, high = V.bootstrap_ci(x, n_boot=40, quality=quality)
    plain = V.bootstrap_ci(x, n_boot=40)
    # resampled scores are biased low here (repeats add no diversity); the interval is
    # centred on the score and as wide as their spread
    score = V.vendi_score(x, quality=quality)
    assert low < score < high and abs((low + high) / 2 - score) < 1e-9
    assert (low, high) != plain
    with pytest.raises(ValueError, match="n_boot"):
        V.bootstrap_ci(x, n_boot=0)
    with pytest.raises(ValueError, match="level"):
        V.bootstrap_ci(x, level=1.5)


# --------------------------------------------------------------------------- per record
@pytest.mark.parametrize("shape", [(400, 10), (12, 30)])
def test_leverage_sums_to_the_rank(shape: tuple[int, int]) -> None:
    x = rows(*shape)
    leverage = R.leverage_scores(x, ridge=1e-12)
    assert leverage.shape == (shape[0],) and leverage.min() >= 0 and leverage.max() < 1 + 1e-9
    assert leverage.sum() == pytest.approx(min(shape), rel=1e-8)
    # with a larger ridge the sum is sum s / (s + ridge), below the rank
    assert R.leverage_scores(x, ridge=1.0).sum() < min(shape)


def test_leverage_of_a_row_alone_in_its_direction_is_one() -> None:
    x = np.zeros((201, 9))
    x[:200, :8] = rows(200, 8)
    x[200, 8] = 3.0
    leverage = R.leverage_scores(x, ridge=1e-12)
    assert leverage[200] == pytest.approx(1.0, abs=1e-9)
    assert leverage.sum() == pytest.approx(9, rel=1e-8)
    # matches the definition in the primal (n x n) form
    ref = unit(x) @ np.linalg.solve(unit(x).T @ unit(x) + 1e-6 * np.eye(9), unit(x).T)
    np.testing.assert_allclose(R.leverage_scores(x), np.diag(ref), rtol=1e-6, atol=1e-10)


def _loo(x: np.ndarray, q: float) -> np.ndarray:
    """Leave-one-out contributions the obvious way."""
    full = V.vendi_score(x, q)
    return np.array([full - V.vendi_score(np.delete(x, i, axis=0), q) for i in range(len(x))])


DATA = {
    "isotropic n>>d": lambda: rows(300, 12, seed=1),
    "clusters": lambda: np.repeat(rows(5, 16, seed=2), 40, 0) + 0.1 * rows(200, 16, seed=3),
    "low rank + outliers": lambda: np.vstack([rows(150, 4) @ rows(4, 20, seed=4), rows(4, 20)]),
    "primal n<d": lambda: rows(30, 50, seed=6),
    "orthonormal": lambda: np.eye(8),
}


@pytest.mark.parametrize("q", [*ORDERS, 0.3, 1.5])
@pytest.mark.parametrize("data", list(DATA))
def test_fast_contributions_match_exact_leave_one_out(q: float, data: str) -> None:
    x = DATA[data]()
    exact = _loo(x, q)
    np.testing.assert_allclose(R.vendi_contributions(x, q, method="exact"), exact, atol=1e-9)
    fast = R.vendi_contributions(x, q)
    scale = np.abs(exact).max()
    # exact up to quadrature (0 < q < 2) and rounding; q < 1/2 with rows alone in their
    # direction is the hardest case (about 1e-6)
    assert np.abs(fast - exact).max() <= 1e-5 * scale


def test_contributions_for_q_above_two_are_a_close_approximation() -> None:
    x = rows(500, 10)
    exact = R.vendi_contributions(x, 3.0, method="exact")
    fast = R.vendi_contributions(x, 3.0)
    assert np.abs(fast - exact).max() <= 0.02 * np.abs(exact).max()
    assert np.corrcoef(fast, exact)[0, 1] > 0.999


def test_contributions_signs_quality_and_single_row() -> None:
    x = np.vstack([np.repeat(rows(3, 6), 20, 0), rows(1, 6, seed=9)])  # 60 copies + 1 lone row
    contributions = R.vendi_contributions(x)
    assert contributions[-1] > 0 and contributions[-1] == contributions.max()
    assert (contributions[:-1] < contributions[-1]).all()
    quality = np.random.default_rng(2).uniform(0.1, 1, len(x))
    weighted = R.vendi_contributions(x, quality=quality)
    expected = np.array(
        [
            V.vendi_score(x, quality=quality)
            - V.vendi_score(np.delete(x, i, 0), quality=np.delete(quality, i))
            for i in range(len(x))
        ]
    )
    np.testing.assert_allclose(weighted, expected, atol=1e-9)
    # a single row contributes its whole score, 1 up to float64 eigen-decomposition rounding
    # (0.9999999999999998 on AVX2 OpenBLAS): 1e-9 relative, as for the identities above
    assert R.vendi_contributions(x[:1]).tolist() == pytest.approx([1.0], rel=1e-9)
    with pytest.raises(ValueError, match="method"):
        R.vendi_contributions(x, method="approximately")


def test_per_record_scores_reuse_a_decomposition() -> None:
    x = rows(500, 16).astype(np.float32)
    dec = V.decompose(x, eigenvectors=True, chunk_rows=64)
    np.testing.assert_allclose(
        R.leverage_scores(x, decomposition=dec, chunk_rows=64), R.leverage_scores(x), rtol=1e-4
    )
    contributions = R.vendi_contributions(x)  # float32 sums in other chunks: ~1e-6 apart
    np.testing.assert_allclose(
        R.vendi_contributions(x, decomposition=dec),
        contributions,
        atol=1e-5 * np.abs(contributions).max(),
    )
    with pytest.raises(ValueError, match="eigenvectors=True"):
        R.leverage_scores(x, decomposition=V.decompose(x))


def test_knn_uniqueness() -> None:
    x = rows(200, 8)
    x[10] = x[20] * 2.5  # a duplicate direction
    uniqueness = R.knn_uniqueness(x, k=1)
    assert uniqueness[10] == pytest.approx(0, abs=1e-6)
    assert uniqueness[20] == pytest.approx(0, abs=1e-6)
    assert R.knn_uniqueness(np.eye(5), k=3) == pytest.approx(np.ones(5), abs=1e-6)
    tripled = np.repeat(rows(30, 6), 3, 0)  # every row has two copies: k = 2 finds them
    assert R.knn_uniqueness(tripled, k=2) == pytest.approx(np.zeros(90), abs=1e-5)
    default = R.knn_uniqueness(x)
    assert default.shape == (200,) and (default > uniqueness - 1e-6).all()
    # a row is never its own neighbour, and the mean is over the k others
    sims = unit(x) @ unit(x).T
    np.fill_diagonal(sims, -np.inf)
    top = -np.sort(-sims, axis=1)[:, :10]
    np.testing.assert_allclose(default, 1 - top.mean(axis=1), atol=1e-5)
    assert R.knn_uniqueness(x[:1]).tolist() == [1.0]  # np.ones(1), not computed: exact
    assert R.knn_uniqueness(x[:3], k=50).shape == (3,)
    with pytest.raises(ValueError, match="k must be"):
        R.knn_uniqueness(x, k=0)


def test_a_huge_order_tends_to_the_infinite_order_without_overflow() -> None:
    import warnings

    lam = np.array([0.5, 0.3, 0.2])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow or underflow warning
        huge = V.vendi_from_eigenvalues(lam, 1e308)
        large = V.vendi_from_eigenvalues(lam, 1e6)
    assert huge == pytest.approx(V.vendi_from_eigenvalues(lam, float("inf")), rel=1e-12)
    assert large == pytest.approx(2.0, rel=1e-5)
    assert V.vendi_from_eigenvalues(lam, 2) == pytest.approx(1 / np.sum(lam**2), rel=1e-12)
