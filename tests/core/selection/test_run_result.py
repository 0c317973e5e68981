"""A selection run's typed result: stored with a schema version, read back by every reader,
results stored before the version key included; and the one budget rule on the job's route."""

from __future__ import annotations

import copy
import math
from typing import Any

import numpy as np
import pytest

from tests.core._planted import N_ROWS, planted_dataset
from vendiscope.core.base.errors import ProjectError
from vendiscope.core.selection.budget import BudgetError, check_budget
from vendiscope.core.selection.job import select_dataset
from vendiscope.core.selection.run_result import SCHEMA, SelectionResult
from vendiscope.core.store import subsets
from vendiscope.core.store.runs import recorded_run
from vendiscope.core.view_data.runs import selection_results, selection_runs
from vendiscope.gui.selection.data import state_of

OLD_RESULT: dict[str, Any] = {  # as the first selection runs stored it: no schema, no computed_on
    "dataset": "pool",
    "method": "greedy-vendi",
    "k": 3,
    "vector_set": "gradients/planted",
    "candidates": 180,
    "excluded": 20,
    "objective": {"name": "vendi_q1", "value": 2.75},
    "vendi": {"gradients/planted": 2.75},
    "random_vendi": {"gradients/planted": 1.5},
    "subset": "greedy-vendi-3",
    "run_id": 7,
    "seconds": 0.25,
    "curve": {
        "budgets": [1, 2, 3],
        "objective": [1.0, 1.9, 2.75],
        "objective_name": "vendi_q1",
        "vendi": {"gradients/planted": [1.0, 1.9, 2.75]},
        "random": {"gradients/planted": [1.0, 1.2, 1.5]},
        "kinds": {"gradients/planted": "gradient"},
    },
    "details": {"objective_name": "vendi_q1", "seed": 0},
}


@pytest.fixture
def labels(project, tmp_path) -> np.ndarray:
    return planted_dataset(project, tmp_path)


def test_an_old_stored_result_is_read_and_migrates() -> None:
    found = SelectionResult.from_json(OLD_RESULT)
    assert (found.k, found.method, found.n_candidates, found.excluded) == (
        3,
        "greedy-vendi",
        180,
        20,
    )
    assert found.computed_on == ""  # not kept then
    assert found.objective_name == "vendi_q1" and found.objective == 2.75
    assert found.vendi == OLD_RESULT["vendi"] and found.random_vendi == OLD_RESULT["random_vendi"]
    assert found.curve.budgets == [1, 2, 3] and found.curve.kinds == {
        "gradients/planted": "gradient"
    }
    stored = found.to_json()
    assert stored == {"schema": SCHEMA, **OLD_RESULT, "computed_on": ""}
    assert SelectionResult.from_json(stored) == found


def test_a_result_missing_a_field_is_refused_by_name_not_read_as_zero() -> None:
    for key in ("k", "candidates", "objective", "curve"):
        damaged = {k: v for k, v in OLD_RESULT.items() if k != key}
        with pytest.raises(ProjectError, match=f"selection run #7: its result has no '{key}'"):
            SelectionResult.from_json(damaged)
    wrong = {**OLD_RESULT, "k": "3"}
    with pytest.raises(ProjectError, match="selection run #7: its result's 'k' is '3', not int"):
        SelectionResult.from_json(wrong)
    curve = copy.deepcopy(OLD_RESULT)
    del curve["curve"]["budgets"]
    with pytest.raises(ProjectError, match="selection run #7's curve: its result has no 'budgets'"):
        SelectionResult.from_json(curve)
    with pytest.raises(ProjectError, match="schema 2; this version of Vendiscope reads schema 1"):
        SelectionResult.from_json({**OLD_RESULT, "schema": 2})
    no_objective = copy.deepcopy(OLD_RESULT)
    no_objective["objective"]["value"] = None  # a NaN stored as null
    assert math.isnan(SelectionResult.from_json(no_objective).objective)


def test_a_run_stores_its_versioned_result_and_every_reader_reads_it(project, labels) -> None:
    report = select_dataset(project, "pool", method="k-center", k=np.int64(12))
    assert type(report.k) is int and report.k == 12  # a NumPy integer, converted once
    stored = project.run(report.run_id).result
    assert stored["schema"] == SCHEMA and stored["k"] == 12
    assert SelectionResult.from_json(stored) == report.result
    (found,) = selection_results(project, "pool")
    assert found == report.result
    (row,) = selection_runs(project, "pool")
    assert row["k"] == 12 and row["candidates"] == N_ROWS and row["subset_exists"]
    (shown,) = state_of(project, "pool").runs
    assert (shown.k, shown.candidates, shown.subset_exists) == (12, N_ROWS, True)
    assert shown.vendi == report.result.curve.vendi and shown.budgets[-1] == 12


def test_an_old_stored_run_in_a_real_project_reaches_the_views_and_the_app(project, labels) -> None:
    with recorded_run(project, key="select:pool:old", kind="selection",
                      plugin="selector:greedy-vendi", dataset_id=project.dataset("pool").id,
                      params={"k": 3}, packages=()) as run:  # fmt: skip
        run.finish({**OLD_RESULT, "run_id": run.id})
    (found,) = selection_results(project, "pool")
    assert found.k == 3 and found.run_id == run.id and found.computed_on == ""
    (row,) = selection_runs(project, "pool")
    assert row["k"] == 3 and row["objective"] == {"name": "vendi_q1", "value": 2.75}
    assert row["subset_exists"] is False  # its subset is not in this project
    (shown,) = state_of(project, "pool").runs
    assert shown.k == 3 and shown.label == f"greedy-vendi k=3 (#{run.id})"


def test_the_budget_is_checked_against_the_candidates_left(project, labels) -> None:
    subsets.from_positions(project, "pool", "held-out", list(range(0, N_ROWS, 2)))
    left = N_ROWS - N_ROWS // 2
    with pytest.raises(BudgetError) as refused:
        select_dataset(project, "pool", method="random", k=left + 1, exclude=["held-out"])
    assert str(refused.value) == (
        f"k (the budget) must be a whole number between 1 and {left}, the number of candidate "
        f"rows ({N_ROWS} records less {N_ROWS // 2} left out); got {left + 1}"
    )
    report = select_dataset(project, "pool", method="random", k=left, exclude=["held-out"])
    assert report.k == left and report.result.n_candidates == left


def test_check_budget_is_one_rule() -> None:
    assert check_budget(np.int32(4), 10) == 4 and type(check_budget(np.int32(4), 10)) is int
    for bad in (0, 11, -1, 2.0, "3", True, None):
        with pytest.raises(BudgetError, match=r"^k \(the budget\) must be a whole number"):
            check_budget(bad, 10)
    assert issubclass(BudgetError, ProjectError) and issubclass(BudgetError, ValueError)
