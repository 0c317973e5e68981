"""Subsets as first-class objects, filters, quality weights and diversity curves."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import table_counts
from tests.core._planted import N_ROWS, planted_dataset, write_set
from vendiscope.core.base.errors import ProjectError
from vendiscope.core.metrics import curves
from vendiscope.core.metrics.algorithms import vendi
from vendiscope.core.metrics.quality import quality_weights
from vendiscope.core.store import subsets
from vendiscope.core.store.filters import RecordFilter, ScoreCondition, matching_positions


@pytest.fixture
def pool(project, tmp_path) -> str:
    planted_dataset(project, tmp_path)
    return "pool"


def test_save_members_and_set_operations(project, pool) -> None:
    subsets.save(project, pool, "a", [5, 1, 9, 3], gains=[0.5, 0.4, 0.3, 0.2])
    subsets.save(project, pool, "b", [3, 7, 5])
    assert subsets.members(project, pool, "a").positions == [5, 1, 9, 3]
    assert subsets.members(project, pool, "a").gains == [0.5, 0.4, 0.3, 0.2]
    union = subsets.combine(project, pool, "union", ["a", "b"], "a|b")
    assert union.size == 5
    assert subsets.members(project, pool, "a|b").positions == [5, 1, 9, 3, 7]
    subsets.combine(project, pool, "intersection", ["a", "b"], "a&b")
    assert subsets.members(project, pool, "a&b").positions == [5, 3]
    assert subsets.members(project, pool, "a&b").gains == [0.5, 0.2]
    subsets.combine(project, pool, "difference", ["a", "b"], "a-b")
    assert subsets.members(project, pool, "a-b").positions == [1, 9]
    subsets.delete_subset(project, pool, "a-b")
    assert "a-b" not in {s.name for s in project.subsets(pool)}


def test_subset_errors_leave_project_unchanged(project, project_path, pool) -> None:
    subsets.save(project, pool, "a", [1, 2])
    before = table_counts(project_path)
    with pytest.raises(ProjectError, match="already has a subset named 'a'"):
        subsets.save(project, pool, "a", [3])
    with pytest.raises(ProjectError, match="positions must be unique"):
        subsets.save(project, pool, "c", [3, 3])
    with pytest.raises(ProjectError, match="position 5000 is out of range"):
        subsets.save(project, pool, "c", [3, 5000])
    with pytest.raises(ProjectError, match="operation must be one of"):
        subsets.combine(project, pool, "xor", ["a", "a"], "c")
    with pytest.raises(ProjectError, match="no subset named 'zz'"):
        subsets.combine(project, pool, "union", ["a", "zz"], "c")
    with pytest.raises(ProjectError, match="not valid"):
        subsets.save(project, pool, "bad\nname", [1])
    assert table_counts(project_path) == before
    replaced = subsets.save(project, pool, "a", [7, 8, 9], overwrite=True)
    assert replaced.size == 3 and subsets.members(project, pool, "a").positions == [7, 8, 9]


def test_subset_from_ids_positions_and_filter(project, pool) -> None:
    info = subsets.from_ids(project, pool, "by-id", ["pool-10", "pool-3", "pool-10"])
    assert subsets.members(project, pool, info.name).positions == [10, 3]
    with pytest.raises(ProjectError, match=r"1 of 2 ids match no record, e\.g\. 'nope'"):
        subsets.from_ids(project, pool, "by-id-2", ["pool-1", "nope"])
    subsets.from_positions(project, pool, "lasso", [4, 2, 4])
    assert subsets.members(project, pool, "lasso").positions == [4, 2]
    subsets.from_filter(project, pool, "q12", RecordFilter(contains="QUESTION 12 "))
    assert subsets.members(project, pool, "q12").positions == [12]
    with pytest.raises(ProjectError, match="no record of dataset 'pool' matches"):
        subsets.from_filter(project, pool, "none", RecordFilter(contains="100%_sure"))


def test_filter_by_source_and_score_condition(project, pool) -> None:
    scores = np.arange(N_ROWS, dtype=np.float32).reshape(-1, 1)
    write_set(project, pool, "scores/run-9", scores, kind="score")
    records = project.records(pool, 0, N_ROWS)
    by_source = matching_positions(project, pool, RecordFilter(source="c1"))
    assert by_source == [r.seq for r in records if r.source == "c1"]
    where = RecordFilter(source="c1", conditions=(ScoreCondition.parse("scores/run-9 >= 900"),))
    assert matching_positions(project, pool, where) == [p for p in by_source if p >= 900]
    assert where.describe() == "source = 'c1' and scores/run-9 >= 900"
    with pytest.raises(ProjectError, match="not of the form"):
        ScoreCondition.parse("scores/run-9 ~ 3")
    with pytest.raises(ProjectError, match="'abc' is not a number"):
        ScoreCondition.parse("scores/run-9 > abc")
    with pytest.raises(ProjectError, match="has 16 columns; a condition needs a one-column"):
        matching_positions(project, pool, RecordFilter(conditions=(
            ScoreCondition.parse("gradients/planted > 0"),)))  # fmt: skip


def test_quality_from_field_and_score_set(project, pool) -> None:
    weights = quality_weights(project, pool, "rating")
    assert weights.dtype == np.float64 and weights.tolist()[:6] == [1, 2, 3, 4, 5, 1]
    assert quality_weights(project, pool, "meta.score").tolist()[:4] == [0, 1, 2, 0]
    write_set(project, pool, "scores/run-1", np.full((N_ROWS, 1), 0.5, np.float32), kind="score")
    assert set(quality_weights(project, pool, "scores/run-1").tolist()) == {0.5}
    with pytest.raises(ProjectError, match="no vector set or record field of that name"):
        quality_weights(project, pool, "stars")
    with pytest.raises(ProjectError, match="field 'prompt': quality must be a number"):
        quality_weights(project, pool, "prompt")
    bad = np.ones((N_ROWS, 1), np.float32)
    bad[17] = -1
    write_set(project, pool, "scores/run-2", bad, kind="score")
    with pytest.raises(ProjectError, match="record 17 has a negative weight"):
        quality_weights(project, pool, "scores/run-2")


def test_budget_points_and_prefix_vendi_match_direct_scores() -> None:
    assert curves.budget_points(1) == [1]
    points = curves.budget_points(500)
    assert points[0] == 1 and points[-1] == 500 and points == sorted(set(points))
    assert len(points) <= curves.CURVE_POINTS
    rng = np.random.default_rng(3)
    matrix = rng.normal(size=(300, 8)).astype(np.float32)
    order = rng.permutation(300)[:120]
    budgets = [1, 5, 8, 50, 120]
    values = curves.prefix_vendi(matrix, order, budgets)
    expected = [vendi.vendi_score(matrix[order[:b]]) for b in budgets]
    np.testing.assert_allclose(values, expected, rtol=1e-6)
    with pytest.raises(ValueError, match=r"outside 1\.\.120"):
        curves.prefix_vendi(matrix, order, [121])
