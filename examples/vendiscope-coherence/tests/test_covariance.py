"""The covariance-preserving selector: the conformance kit, then what it promises."""

import numpy as np
import pytest
from vendiscope.api import CancelToken, NullProgress
from vendiscope.testing import check_registered, parametrize_with_checks

from vendiscope_coherence import manifest
from vendiscope_coherence.selector import CovarianceSelector, _prepare


@parametrize_with_checks("selector", CovarianceSelector)
def test_conformance(check):
    check()


@parametrize_with_checks("selector", CovarianceSelector, params={"standardize": True})
def test_conformance_standardized(check):
    check()


def select(rows, k, **params):
    return CovarianceSelector(**params).select(
        rows, k, progress=NullProgress(), cancel=CancelToken()
    )


def cov(rows):
    return np.cov(rows.T, bias=True)


@pytest.mark.parametrize("standardize", [False, True])
def test_same_picks_as_the_brute_force_greedy(standardize):
    rng = np.random.default_rng(3)
    rows = rng.normal(size=(30, 4)) @ rng.normal(size=(4, 4))
    centred = _prepare(rows, standardize)
    target = cov(centred)
    chosen = [int(np.argmin((centred**2).sum(axis=1)))]
    while len(chosen) < 8:
        errors = {
            j: np.linalg.norm(cov(centred[[*chosen, j]]) - target)
            for j in range(len(rows))
            if j not in chosen
        }
        chosen.append(min(errors, key=lambda j: (errors[j], j)))
    selection = select(rows, 8, standardize=standardize)
    assert selection.indices.tolist() == chosen
    relative = [
        np.linalg.norm(cov(centred[chosen[: i + 1]]) - target) / np.linalg.norm(target)
        for i in range(8)
    ]
    np.testing.assert_allclose(selection.details["relative_error"], relative, atol=1e-9)


def test_keeps_the_cross_covariance_of_paired_rows():
    rng = np.random.default_rng(0)
    a = rng.normal(size=(400, 3))
    b = a @ rng.normal(size=(3, 3)) + 0.3 * rng.normal(size=(400, 3))
    pairs = np.hstack([a, b])
    full = cov(pairs)[:3, 3:]
    chosen = select(pairs, 40).indices
    greedy = np.linalg.norm(cov(pairs[chosen])[:3, 3:] - full)
    random = [
        np.linalg.norm(cov(pairs[rng.choice(400, 40, replace=False)])[:3, 3:] - full)
        for _ in range(50)
    ]
    assert greedy < np.percentile(random, 10)


def test_gains_are_error_decreases():
    rows = np.random.default_rng(1).normal(size=(50, 3))
    selection = select(rows, 10)
    error = np.linalg.norm(cov(rows))
    for i, gain in enumerate(selection.gains):
        after = selection.details["relative_error"][i] * np.linalg.norm(cov(rows))
        assert gain == pytest.approx(error - after, abs=1e-9)
        error = after


def test_registered_through_the_manifest():
    from vendiscope.core.plugin_host import PluginRegistry

    registry = PluginRegistry()
    registry.add_manifest(manifest)
    check_registered("selector", "covariance", registry=registry)
