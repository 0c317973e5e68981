"""The scoring and featurizer jobs, with small third-party-style plugins."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import qa_rows, write_jsonl
from vendiscope.core.base.errors import ProjectError
from vendiscope.core.io.importing import import_dataset
from vendiscope.core.metrics.scoring import default_vector_set, score_dataset, source_positions
from vendiscope.core.plugin_host import Featurizer, Metric, MetricResult, PluginRegistry
from vendiscope.core.plugin_host.manifest import Contribution, PluginManifest
from vendiscope.core.store import vectors
from vendiscope.core.vectors.featurizing import featurize_dataset


class LengthFeaturizer(Featurizer):
    """Two features per record: prompt length and response length."""

    def __init__(self, scale: float = 1.0) -> None:
        self.scale = scale

    @property
    def dim(self) -> int:
        return 2

    @property
    def model_id(self) -> str:
        return f"lengths*{self.scale}"

    def describe(self) -> dict:
        return {"mode": "lengths"}

    def featurize(self, records, *, progress, cancel):
        rows = [[len(r["prompt"] or ""), len(r["response"] or "")] for r in records]
        progress.update(len(rows))
        return np.asarray(rows, dtype=np.float32) * self.scale


class CountMetric(Metric):
    """The number of distinct rows, with each row's multiplicity as its per-record score."""

    def compute(self, vectors, *, quality=None):
        _, inverse, counts = np.unique(vectors, axis=0, return_inverse=True, return_counts=True)
        weight = 1.0 if quality is None else float(np.mean(quality))
        return MetricResult(len(counts) * weight, counts[inverse.ravel()].astype(float), {"q": 1})


@pytest.fixture
def registry() -> PluginRegistry:
    registry = PluginRegistry.discover()
    registry.add_manifest(
        PluginManifest(
            "toy",
            (
                Contribution("featurizer", "lengths", f"{__name__}:LengthFeaturizer"),
                Contribution("metric", "count", f"{__name__}:CountMetric"),
            ),
        )
    )
    return registry


@pytest.fixture
def featurized(project, tmp_path, registry) -> str:
    rows = qa_rows(30) + qa_rows(30)  # every record twice
    import_dataset(project, write_jsonl(tmp_path / "d.jsonl", rows), name="d")
    result = featurize_dataset(project, "d", featurizer="lengths", chunk_rows=16, registry=registry)
    assert result.vector_set.name == "lengths/lengths" and result.vector_set.kind == "feature"
    return "d"


def test_featurize_job_stores_rows_in_order(project, featurized) -> None:
    matrix = vectors.load(project, featurized, "lengths/lengths")
    records = project.records(featurized, 0, 60)
    assert matrix.shape == (60, 2)
    assert matrix[7].tolist() == [len(records[7].prompt), len(records[7].response)]
    run = project.runs(featurized)[-1]
    assert run.kind == "feature" and run.params["describe"] == {"mode": "lengths"}


def test_score_overall_per_source_and_per_record(project, featurized, registry) -> None:
    result = score_dataset(
        project, featurized, metric="count", vector_set="lengths/lengths", registry=registry
    )
    distinct = len({(len(r["question"]), len(r["answer"])) for r in qa_rows(30)})
    assert result.value == distinct and result.n == 60
    assert set(result.per_source) == {"s0", "s1", "s2"}
    assert sum(row["n"] for row in result.per_source.values()) == 60
    scores = vectors.load(project, featurized, result.per_record_set)
    assert scores.shape == (60, 1) and scores.min() >= 2  # each row appears at least twice
    run = project.run(result.run_id)
    assert run.status == "complete" and run.result["value"] == distinct


def test_quality_weights_need_every_record(project, featurized, registry) -> None:
    runs_before = len(project.runs(featurized))
    with pytest.raises(ProjectError, match="no vector set or record field of that name"):
        score_dataset(
            project,
            featurized,
            metric="count",
            vector_set="lengths/lengths",
            quality="rating",
            registry=registry,
        )
    assert len(project.runs(featurized)) == runs_before  # refused before any run started


def test_default_sets_and_clear_errors(project, featurized, registry) -> None:
    with pytest.raises(ProjectError, match="no complete gradient vector set; run `vendiscope gra"):
        default_vector_set(project, featurized, "gradient")
    assert default_vector_set(project, featurized, "feature").name == "lengths/lengths"
    with pytest.raises(ProjectError, match="needs a vector set"):
        score_dataset(project, featurized, metric="count", registry=registry)
    assert sorted(source_positions(project, featurized)) == ["s0", "s1", "s2"]


def test_gradient_scores_carry_the_projection_error(project, tmp_path) -> None:
    import_dataset(project, write_jsonl(tmp_path / "g.jsonl", qa_rows(40)), name="g")
    rng = np.random.default_rng(0)
    rows = rng.standard_normal((40, 256)).astype(np.float32)
    vectors.write_matrix(
        project, "g", "gradients/fast", rows, kind="gradient", model="toy", params={}
    )
    vectors.write_matrix(project, "g", "features", rows, kind="feature", model="toy", params={})
    found = score_dataset(project, "g", metric="gvendi")
    error = found.details["projection_error"]
    assert error["method"] == "re-projection" and error["rows"] == 40
    assert error["sd"] > 0 and error["shift"] < 0  # the projection's noise lowers the score
    assert project.run(found.run_id).result["details"]["projection_error"] == error
    plain = score_dataset(project, "g", metric="vendi", vector_set="features")
    assert "projection_error" not in plain.details  # not a random projection
