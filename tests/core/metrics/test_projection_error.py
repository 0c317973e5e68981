"""The re-projection estimate of how much a random projection moved a Vendi score."""

from __future__ import annotations

import numpy as np
import pytest

from vendiscope.core.metrics.algorithms.projection_error import projection_error, resketch
from vendiscope.core.metrics.algorithms.vendi import vendi_score


def _clustered(n: int, width: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((6, width))
    rows = centres[rng.integers(0, 6, n)] * 0.7 + rng.standard_normal((n, width))
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def _count_sketch(rows: np.ndarray, dim: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    buckets = rng.integers(0, dim, rows.shape[1])
    signs = rng.choice([-1.0, 1.0], rows.shape[1])
    out = np.zeros((len(rows), dim))
    np.add.at(out.T, buckets, (rows * signs).T)
    return out


def test_resketch_preserves_inner_products_on_average() -> None:
    rows = _clustered(6, 512, seed=1)
    exact = rows @ rows.T
    mean = np.mean([resketch(rows, s) @ resketch(rows, s).T for s in range(300)], axis=0)
    np.testing.assert_allclose(mean, exact, atol=0.03)


@pytest.mark.parametrize("dim", [256, 1024])
def test_the_estimate_recovers_most_of_the_projection_shift(dim: int) -> None:
    rows = _clustered(64, 60_000, seed=2)
    truth = vendi_score(rows)
    projected = _count_sketch(rows, dim, seed=3)
    value = vendi_score(projected)
    found = projection_error(projected, draws=8)
    assert value < truth  # the projection's noise lowers the score
    assert found["shift"] < 0 < found["sd"]
    assert abs(value - found["shift"] - truth) < 0.5 * abs(value - truth)
    assert found["draws"] == 8 and found["rows"] == 64 and found["method"] == "re-projection"


def test_the_estimate_is_deterministic_and_shrinks_with_dim() -> None:
    rows = _clustered(48, 20_000, seed=4)
    small = projection_error(_count_sketch(rows, 256, 5))
    again = projection_error(_count_sketch(rows, 256, 5))
    large = projection_error(_count_sketch(rows, 4096, 5))
    assert small == again
    assert abs(large["shift"]) < abs(small["shift"])


def test_large_sets_are_estimated_on_a_sample() -> None:
    from vendiscope.core.metrics.algorithms import projection_error as module

    rows = _clustered(50, 64, seed=6)
    found = module.projection_error(rows, draws=2, max_rows=20)
    assert found["rows"] == 20


def test_too_few_rows_are_refused() -> None:
    with pytest.raises(ValueError, match="at least 2 rows"):
        projection_error(np.ones((1, 8)))
