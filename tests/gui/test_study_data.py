"""The Qt-free texts of the Study workflow: defaults, the estimate, the states of a study."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from vendiscope.core.store.models import RunInfo
from vendiscope.gui.study import data


def run(status: str, result: dict[str, Any] | None, error: str | None = None) -> RunInfo:
    """A study run as the store reads it back."""
    return RunInfo(
        id=7, key="study:pool:study-1", kind="study", plugin="core:study", dataset_id=1,
        params={"pool": "pool", "target": "held-out", "name": "study-1",
                "options": {"size": 6, "seeds": 2, "name": "study-1"}},
        versions={}, seed=0, status=status, result=result, error=error,
        started_at=datetime(2026, 12, 2, 3, 4), finished_at=None,
    )  # fmt: skip


def test_the_default_subset_size_is_a_quarter_of_the_pool_at_most_500() -> None:
    assert [data.default_size(n) for n in (0, 3, 40, 1999, 2000, 100_000)] == [
        1, 1, 10, 499, 500, 500,
    ]  # fmt: skip
    assert data.target_choices(["a", "pool", "b"], "pool") == ["a", "b"]


def test_the_estimate_reads_as_sentences_naming_the_apps_menus() -> None:
    summary = {
        "plan": "5 subsets of 6 rows: 4 random, 1 duplicate-heavy",
        "runs": 10,
        "cost": {"text": "about 2 h 10 min here: 120 runs of 62 s, plus 4 min once"},
        "target_rows": 12,
        "checkable": 3,
        "notes": ["3 pool rows are also in the target and never enter a subset"],
    }
    assert data.estimate_text(summary).splitlines() == [
        "5 subsets of 6 rows: 4 random, 1 duplicate-heavy.",
        "It would take about 2 h 10 min here: 120 runs of 62 s, plus 4 min once.",
        "Each model is scored on 12 target rows, 3 with an answer to check (accuracy).",
        "3 pool rows are also in the target and never enter a subset.",
    ]
    note = "embedding-Vendi skipped: no embeddings; run `vendiscope embed` first"
    assert data.app_note(note) == (
        "Embedding-Vendi skipped: no embeddings; compute them first (Jobs > Compute embeddings…)."
    )


def test_each_state_of_a_study_says_where_it_stands() -> None:
    assert data.status_text(None).startswith("Waiting for the study to start")
    assert data.status_text(run("running", None)) == "Running: making the plan."
    runs = [{"subset": "random-01", "seed": 0, "run": 1}, {"subset": "random-02", "seed": 1,
                                                           "run": 2}]  # fmt: skip
    going = {"name": "study-1", "pool": "pool", "target": "held-out", "runs": runs,
             "runs_total": 10}  # fmt: skip
    assert data.last_run_text(going) == "run 2 (random-02, seed 2)"
    assert data.status_text(run("running", going), "run 3/10 (random-03, seed 1): training") == (
        "Running: 2 of 10 training runs done — now run 3/10 (random-03, seed 1): training."
    )
    assert data.status_text(run("cancelled", going)) == (
        "Cancelled: 2 of 10 training runs done. Resume goes on with the next run."
    )
    failed = run("failed", going, "ProjectError('the trainer ran out of memory')")
    assert data.status_text(failed).startswith(
        "Failed (2 of 10 training runs done): the trainer ran out of memory."
    )
    assert not data.refused(failed)
    pilot = {"detail": "on 2 pilot subsets, another seed moved an outcome by 0.2", "forced": False}
    stopped = run("failed", {**going, "stopped": "refused", "pilot": pilot}, "StudyRefused(...)")
    assert data.refused(stopped)
    assert data.status_text(stopped) == "Stopped after its pilot: 2 of 10 training runs done."
    assert data.refusal_text(stopped) == (
        "The study stopped after its pilot: on 2 pilot subsets, another seed moved an outcome "
        "by 0.2. Run anyway goes on (the pilot's runs are kept), or start a study with another "
        "plan."
    )
    assert data.run_label(stopped) == (
        "study-1 · scored on held-out · 2 of 10 runs · refused after its pilot · 2026-12-02 03:04"
    )
    assert data.run_options(stopped, force=True) == {"size": 6, "seeds": 2, "name": "study-1",
                                                     "force": True}  # fmt: skip
    assert data.run_names(stopped) == ("pool", "held-out", "study-1")


def test_no_result_yet_gives_empty_tables_and_no_chart() -> None:
    assert data.chart({}, "g-vendi") is None and data.chart(None, None) is None
    assert data.subset_table(None)[1] == [] and data.evidence_table({}) == []
    assert data.verdict_text({}) == "" and data.note_text(None) == ""
    started = {"name": "study-1", "pool": "pool", "target": "held-out", "runs": []}
    assert data.outcome_choices({**started, "checkable": 4})[1] == (
        "accuracy_gain", "Target accuracy gain",
    )  # fmt: skip
    assert data.outcome_choices({}) == [("improvement", "Target loss improvement")]
    assert data.outcome_choices(started) == [("improvement", "Target loss improvement")]
    assert data.number(None) == "" and data.number(float("nan")) == ""
    assert data.p_value(0.0001) == "< 0.001" and data.p_value(0.25) == "0.250"


def test_a_study_of_more_than_a_day_says_how_to_make_it_shorter() -> None:
    from vendiscope.core.studies.algorithms.feasibility import cheaper_plan, study_cost

    def cost(runs: int, per_run: float) -> Any:
        return study_cost(runs, seconds_per_run=per_run, one_time_seconds=400.0, n_examples=6,
                          n_distinct=6, n_target=20_000, measured="")  # fmt: skip

    assert cheaper_plan(cost(96, 600.0), 20_000) is None  # 16 hours: within a day
    longer = cheaper_plan(cost(96, 29_600.0), 20_000)  # the user's 32.9 days
    assert longer is not None and (longer.runs_in_a_day, longer.target_rows) == (1, 500)
    assert data.too_long_text(longer.to_json()) == (
        "That is more than a day. To bring it within one, score on 500 target rows instead of "
        "20,000 (Target rows: every run scores each of them) or plan fewer training runs: "
        "about 1 of the 96 fit in a day (fewer subsets or seeds)."
    )
    on_a_sample = cheaper_plan(cost(96, 90_000.0), 500)
    assert on_a_sample is not None and on_a_sample.target_rows is None
    assert "shorten each run: not even one fits in a day" in data.too_long_text(
        on_a_sample.to_json()
    )
    assert data.long_study_question(on_a_sample.to_json()).startswith(
        "The estimate says this study would take about 101.0 days on this computer. To bring "
    )
