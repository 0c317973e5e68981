"""Where a Vendi score sits between "all alike" and "all different": fraction, mean cosine,
the uniform-similarity reference and the verdict, in memory and streaming."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.conftest import qa_rows, write_jsonl
from tests.core._planted import planted_vectors
from vendiscope.core.io.importing import import_dataset
from vendiscope.core.metrics.algorithms import resolution, vendi
from vendiscope.core.metrics.scoring import score_dataset
from vendiscope.core.store import vectors
from vendiscope.plugins.metrics.vendi import VendiMetric

FIELDS = {
    "effective_fraction", "mean_cosine", "uniform_reference", "random_reference",
    "reference_ratio", "verdict",
}  # fmt: skip


def _details(rows: np.ndarray, **params) -> dict:
    return VendiMetric(per_record=None, **params).compute(rows).details


def _equal_cosine(n: int, mu: float) -> np.ndarray:
    """``n`` unit rows whose pairs all have cosine exactly ``mu`` (a shared part + orthogonal)."""
    rows = np.zeros((n, n + 1))
    rows[:, 0] = np.sqrt(mu)
    rows[np.arange(n), np.arange(1, n + 1)] = np.sqrt(1 - mu)
    return rows


def test_orthogonal_rows_are_saturated() -> None:
    n = 400
    found = _details(np.eye(n) * 3.0)
    assert found.keys() >= FIELDS
    assert found["effective_fraction"] == pytest.approx(1.0)
    assert found["mean_cosine"] == pytest.approx(0.0, abs=1e-12)
    assert found["uniform_reference"] == pytest.approx(n)
    assert found["verdict"]["level"] == "saturated"
    assert found["verdict"]["text"].endswith(".")


def test_identical_rows() -> None:
    n = 400
    found = _details(np.tile([1.0, 2.0, -0.5], (n, 1)))
    assert found["effective_fraction"] == pytest.approx(1 / n)
    assert found["mean_cosine"] == pytest.approx(1.0)
    assert found["uniform_reference"] == pytest.approx(1.0)
    assert found["verdict"]["level"] == "alike"


def test_mean_cosine_from_the_column_sum_equals_the_kernel_mean() -> None:
    rows, _ = planted_vectors((30, 20, 10), dim=8, spread=0.4)
    unit = rows / np.linalg.norm(rows, axis=1, keepdims=True)
    kernel = unit.astype(np.float64) @ unit.T.astype(np.float64)
    expected = (kernel.sum() - len(rows)) / (len(rows) * (len(rows) - 1))
    total = resolution.column_sum(rows, chunk_rows=7)  # over several chunks
    assert resolution.mean_cosine(total, len(rows)) == pytest.approx(expected, rel=1e-6)
    assert resolution.mean_cosine(total[:1], 1) is None


@pytest.mark.parametrize("n", [5, 48, 300])
@pytest.mark.parametrize("mu", [0.0, 0.09, 0.5])
def test_uniform_reference_is_the_score_of_an_equal_cosine_set(n, mu) -> None:
    rows = _equal_cosine(n, mu)
    for q in (0.5, 1.0, 2.0, "inf"):
        assert resolution.uniform_reference(n, mu, q=q) == pytest.approx(
            vendi.vendi_score(rows, q), rel=1e-9
        )
    if n == 48 and mu == 0.09:  # the figure of docs/metrics.md
        assert resolution.uniform_reference(n, mu) == pytest.approx(43.6, abs=0.05)


def test_uniform_reference_bounds_every_set_and_caps_at_the_dimension() -> None:
    rng = np.random.default_rng(1)
    for dim, n in ((4, 40), (16, 50), (64, 30)):
        rows = rng.normal(size=(n, dim)) + rng.normal(size=dim)  # mean cosine > 0
        total = resolution.column_sum(rows)
        mu = resolution.mean_cosine(total, n)
        for q in (0.5, 1.0, 2.0):
            bound = resolution.uniform_reference(n, mu, q=q, d=dim)
            assert vendi.vendi_score(rows, q) <= bound * (1 + 1e-9)
            assert bound <= min(n, dim) * (1 + 1e-12)
    assert resolution.uniform_reference(1, 0.3) == 1.0
    assert resolution.uniform_reference(10, 1.0) == pytest.approx(1.0)
    assert resolution.uniform_reference(10**6, 0.01, d=10**5) == pytest.approx(
        resolution.uniform_reference(10**6, 0.01, d=10**5, q=1.0000001), rel=1e-4
    )


@pytest.mark.parametrize(("n", "d", "shift"), [(48, 1024, 0.3), (200, 64, 0.0), (900, 256, 0.5)])
def test_random_reference_is_the_score_of_random_rows(n, d, shift) -> None:
    rng = np.random.default_rng(n)
    rows = rng.normal(size=(n, d))
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    rows += shift / np.sqrt(d)  # a shared direction: mean cosine > 0
    mu = resolution.mean_cosine(resolution.column_sum(rows), n)
    expected = resolution.random_reference(n, mu, d)
    assert vendi.vendi_score(rows) == pytest.approx(expected, rel=0.02)
    assert expected <= resolution.uniform_reference(n, mu, d=d)
    assert resolution.random_reference(1, 0.0, d) == 1.0
    assert resolution.random_reference(n, 1.0, d) == 1.0


@pytest.mark.parametrize("per_cluster", [3, 10, 40])
def test_clustered_sets_are_ok_at_several_sizes(per_cluster) -> None:
    # 20 tight clusters in 64 dimensions: far below the no-structure reference at any size
    rows, _ = planted_vectors((per_cluster,) * 20, dim=64, spread=0.1)
    n = len(rows)
    found = _details(rows)
    assert found["reference_ratio"] < 0.8
    assert found["verdict"]["level"] == "ok"
    # as many rows without clusters (isotropic noise): no structure beyond the mean cosine
    noise = _details(np.random.default_rng(2).normal(size=(n, 64)))
    assert noise["reference_ratio"] >= resolution.SATURATED_RATIO
    assert noise["verdict"]["level"] == "saturated"


def test_a_small_set_is_read_by_its_spectrum_alone() -> None:
    # no size threshold borrowed from another metric: 30 noise rows read "saturated"
    rows = np.random.default_rng(3).normal(size=(30, 256)) + 0.3  # mean cosine about 0.08
    found = _details(rows)
    assert found["verdict"]["level"] == "saturated"
    assert "compare" not in found["verdict"]["text"]
    single = _details(np.ones((1, 3)))
    assert single["mean_cosine"] is None and single["verdict"]["level"] == "too_small"
    # a small set whose groups show is not too small
    clustered, _ = planted_vectors((5, 5, 5), dim=32, spread=0.1)
    assert _details(clustered)["verdict"]["level"] == "ok"


def test_quality_weights_leave_the_fraction_of_the_effective_number() -> None:
    rows, _ = planted_vectors((60, 60), dim=16, spread=0.2)
    metric = VendiMetric(per_record=None)
    plain = metric.compute(rows)
    weighted = metric.compute(rows, quality=np.full(len(rows), 0.5))
    assert weighted.value == pytest.approx(plain.value / 2)
    for key in FIELDS:
        assert weighted.details[key] == plain.details[key]


def test_streaming_gives_the_same_fields_as_in_memory(project, tmp_path: Path) -> None:
    n = 600
    import_dataset(project, write_jsonl(tmp_path / "d.jsonl", qa_rows(n)), name="d")
    rows, _ = planted_vectors((200, 150, 100, 80, 70), dim=16, spread=0.3)
    vectors.write_matrix(project, "d", "g", rows, kind="gradient", model="planted", params={},
                         chunk_rows=64)  # fmt: skip
    loaded = score_dataset(project, "d", metric="gvendi")
    streamed = score_dataset(project, "d", metric="gvendi", memory_budget=1)
    assert streamed.details["streamed"] is True and "streamed" not in loaded.details
    for key in FIELDS - {"verdict"}:
        assert streamed.details[key] == pytest.approx(loaded.details[key], rel=1e-6)
    assert streamed.details["verdict"] == loaded.details["verdict"]
