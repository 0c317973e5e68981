"""The built-in "vendi" metric plugin: discovery, parameters, results and validation."""

from __future__ import annotations

import inspect
import json
import math

import numpy as np
import pytest

from vendiscope.core.base.errors import PluginError
from vendiscope.core.metrics.algorithms import vendi as V
from vendiscope.core.metrics.algorithms import vendi_records as R
from vendiscope.core.plugin_host import Metric, MetricResult, PluginRegistry
from vendiscope.plugins.metrics.vendi import VendiMetric


@pytest.fixture(scope="module")
def registry() -> PluginRegistry:
    return PluginRegistry.discover()


def data(n: int = 400, d: int = 16, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((n, d)).astype(np.float32)


def test_registered_as_a_builtin_metric(registry: PluginRegistry) -> None:
    contribution = registry.get("metric", "vendi")
    assert contribution.plugin == "vendiscope-builtins" and contribution.title == "Vendi score"
    assert contribution.description
    metric = registry.create("metric", "vendi", q=2, per_record=None)
    assert isinstance(metric, VendiMetric) and isinstance(metric, Metric)
    with pytest.raises(PluginError, match=r"no parameter 'order'.*parameters: q, normalize"):
        registry.create("metric", "vendi", order=2)


def test_metric_interface_takes_quality_weights() -> None:
    parameters = inspect.signature(Metric.compute).parameters
    assert parameters["quality"].kind is inspect.Parameter.KEYWORD_ONLY
    assert parameters["quality"].default is None
    assert getattr(Metric.compute, "__isabstractmethod__", False)


def test_defaults_and_details() -> None:
    x = data()
    before = x.copy()
    result = VendiMetric().compute(x)
    assert isinstance(result, MetricResult)
    assert result.value == pytest.approx(V.vendi_score(x), rel=1e-12)
    details = result.details
    assert details["q"] == 1.0 and (details["n"], details["d"]) == (400, 16)
    assert details["form"] == "dual" and details["ci"] is None
    assert details["effective_number"] == result.value
    assert len(details["spectrum_top"]) == 16 and sum(details["spectrum_top"]) == pytest.approx(1)
    assert details["per_record"] == "leverage"
    np.testing.assert_allclose(result.per_record, R.leverage_scores(x), rtol=1e-6)
    json.dumps(details, allow_nan=False)  # storable as a run result
    np.testing.assert_array_equal(x, before)


@pytest.mark.parametrize("q", [0.5, 2.0, math.inf])
def test_orders_and_primal_form(q: float) -> None:
    x = data(20, 64)
    result = VendiMetric(q=q, per_record=None).compute(x)
    assert result.value == pytest.approx(V.vendi_score(x, q), rel=1e-12)
    assert result.per_record is None and result.details["form"] == "primal"
    assert result.details["q"] == ("inf" if math.isinf(q) else q)
    assert len(result.details["spectrum_top"]) == 20
    json.dumps(result.details, allow_nan=False)


def test_spectrum_keeps_the_top_fifty() -> None:
    result = VendiMetric(per_record=None).compute(data(300, 80))
    top = result.details["spectrum_top"]
    assert len(top) == 50 and top == sorted(top, reverse=True)


@pytest.mark.parametrize("kind", ["contribution", "uniqueness"])
def test_per_record_kinds(kind: str) -> None:
    x = data(300, 12)
    result = VendiMetric(q=0.5, per_record=kind, k=5).compute(x)
    by_kind = {"contribution": R.vendi_contributions, "uniqueness": R.knn_uniqueness}
    expected = by_kind[kind](x, 0.5) if kind == "contribution" else by_kind[kind](x, 5)
    np.testing.assert_allclose(result.per_record, expected, rtol=1e-6, atol=1e-9)
    assert result.details["per_record"] == kind


def test_quality_weighting_and_bootstrap() -> None:
    x = data(2000, 6)
    quality = np.random.default_rng(4).uniform(0.5, 1.0, 2000)
    metric = VendiMetric(bootstrap=30, seed=3, per_record="contribution")
    result = metric.compute(x, quality=quality)
    score = V.vendi_score(x)
    assert result.value == pytest.approx(quality.mean() * score, rel=1e-12)
    assert result.details["effective_number"] == pytest.approx(score, rel=1e-12)
    assert result.details["quality_mean"] == pytest.approx(quality.mean())
    low, high = result.details["ci"]
    assert low <= result.value <= high and result.details["ci_level"] == 0.95
    assert result.details["ci"] == metric.compute(x, quality=quality).details["ci"]
    np.testing.assert_allclose(
        result.per_record, R.vendi_contributions(x, quality=quality), rtol=1e-9, atol=1e-12
    )
    json.dumps(result.details, allow_nan=False)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"q": 0}, "q must be > 0"),
        ({"q": -2}, "q must be > 0"),
        ({"per_record": "outlier"}, "per_record must be one of"),
        ({"bootstrap": -1}, "bootstrap must be >= 0"),
        ({"bootstrap": 2.5}, "bootstrap must be a whole number"),
        ({"level": 1.0}, "level must be between 0 and 1"),
    ],
)
def test_bad_parameters_are_named(params: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        VendiMetric(**params).compute(data(10, 4))


def test_bad_input_is_named() -> None:
    metric = VendiMetric()
    with pytest.raises(ValueError, match=r"at least one row.*shape \(0, 8\)"):
        metric.compute(np.empty((0, 8)))
    with pytest.raises(ValueError, match=r"2-D.*shape \(8,\)"):
        metric.compute(np.ones(8))
    x = data(10, 4)
    x[4, 0] = np.nan
    with pytest.raises(ValueError, match="row 4 has a NaN"):
        metric.compute(x)
    with pytest.raises(ValueError, match="quality"):
        metric.compute(data(10, 4), quality=np.ones(9))


def test_one_row() -> None:
    result = VendiMetric(per_record="contribution").compute(np.ones((1, 3)))
    assert result.value == pytest.approx(1.0) and result.per_record.tolist() == [pytest.approx(1.0)]
