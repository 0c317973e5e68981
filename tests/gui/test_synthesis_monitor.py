"""The synthesis monitor and its outputs: a run written with the real store, read live."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import write_jsonl
from tests.gui.conftest import open_project, screenshot
from vendiscope.core.store.project import Project
from vendiscope.core.store.runs import finish_run, start_run
from vendiscope.gui.synthesis.monitor import SynthesisMonitor
from vendiscope.gui.windows.document import ProjectDocument

NAME, ALL = "synth-1", "synth-1-all"


def _round(number: int, accepted_total: int, gvendi: float, baseline: float | None) -> dict:
    return {
        "round": number, "prompts": 4, "generated": 4, "parsed": 3, "duplicates": 0,
        "accepted": 2, "rejected": 2,
        "reasons": {"dense cluster": 1, "no JSON object": 1},
        "accepted_total": accepted_total, "generated_total": 3 * (number + 1),
        "gvendi": gvendi, "baseline": baseline, "reclustered": number == 0, "seconds": 1.5,
    }  # fmt: skip


def _result(rounds: list[dict], stopped: str | None = None) -> dict:
    last = rounds[-1] if rounds else {}
    return {
        "dataset": "demo", "name": NAME, "all": ALL, "filter": "sparse-cluster",
        "generator": "openai", "model": "tiny-model", "pool_rows": 1245, "pool_gvendi": 40.0,
        "budget": 4, "rounds": rounds,
        "rejects": [{"round": 0, "reason": "no JSON object", "text": "Sure! Here is an idea",
                     "detail": "the output holds no JSON object"}],
        "accepted": last.get("accepted_total", 0),
        "generated": last.get("generated_total", 0),
        "gvendi": last.get("gvendi"), "baseline": last.get("baseline"), "stopped": stopped,
    }  # fmt: skip


def _provenance(decision: str, reason: str, round_: int = 0) -> dict:
    return {
        "run": 1, "round": round_, "generator": "openai", "model": "tiny-model",
        "template": "instruction", "seeds": [3, 8], "cluster": 12, "decision": decision,
        "reason": reason,
    }  # fmt: skip


def _write_outputs(path: Path, tmp_path: Path) -> None:
    """``synth-1`` (the accepted) and ``synth-1-all`` (every usable output), imported."""
    from vendiscope.core.io.importing import import_dataset

    accepted = [
        {"prompt": "How do otters hold hands?", "response": "They link paws while asleep.",
         "synthesis": _provenance("accepted", "sparse cluster 12 (4 < median 7)")},
        {"prompt": "Name a lichen of the tundra.", "response": "Reindeer moss.",
         "synthesis": _provenance("accepted", "sparse cluster 5 (2 < median 7)")},
    ]  # fmt: skip
    rejected = [
        {"prompt": "What is 2 + 2?", "response": "4.",
         "synthesis": _provenance("rejected", "dense cluster 3 (19 >= median 7)")},
    ]  # fmt: skip
    with Project.open(path) as project:
        import_dataset(project, write_jsonl(tmp_path / f"{NAME}.jsonl", accepted), name=NAME)
        import_dataset(
            project, write_jsonl(tmp_path / f"{ALL}.jsonl", accepted + rejected), name=ALL
        )


def _start(path: Path) -> int:
    with Project.open(path) as project:
        return start_run(
            project,
            key=f"synthesis:demo:{NAME}",
            kind="synthesis",
            plugin="generator:openai",
            dataset_id=project.dataset("demo").id,
            params={"dataset": "demo", "name": NAME, "all": ALL,
                    "options": {"generator": "openai", "budget": 4, "name": NAME}},
        )  # fmt: skip


def _write(path: Path, run_id: int, status: str, result: dict) -> None:
    with Project.open(path) as project:
        finish_run(project, run_id, status=status, result=result)


@pytest.fixture
def document(demo_project: Path) -> Any:
    opened = ProjectDocument()
    opened.open(str(demo_project))
    yield opened
    opened.close()


def _series(monitor: SynthesisMonitor) -> dict[str, list[float]]:
    return {one["name"]: list(one["y"]) for one in monitor.chart.chart["series"]}


@pytest.mark.slow
def test_the_monitor_draws_the_curve_and_follows_the_run(
    qtbot: Any, demo_project: Path, document: ProjectDocument
) -> None:
    run_id = _start(demo_project)
    monitor = SynthesisMonitor(document, "demo")
    qtbot.addWidget(monitor)
    monitor.resize(1050, 640)
    monitor.show()
    assert monitor.run is not None and monitor.run.id == run_id
    assert monitor.chart_pages.currentWidget() is monitor.chart_placeholder
    assert monitor.timer.isActive()  # a running run is re-read
    assert "first round" in monitor.status.text()

    _write(demo_project, run_id, "running", _result([_round(0, 2, 40.8, 40.5)]))
    qtbot.waitUntil(lambda: monitor.rounds.rowCount() == 1, timeout=10_000)
    assert monitor.chart_pages.currentWidget() is monitor.chart
    series = _series(monitor)
    assert len(series) == 3  # with the filter, the unfiltered baseline, the pool alone
    assert [40.0, 40.8] in series.values() and [40.0, 40.5] in series.values()
    assert [40.0, 40.0] in series.values()
    assert monitor.rounds.item(0, 2).text() == "2"  # accepted
    assert "dense cluster (1)" in monitor.rounds.item(0, 6).text()
    assert "2 accepted of 3 usable outputs" in monitor.totals.text()

    rounds = [_round(0, 2, 40.8, 40.5), _round(1, 4, 41.6, None)]
    _write(demo_project, run_id, "complete", _result(rounds, stopped="budget"))
    qtbot.waitUntil(lambda: monitor.rounds.rowCount() == 2, timeout=10_000)
    series = _series(monitor)
    assert [40.0, 40.8, 41.6] in series.values()  # the baseline is not longer: none there
    assert [40.0, 40.5] in series.values()
    assert monitor.status.text() == "Finished: the budget of accepted examples was reached."
    qtbot.waitUntil(lambda: not monitor.timer.isActive(), timeout=5_000)
    assert not monitor.cancel_button.isEnabled() and not monitor.resume_button.isEnabled()


def test_the_outputs_list_accepted_and_rejected_with_reasons(
    qtbot: Any, demo_project: Path, document: ProjectDocument, tmp_path: Path
) -> None:
    _write_outputs(demo_project, tmp_path)
    run_id = _start(demo_project)
    _write(demo_project, run_id, "cancelled", _result([_round(0, 2, 40.8, 40.5)]))
    document.refresh()
    monitor = SynthesisMonitor(document, "demo")
    qtbot.addWidget(monitor)
    monitor.show()
    browser = monitor.outputs
    qtbot.waitUntil(lambda: browser.model.rowCount() == 4, timeout=10_000)
    shown = browser.shown_outputs()
    assert [o.decision for o in shown] == ["Accepted", "Accepted", "Rejected", "Rejected"]
    assert shown[0].reason == "sparse cluster 12 (4 < median 7)" and shown[0].dataset == ALL
    assert shown[2].reason.startswith("dense cluster 3") and "2 + 2" in shown[2].text
    assert shown[3].reason == "no JSON object" and shown[3].dataset is None
    assert browser.counts.text() == "2 accepted, 2 rejected"

    browser.shown.setCurrentIndex(browser.shown.findData("rejected"))
    assert [o.reason for o in browser.shown_outputs()] == [
        "dense cluster 3 (19 >= median 7)",
        "no JSON object",
    ]
    browser.table.setCurrentIndex(browser.proxy.index(0, 0))
    details = browser.details.toPlainText()
    assert details.startswith("Rejected: dense cluster 3") and "What is 2 + 2?" in details
    assert "round 1" in details and "cluster 12" in details
    browser.table.setCurrentIndex(browser.proxy.index(1, 0))
    assert browser.details.toPlainText().startswith(
        "Rejected: no JSON object\nThe output holds no JSON object\nround 1 · not saved"
    )
    browser.shown.setCurrentIndex(browser.shown.findData("accepted"))
    assert {o.decision for o in browser.shown_outputs()} == {"Accepted"}
    assert "Cancelled after 1 round." in monitor.status.text()
    assert not monitor.resume_button.isEnabled()  # no window to start the job in


@pytest.mark.slow
def test_the_monitor_in_the_window_offers_resume_and_open(
    qtbot: Any, window: Any, demo_project: Path, tmp_path: Path
) -> None:
    _write_outputs(demo_project, tmp_path)
    run_id = _start(demo_project)
    rounds = [_round(0, 2, 40.8, 40.5), _round(1, 4, 41.6, 40.9)]
    _write(demo_project, run_id, "cancelled", _result(rounds))
    open_project(qtbot, window, demo_project)
    dashboard = window.open_view("dashboard", "demo")
    qtbot.waitUntil(lambda: dashboard.summary is not None, timeout=20_000)
    assert dashboard.fill_button.isVisible() and dashboard.fill_button.isEnabled()
    assert window.actions_.fill_gaps.isEnabled()
    screenshot(window, "dashboard-fill-gaps")
    monitor = window.open_view("synthesis", "demo")
    assert isinstance(monitor, SynthesisMonitor)
    qtbot.waitUntil(lambda: monitor.outputs.model.rowCount() == 4, timeout=10_000)
    assert monitor.resume_button.isEnabled() and monitor.open_button.isEnabled()
    assert not monitor.cancel_button.isEnabled()
    screenshot(window, "synthesis-monitor-window")
    monitor.open_dataset()
    assert window.tabs.currentWidget().property("dataset") == NAME


@pytest.mark.slow
@pytest.mark.parametrize(
    ("where", "expected"),
    [
        ("pool", "127.0.0.1:9"),  # gradients of this version: the server is the problem
        ("demo", "127.0.0.1:9"),  # the demo's bundled gradients are current: the same
    ],
)
def test_a_job_that_cannot_start_says_why_in_the_monitor(
    qtbot: Any, window: Any, demo_project: Path, synthesis_pool: Path, tmp_path: Path,
    where: str, expected: str,
) -> None:  # fmt: skip
    import shutil

    from tests.gui.conftest import wait_job
    from vendiscope.gui.jobs.manager import JobState
    from vendiscope.gui.synthesis.launch import start

    if where == "pool":
        path = tmp_path / "pool.vscope"
        shutil.copy(synthesis_pool, path)
    else:
        path = demo_project
    open_project(qtbot, window, path)
    options = {
        "generator": "openai",
        "generator_params": {"base_url": "http://127.0.0.1:9/v1", "model": "tiny-model"},
        "budget": 2,
        "name": "synth-x",
    }
    job = start(window, where, options)
    monitor = window.tabs.currentWidget()
    assert isinstance(monitor, SynthesisMonitor) and monitor.job is job
    assert monitor.status.text().startswith("Waiting for the job to start")
    assert monitor.cancel_button.isEnabled() and not monitor.new_button.isEnabled()
    assert wait_job(qtbot, job, timeout=120_000).state == JobState.FAILED
    text = monitor.status.text()
    assert text.startswith("Could not start: ") and expected in text, text
    assert not monitor.cancel_button.isEnabled() and monitor.new_button.isEnabled()
