"""A synthesis run's result is read typed, part-way or finished: the names exist from the
start, totals and rounds arrive with the first round, a malformed round is refused by name."""

from __future__ import annotations

import pytest

from vendiscope.core.base.errors import ProjectError
from vendiscope.core.synthesis.run_result import SynthesisResult

STARTED = {"dataset": "pool", "name": "synth-1", "all": "synth-1-all", "pool_rows": 40}


def test_a_run_just_started_has_no_rounds_yet() -> None:
    found = SynthesisResult.from_json(STARTED, run_id=4)
    assert (found.dataset, found.name, found.all_name) == ("pool", "synth-1", "synth-1-all")
    assert found.rounds == () and found.accepted == 0 and found.gvendi is None


def test_rounds_and_totals_are_read_by_name() -> None:
    stored = {
        **STARTED, "budget": 20, "accepted": 3, "generated": 8, "stopped": "budget",
        "pool_gvendi": 23.25, "gvendi": 25.5, "baseline": None,
        "rounds": [{"round": 0, "generated": 8, "duplicates": 1, "accepted": 3, "rejected": 5,
                    "reasons": {"truncated": 4}, "gvendi": 25.5, "baseline": None}],
    }  # fmt: skip
    found = SynthesisResult.from_json(stored)
    (first,) = found.rounds
    assert (first.number, first.usable, first.reasons) == (0, 7, {"truncated": 4})
    assert found.budget == 20 and found.stopped == "budget" and found.baseline is None
    assert found.gvendi == pytest.approx(25.5) and found.pool_gvendi == pytest.approx(23.25)


def test_a_malformed_result_is_refused_by_name() -> None:
    with pytest.raises(ProjectError, match="synthesis run #4: its result has no 'name'"):
        SynthesisResult.from_json({"dataset": "pool"}, run_id=4)
    broken = {**STARTED, "rounds": [{"generated": 8, "rejected": 5}]}
    with pytest.raises(ProjectError, match="round 1: its result has no 'accepted'"):
        SynthesisResult.from_json(broken)
