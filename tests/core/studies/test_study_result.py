"""A study's result is read typed, part-way or finished: what exists from the start is
required by name, what a later step adds reads as "not yet"."""

from __future__ import annotations

import pytest

from vendiscope.core.base.errors import ProjectError
from vendiscope.core.studies.run_result import StudyResult

STARTED = {"name": "study-1", "pool": "pool", "target": "held-out", "runs": []}


def test_a_study_just_started_has_nothing_planned_yet() -> None:
    study = StudyResult.from_json(STARTED, run_id=3)
    assert (study.name, study.pool, study.target, study.done) == ("study-1", "pool", "held-out", 0)
    assert study.runs_total is None and study.metrics == {} and study.notes == ()
    assert study.checkable == 0 and study.stopped is None and study.pilot_detail == ""


def test_a_study_part_way_reads_its_runs_metrics_and_pilot() -> None:
    stored = {
        **STARTED,
        "runs": [{"subset": "random-01", "seed": 0, "run": 1, "improvement": 0.2},
                 {"subset": "random-02", "seed": 1}],
        "runs_total": 10,
        "metrics": {"g-vendi": {"label": "G-Vendi"}, "lexical": {}},
        "notes": ["3 pool rows are also in the target"],
        "checkable": 4,
        "stopped": "refused",
        "pilot": {"detail": " seed noise swamps it ", "forced": False},
    }  # fmt: skip
    study = StudyResult.from_json(stored)
    assert [(r.number, r.subset, r.seed) for r in study.runs] == [
        (1, "random-01", 0), (2, "random-02", 1),
    ]  # fmt: skip
    assert study.runs[0].entry["improvement"] == pytest.approx(0.2)
    assert study.metrics == {"g-vendi": "G-Vendi", "lexical": "lexical"}
    assert study.runs_total == 10 and study.checkable == 4 and study.stopped == "refused"
    assert study.pilot_detail == "seed noise swamps it" and study.data is stored


def test_a_malformed_result_is_refused_by_name() -> None:
    with pytest.raises(ProjectError, match="study run #3: its result has no 'target'"):
        StudyResult.from_json({"name": "s", "pool": "p", "runs": []}, run_id=3)
    with pytest.raises(ProjectError, match="training run 1: its result has no 'seed'"):
        StudyResult.from_json({**STARTED, "runs": [{"subset": "random-01"}]})
    with pytest.raises(ProjectError, match="not a JSON object"):
        StudyResult.from_json(["runs"])
