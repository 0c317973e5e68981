"""Scores at equal n: the draws themselves, the per-source breakdown (in memory and streamed)
and the dataset and its subsets compared at the smallest set's size."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.conftest import qa_rows, write_jsonl
from tests.core._planted import planted_dataset, planted_vectors, write_set
from vendiscope.core.io.importing import import_dataset
from vendiscope.core.metrics import compare_sets, streaming
from vendiscope.core.metrics.algorithms import equal_n, vendi
from vendiscope.core.metrics.scoring import score_dataset, source_positions
from vendiscope.core.metrics.subset_baseline import unit_rows
from vendiscope.core.store import subsets, vectors

SOURCE_SIZES = {"c0": 396, "c1": 274, "c2": 178, "c3": 130}
"""The four sources of the planted dataset (clusters taken four by four)."""
M = min(SOURCE_SIZES.values())


@pytest.fixture
def unit() -> np.ndarray:
    return unit_rows(planted_vectors((40, 30, 20, 10), spread=0.3)[0])


# ----------------------------------------------------------------------------- the draws
def test_a_set_of_exactly_n_rows_is_scored_once(unit) -> None:
    positions = np.arange(10, 40)
    found = equal_n.at_size(unit, positions, 30)
    own = vendi.vendi_score(unit[positions], normalize=False)
    assert found["draws"] == 1 and found["n"] == found["of"] == 30
    assert found["mean"] == pytest.approx(own, rel=1e-9) and found["sd"] == 0.0
    assert not equal_n.drawn(found) and equal_n.figure(found) == f"{own:.2f}"


def test_a_larger_set_is_drawn_at_the_smaller_size(unit) -> None:
    positions = np.arange(0, 100, 2)  # 50 of the 100 rows
    draws = equal_n.draw_positions(positions, 12, draws=5, seed=3)
    assert len(draws) == 5
    for drawn in draws:
        assert len(drawn) == len(set(drawn.tolist())) == 12
        assert set(drawn.tolist()) <= set(positions.tolist()) and list(drawn) == sorted(drawn)
    scores = equal_n.draw_scores(unit, positions, 12, draws=5, seed=3)
    expected = [vendi.vendi_score(unit[d], normalize=False) for d in draws]
    np.testing.assert_allclose(scores, expected, rtol=1e-9)
    found = equal_n.at_size(unit, positions, 12, draws=5, seed=3)
    assert found["n"] == 12 and found["of"] == 50 and found["draws"] == 5
    assert found["mean"] == pytest.approx(np.mean(expected), rel=1e-9)
    assert found["sd"] == pytest.approx(np.std(expected, ddof=1), rel=1e-9)
    assert found["low"] <= found["mean"] <= found["high"] and equal_n.drawn(found)
    # a smaller draw of the same rows scores lower on average: why sizes must match
    assert found["mean"] < vendi.vendi_score(unit[positions], normalize=False)


def test_draws_are_seeded(unit) -> None:
    positions = np.arange(100)
    first = equal_n.draw_scores(unit, positions, 20, seed=7)
    assert first == equal_n.draw_scores(unit, positions, 20, seed=7)
    assert first != equal_n.draw_scores(unit, positions, 20, seed=8)
    assert len(first) == equal_n.DEFAULT_DRAWS
    with pytest.raises(ValueError, match="n must be between 1 and the 100 rows"):
        equal_n.draw_positions(positions, 101)
    with pytest.raises(ValueError, match="draws must be a whole number >= 1"):
        equal_n.draw_positions(positions, 10, draws=0)


def test_quality_weights_each_draw_by_its_rows(unit) -> None:
    positions = np.arange(100)
    weights = np.linspace(0.5, 1.5, 100)
    plain = equal_n.draw_positions(positions, 20, seed=1)
    weighted = equal_n.draw_scores(unit, positions, 20, seed=1, quality=weights)
    expected = [weights[d].mean() * vendi.vendi_score(unit[d], normalize=False) for d in plain]
    np.testing.assert_allclose(weighted, expected, rtol=1e-9)


def test_the_label_and_figure_say_the_size() -> None:
    once = equal_n.summary([85.123], 128, of=128)
    assert equal_n.label("G-Vendi", once) == "G-Vendi 85.1 of 128 (n = 128)"
    drawn = equal_n.summary([84.0, 86.0, 85.0, 85.5, 84.5], 128, of=900)
    assert equal_n.label("G-Vendi", drawn) == (
        "G-Vendi 85.0 ± 0.8 of 128 (n = 128, mean of 5 draws from 900)"
    )
    assert equal_n.figure(drawn) == "85.00 ± 0.79" and equal_n.figure(drawn, 1, "±") == "85.0±0.8"
    assert equal_n.figure(once, digits=1) == "85.1"


def test_add_to_breakdown_scores_every_source_at_the_smallest_size() -> None:
    breakdown = {"big": {"n": 50, "value": 9.0}, "small": {"n": 20, "value": 5.0}}
    asked = []

    def score_at(source: str, m: int) -> dict:
        asked.append((source, m))
        return equal_n.summary([6.0, 7.0], m, of=breakdown[source]["n"])

    equal_n.add_to_breakdown(breakdown, score_at)
    assert asked == [("big", 20)]  # the smallest source is not drawn: its own score stands
    assert breakdown["small"]["equal_n"] == equal_n.summary([5.0], 20, of=20)
    assert breakdown["big"]["equal_n"]["mean"] == pytest.approx(6.5)
    assert breakdown["big"]["value"] == 9.0  # the source's own score is kept


# ----------------------------------------------------------------------------- per source
@pytest.fixture
def pool(project, tmp_path: Path) -> np.ndarray:
    """The planted dataset: 978 records in four sources of 396, 274, 178 and 130."""
    labels = planted_dataset(project, tmp_path)
    spread = [int(np.flatnonzero(labels == c)[0]) for c in range(20)]
    subsets.from_positions(project, "pool", "spread", spread)
    subsets.from_positions(project, "pool", "lump", np.flatnonzero(labels == 0)[:20])
    return labels


def expected_at_m(project, source: str, q: float = 1.0, weights=None) -> float:
    """The mean of the five seeded draws of M rows of ``source``, computed here."""
    matrix = vectors.load(project, "pool", "gradients/planted")
    rng = np.random.default_rng(0)
    positions = np.asarray(source_positions(project, "pool")[source])
    found = []
    for _ in range(equal_n.DEFAULT_DRAWS):
        drawn = np.sort(rng.choice(positions, size=M, replace=False))
        score = vendi.vendi_score(matrix[drawn].astype(np.float64), q)
        found.append(score * (1.0 if weights is None else weights[drawn].mean()))
    return float(np.mean(found))


def test_each_source_is_scored_at_the_smallest_sources_size(project, pool) -> None:
    result = score_dataset(project, "pool", metric="gvendi", params={"per_record": None})
    assert {s: row["n"] for s, row in result.per_source.items()} == SOURCE_SIZES
    for source, row in result.per_source.items():
        at = row["equal_n"]
        assert at["n"] == M and at["of"] == row["n"]
        if row["n"] == M:  # the smallest source: its own score, scored once
            assert at["draws"] == 1 and at["mean"] == row["value"] and at["sd"] == 0.0
        else:
            assert at["draws"] == equal_n.DEFAULT_DRAWS and at["sd"] > 0
            assert at["mean"] == pytest.approx(expected_at_m(project, source), rel=1e-5)
            assert at["low"] <= at["mean"] <= at["high"]
    recorded = project.run(result.run_id).result["per_source"]
    assert recorded["c0"]["equal_n"] == result.per_source["c0"]["equal_n"]  # stored in the run


def test_streamed_sources_at_equal_n_equal_the_in_memory_ones(project, pool) -> None:
    params = {"q": 2.0, "per_record": None}
    vectors.write_matrix(project, "pool", "w", np.linspace(0.5, 1.5, len(pool)), kind="score",
                         model=None, params={})  # fmt: skip
    loaded = score_dataset(project, "pool", metric="gvendi", params=params, quality="w")
    streamed = score_dataset(project, "pool", metric="gvendi", params=params, quality="w",
                             memory_budget=1)  # fmt: skip
    assert streamed.details["streamed"] is True and "streamed" not in loaded.details
    weights = vectors.load(project, "pool", "w")[:, 0].astype(np.float64)
    for source, row in loaded.per_source.items():
        at, there = row["equal_n"], streamed.per_source[source]["equal_n"]
        assert (there["n"], there["of"], there["draws"]) == (at["n"], at["of"], at["draws"])
        assert there["mean"] == pytest.approx(at["mean"], rel=1e-5)
        assert there["sd"] == pytest.approx(at["sd"], rel=1e-4, abs=1e-9)
        if row["n"] > M:  # each draw weighted by the mean weight of its rows
            assert at["mean"] == pytest.approx(expected_at_m(project, source, 2.0, weights), 1e-5)


def test_a_draw_larger_than_the_budget_is_read_in_pieces(project, tmp_path: Path) -> None:
    rows = planted_vectors((50, 40, 30), dim=8, spread=0.3)[0]
    import_dataset(project, write_jsonl(tmp_path / "d.jsonl", qa_rows(len(rows))), name="d")
    vectors.write_matrix(project, "d", "g", rows, kind="gradient", model="planted", params={},
                         chunk_rows=16)  # fmt: skip
    info = vectors.get_set(project, "d", "g")
    drawn = np.arange(3, 120, 2)  # 59 rows: pieces of one 16-row chunk under a 1-byte budget
    for budget in (1, 2**30):
        score = streaming.stored_score(project, info, q=1.0, budget=budget)
        assert score(drawn) == pytest.approx(vendi.vendi_score(rows[drawn]), rel=1e-5)


def test_other_metrics_have_no_equal_n(project, tmp_path: Path) -> None:
    from vendiscope.core.plugin_host import PluginRegistry
    from vendiscope.core.plugin_host.manifest import Contribution, PluginManifest

    registry = PluginRegistry.discover()
    registry.add_manifest(PluginManifest("toy", (
        Contribution("metric", "count", "tests.core.metrics.test_scoring:CountMetric"),
    )))  # fmt: skip
    import_dataset(project, write_jsonl(tmp_path / "d.jsonl", qa_rows(60)), name="d")
    write_set(project, "d", "g", planted_vectors((30, 20, 10))[0])
    result = score_dataset(project, "d", metric="count", vector_set="g", registry=registry)
    assert result.per_source and all("equal_n" not in r for r in result.per_source.values())


# ----------------------------------------------------------------------------- subsets
def test_the_dataset_and_its_subsets_at_the_smallest_sets_size(project, pool) -> None:
    scored = {
        name: score_dataset(project, "pool", subset=name, params={"per_record": None})
        for name in ("spread", "lump")
    }
    names = [None, "spread", "lump"]
    found = compare_sets.scores_at_common_size(project, "pool", names,
                                               vector_set="gradients/planted")  # fmt: skip
    whole, spread, lump = found
    assert [f["n"] for f in found] == [20, 20, 20] and [f["of"] for f in found] == [978, 20, 20]
    for name, at in (("spread", spread), ("lump", lump)):  # sets of 20: their own score
        assert at["draws"] == 1 and at["mean"] == pytest.approx(scored[name].value, rel=1e-5)
    matrix = vectors.load(project, "pool", "gradients/planted")
    draws = equal_n.draw_positions(range(978), 20)
    expected = np.mean([vendi.vendi_score(matrix[d]) for d in draws])
    assert whole["draws"] == 5 and whole["mean"] == pytest.approx(expected, rel=1e-5)
    assert lump["mean"] < whole["mean"] < spread["mean"]
    streamed = compare_sets.scores_at_common_size(project, "pool", names, memory_budget=1,
                                                  vector_set="gradients/planted")  # fmt: skip
    for at, there in zip(found, streamed, strict=True):
        assert there["mean"] == pytest.approx(at["mean"], rel=1e-5)
