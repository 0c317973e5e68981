"""A scoring run's typed result: stored with a schema version, read back by every reader,
results stored before the version key included."""

from __future__ import annotations

from typing import Any

import pytest

from tests.core._planted import planted_dataset
from vendiscope.core.base.errors import ProjectError
from vendiscope.core.metrics.run_result import SCHEMA, ScoreRunResult
from vendiscope.core.metrics.subset_scoring import SUBSET_KIND
from vendiscope.core.store.runs import recorded_run
from vendiscope.core.view_data.runs import score_summary
from vendiscope.gui.dashboard.data import _score
from vendiscope.gui.selection.compare_data import comparisons_of

OLD_RESULT: dict[str, Any] = {  # as the first scoring runs stored it: no schema, n in details
    "value": 12.5,
    "details": {"n": 50, "ci": [11.0, 14.0], "ci_level": 0.95},
    "per_source": {"c0": {"value": 3.0, "n": 12}},
}
OLD_SUBSET_RESULT: dict[str, Any] = {  # no schema, no computed_on, no per_record_set
    "value": 4.0,
    "n": 20,
    "details": {},
    "per_source": {},
    "subset": "picked",
    "vs_random": {"mean": 3.0, "draws": 5},
}


def test_an_old_stored_result_is_read_and_migrates() -> None:
    found = ScoreRunResult.from_json(OLD_RESULT)
    assert (found.value, found.n, found.computed_on) == (12.5, 50, "")
    assert found.per_source == {"c0": {"value": 3.0, "n": 12}}
    assert (found.per_record_set, found.subset, found.vs_random) == (None, None, None)
    subset = ScoreRunResult.from_json(OLD_SUBSET_RESULT)
    assert (subset.n, subset.subset, subset.vs_random) == (20, "picked", {"mean": 3.0, "draws": 5})
    assert ScoreRunResult.from_json({"value": 1.0, "n": 3, "details": None}).details == {}


def test_a_result_round_trips_with_its_schema() -> None:
    result = ScoreRunResult(
        value=2.5, n=40, computed_on="gradients/planted (gradient, 40 x 8)",
        details={"ci": [2.0, 3.0]}, per_source={"a": {"value": 1.5}},
        per_record_set="scores/run-3", subset="picked", vs_random={"mean": 2.0},
    )  # fmt: skip
    stored = result.to_json()
    assert stored["schema"] == SCHEMA
    assert ScoreRunResult.from_json(stored) == result


def test_a_result_missing_a_field_is_refused_by_name_not_read_as_zero() -> None:
    for key in ("value", "n"):
        damaged = {k: v for k, v in OLD_SUBSET_RESULT.items() if k != key}
        with pytest.raises(ProjectError, match=f"scoring run #7: its result has no '{key}'"):
            ScoreRunResult.from_json(damaged, run_id=7)
    current = ScoreRunResult(value=1.0, n=2).to_json()
    del current["computed_on"]
    with pytest.raises(ProjectError, match="has no 'computed_on'"):
        ScoreRunResult.from_json(current)
    with pytest.raises(ProjectError, match="'n' is '3', not int"):
        ScoreRunResult.from_json({**OLD_SUBSET_RESULT, "n": "3"})
    with pytest.raises(ProjectError, match="schema 2"):
        ScoreRunResult.from_json({**current, "schema": 2})
    with pytest.raises(ProjectError, match="not a JSON object"):
        ScoreRunResult.from_json(None)


def test_old_stored_runs_in_a_real_project_reach_the_views_and_the_app(project, tmp_path) -> None:
    planted_dataset(project, tmp_path)
    params = {"metric": "gvendi", "vector_set": "gradients/planted", "params": {"q": 1.0}}
    dataset_id = project.dataset("pool").id
    with recorded_run(project, key="score:old", kind="metric", plugin="metric:vendi",
                      dataset_id=dataset_id, params=params, packages=()) as run:  # fmt: skip
        run.finish(OLD_RESULT)
    with recorded_run(project, key="score:old:subset", kind=SUBSET_KIND, plugin="metric:vendi",
                      dataset_id=dataset_id, params={**params, "subset": "picked"},
                      packages=()) as subset_run:  # fmt: skip
        subset_run.finish(OLD_SUBSET_RESULT)
    summary = score_summary(project, "pool", "gvendi")
    assert (summary["n"], summary["value"], summary["fraction"]) == (50, 12.5, 12.5 / 50)
    assert summary["per_source"] == OLD_RESULT["per_source"]
    (comparison,) = comparisons_of(project, "pool")
    whole, picked = comparison.rows
    assert (whole.n, whole.ci, picked.n, picked.subset) == (50, (11.0, 14.0), 20, "picked")
    assert picked.random == {"mean": 3.0, "draws": 5}
    shown = _score(project.runs("pool"), "gvendi")
    assert shown is not None and (shown.n, shown.value) == (50, 12.5)
