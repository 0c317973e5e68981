"""The gradient-coherence metric: Vendiscope's conformance kit, then the maths."""

import numpy as np
import pytest
from vendiscope.testing import check_registered, parametrize_with_checks

from vendiscope_coherence import manifest
from vendiscope_coherence.metric import GradientCoherence


@parametrize_with_checks("metric", GradientCoherence)
def test_conformance(check):
    check()


@parametrize_with_checks("metric", GradientCoherence, params={"per_record": False})
def test_conformance_without_per_record_scores(check):
    check()


def brute_force(rows, weights=None):
    """The O(n^2 d) definition: weighted mean cosine over pairs i != j."""
    unit = rows / np.linalg.norm(rows, axis=1, keepdims=True)
    cosine = unit @ unit.T
    w = np.ones(len(rows)) if weights is None else weights
    pair = np.outer(w, w)
    np.fill_diagonal(pair, 0.0)
    others = [unit[i] @ (w @ unit - w[i] * unit[i]) for i in range(len(rows))]
    norms = [np.linalg.norm(w @ unit - w[i] * unit[i]) for i in range(len(rows))]
    return (pair * cosine).sum() / pair.sum(), np.array(others) / np.array(norms)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_matches_the_pairwise_definition(seed):
    rng = np.random.default_rng(seed)
    rows = rng.normal(size=(40, 12)) + rng.normal(size=12)  # a shared direction
    result = GradientCoherence().compute(rows.astype(np.float32))
    value, per_record = brute_force(rows)
    assert result.value == pytest.approx(value, abs=1e-6)
    np.testing.assert_allclose(result.per_record, per_record, atol=1e-5)
    weights = rng.random(40)
    weighted = GradientCoherence().compute(rows, quality=weights)
    w_value, w_per_record = brute_force(rows, weights)
    assert weighted.value == pytest.approx(w_value, abs=1e-9)
    np.testing.assert_allclose(weighted.per_record, w_per_record, atol=1e-5)


def test_extremes_and_scale_invariance():
    same = np.tile([[1.0, 2.0, 2.0]], (6, 1)) * np.arange(1, 7)[:, None]
    assert GradientCoherence().compute(same).value == pytest.approx(1.0)
    opposite = np.array([[1.0, 0.0], [-1.0, 0.0]])
    assert GradientCoherence().compute(opposite).value == pytest.approx(-1.0)
    orthogonal = np.eye(5)
    assert GradientCoherence().compute(orthogonal).value == pytest.approx(0.0)


def test_an_outlier_has_the_lowest_score():
    rows = np.vstack([np.ones((9, 4)) + 0.01 * np.arange(36).reshape(9, 4), -np.ones((1, 4))])
    scores = GradientCoherence().compute(rows).per_record
    assert int(np.argmin(scores)) == 9 and scores[9] < 0 < scores[:9].min()


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="needs 2 or more, got 1"):
        GradientCoherence().compute(np.ones((1, 3)))
    with pytest.raises(ValueError, match="row 1 has no direction"):
        GradientCoherence().compute(np.array([[1.0, 0.0], [0.0, 0.0], [0.0, 1.0]]))
    with pytest.raises(ValueError, match="at least two rows"):
        GradientCoherence().compute(np.eye(3), quality=np.array([0.0, 0.0, 1.0]))


def test_registered_through_the_manifest():
    from vendiscope.core.plugin_host import PluginRegistry

    registry = PluginRegistry()
    registry.add_manifest(manifest)
    check_registered("metric", "coherence", registry=registry)
