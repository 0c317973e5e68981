"""The resolution check: does a metric, at this size, tell the data's own groups apart?

Pure parts (the permutation p-value, the concentrated draw, the sentences) and the check as
a scoring job runs it on real projects: sources that are real groups in the vectors
(resolves), sources unrelated to the vectors (does not), embedding clusters when there are
no sources, and no groups at all (unchecked); in memory and streaming alike.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import write_jsonl
from tests.core._planted import planted_vectors, write_set
from vendiscope.core.io.importing import import_dataset
from vendiscope.core.metrics.algorithms import group_check
from vendiscope.core.metrics.scoring import score_dataset
from vendiscope.core.store.project import Project
from vendiscope.core.view_data import data as viewdata


def test_the_p_value_is_exact_over_every_split() -> None:
    higher, lower = [10.0 + i for i in range(8)], [1.0 + i * 0.1 for i in range(8)]
    assert group_check.permutation_p(higher, lower) == pytest.approx(1 / math.comb(16, 8))
    assert group_check.permutation_p([5.0] * 8, [5.0] * 8) == pytest.approx(1.0)
    # reversed: the mixed draws score lower, so nothing is found
    assert group_check.permutation_p(lower, higher) == pytest.approx(1.0)


def test_many_draws_sample_the_splits() -> None:
    rng = np.random.default_rng(0)
    a, b = rng.normal(1.0, 1.0, 20), rng.normal(0.0, 1.0, 20)
    p = group_check.permutation_p(a, b)
    assert 0 < p < 0.05
    assert group_check.permutation_p(a, b) == p  # seeded


def test_a_concentrated_draw_uses_as_few_groups_as_it_can() -> None:
    groups = [np.arange(0, 100), np.arange(100, 150), np.arange(150, 200)]
    rng = np.random.default_rng(1)
    for _ in range(20):
        drawn = group_check.concentrated_draw(groups, 120, rng)
        assert len(drawn) == 120 and len(np.unique(drawn)) == 120
        touched = {int(np.searchsorted([100, 150], p, side="right")) for p in drawn}
        assert len(touched) <= 3
        if 0 in touched and len(touched) == 2:  # the big group and one more
            assert (drawn < 100).sum() in (100, 70)


def test_the_sentences_and_the_advice() -> None:
    blind = {
        "metric": "G-Vendi", "groups_from": "sources", "groups": 16, "n": 128, "level": "does_not",
        "ratio": 1.02, "p_value": 0.4,
    }  # fmt: skip
    sees = blind | {"metric": "embedding-Vendi", "level": "resolves", "ratio": 1.7, "p_value": 1e-4}
    assert group_check.sentence(blind).startswith(
        "At 128 rows G-Vendi does not tell your 16 sources apart from a random mix (ratio 1.02"
    )
    assert "tells your 16 sources apart" in group_check.sentence(sees)
    advice = group_check.advice({"G-Vendi": blind, "embedding-Vendi": sees})
    assert advice == (
        "At 128 rows G-Vendi does not (ratio 1.02, within noise); embedding-Vendi does "
        "(ratio 1.70). Compare datasets by embedding-Vendi at this size, or compute gradients "
        "for more rows and score again."
    )
    assert group_check.advice({"G-Vendi": blind}) == ""
    assert "both tell" in group_check.advice({"a": sees, "b": sees | {"metric": "b"}})
    assert group_check.advice({"a": blind, "b": blind}).startswith("Neither a nor b")


def _project(tmp_path: Path, *, sources: list[str] | None, gradients: np.ndarray,
             embeddings: np.ndarray | None = None) -> Path:  # fmt: skip
    path = tmp_path / "p.vscope"
    rows = [
        {"id": f"r{i}", "prompt": f"question {i}", "response": f"answer {i}"}
        | ({"source": sources[i]} if sources else {})
        for i in range(len(gradients))
    ]
    with Project.create(path) as project:
        import_dataset(project, write_jsonl(tmp_path / "d.jsonl", rows), name="d")
        write_set(project, "d", "gradients/planted", gradients)
        if embeddings is not None:
            write_set(project, "d", "embeddings/planted", embeddings, kind="embedding")
    return path


SIZES = (60,) * 8


def test_sources_that_are_groups_in_the_vectors_are_told_apart(tmp_path: Path) -> None:
    rows, labels = planted_vectors(SIZES, dim=32, spread=0.3)
    path = _project(tmp_path, sources=[f"s{c}" for c in labels], gradients=rows)
    with Project.open(path) as project:
        result = score_dataset(project, "d", metric="gvendi")
        found = result.details["group_check"]
        assert found["level"] == "resolves", found
        assert found["groups"] == 8 and found["groups_from"] == "sources"
        assert found["n"] == 240 and found["draws"] == group_check.DRAWS
        assert found["ratio"] > 1.0 and found["p_value"] <= group_check.ALPHA
        assert result.details["verdict"] == {"level": "resolves", "text": found["text"]}
        assert found["text"].startswith("At 240 rows G-Vendi tells your 8 sources apart")
        # the spectrum's reading is kept beside it, and the views read the stored check
        assert result.details["spectrum_verdict"]["level"] in ("ok", "saturated")
        assert viewdata.resolution_checks(project, "d")["G-Vendi"]["p_value"] == pytest.approx(
            found["p_value"]
        )


def test_sources_unrelated_to_the_vectors_are_not(tmp_path: Path) -> None:
    rows, labels = planted_vectors(SIZES, dim=32, spread=0.3)
    shuffled = np.random.default_rng(5).permutation(labels)  # sources say nothing of the rows
    path = _project(tmp_path, sources=[f"s{c}" for c in shuffled], gradients=rows)
    with Project.open(path) as project:
        found = score_dataset(project, "d", metric="gvendi").details["group_check"]
    assert found["level"] == "does_not", found
    assert found["p_value"] > group_check.ALPHA and 0.9 < found["ratio"] < 1.1
    assert "does not tell your 8 sources apart" in found["text"]


def test_streaming_checks_the_same_draws(tmp_path: Path) -> None:
    rows, labels = planted_vectors(SIZES, dim=32, spread=0.3)
    path = _project(tmp_path, sources=[f"s{c}" for c in labels], gradients=rows)
    with Project.open(path) as project:
        whole = score_dataset(project, "d", metric="gvendi").details["group_check"]
        streamed = score_dataset(project, "d", metric="gvendi", memory_budget=1)
    assert streamed.details.get("streamed") is True
    check = streamed.details["group_check"]
    assert check["level"] == whole["level"]
    assert check["mixed"]["mean"] == pytest.approx(whole["mixed"]["mean"], rel=1e-4)


def test_without_sources_the_embedding_clusters_are_the_groups(tmp_path: Path) -> None:
    rows, _ = planted_vectors(SIZES, dim=32, spread=0.3)
    path = _project(tmp_path, sources=None, gradients=rows, embeddings=rows)
    with Project.open(path) as project:
        found = score_dataset(project, "d", metric="vendi").details["group_check"]
    assert found["groups_from"] == "embedding clusters" and found["metric"] == "embedding-Vendi"
    assert found["level"] == "resolves"
    assert "embedding clusters apart" in found["text"]


def test_without_groups_the_check_says_so(tmp_path: Path) -> None:
    rows, _ = planted_vectors(SIZES, dim=32, spread=0.3)
    path = _project(tmp_path, sources=None, gradients=rows)
    with Project.open(path) as project:
        result = score_dataset(project, "d", metric="gvendi")
    assert result.details["verdict"]["level"] == "unchecked"
    assert result.details["verdict"]["text"] == (
        "Not checked whether G-Vendi sees your data's groups: the data has fewer than two "
        "sources to tell apart."
    )
