"""Real studies started from the window: the dialog, the job in its child process, and the
monitor that follows it to the end; a study its pilot stops, and Run anyway.

The trainer is the built-in one on a tiny randomly initialised LM (3 steps a run), the pool
40 demo rows with tiny-LM gradients, the target 12 other demo rows.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from tests.gui.conftest import open_project, screenshot, wait_job
from tests.gui.test_study_dialog import quick
from vendiscope.core.base.jobs import CancelToken, RecordingProgress
from vendiscope.core.store import subsets
from vendiscope.core.store.project import Project
from vendiscope.gui.jobs.manager import JobState
from vendiscope.gui.study.dialog import StudyDialog
from vendiscope.gui.study.monitor import StudyMonitor

pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture
def location(study_project: Path) -> Path:
    """The 40-row pool with tiny-LM gradients, and a 12-row held-out target."""
    return study_project


def fill_dialog(fill: Callable[[StudyDialog], None], seen: list[StudyDialog]) -> None:
    """Once the Study dialog is up and has read the pool: ``fill`` it, then Start."""

    def poll() -> None:
        dialog = QApplication.activeModalWidget()
        if isinstance(dialog, StudyDialog) and dialog.facts is not None:
            seen.append(dialog)
            fill(dialog)
            assert dialog.start_button.isEnabled(), dialog.problem.text()
            dialog.start_button.click()
            return
        QTimer.singleShot(50, poll)

    QTimer.singleShot(50, poll)


def points(monitor: StudyMonitor) -> int:
    return sum(len(series["x"]) for series in monitor.chart.chart["series"])


@pytest.mark.slow
def test_a_study_started_from_the_dialog_runs_to_the_end_in_its_monitor(
    qtbot: Any, window: Any, location: Path, tiny_lm: Path
) -> None:
    from vendiscope.gui.study.launch import new_study

    open_project(qtbot, window, location)
    window.project_panel.select_dataset("pool")
    assert window.current_dataset() == "pool"
    assert window.actions_.study.isEnabled()
    jobs_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Jobs")
    texts = [a.text() for a in jobs_menu.actions()]
    assert texts.index("&Study…") == texts.index("&Fill gaps…") + 1

    def fill(dialog: StudyDialog) -> None:
        quick(dialog, tiny_lm)
        dialog.force.setChecked(True)  # a tiny random LM: the pilot may find only noise
        screenshot(dialog, "study-dialog-start")

    seen: list[StudyDialog] = []
    fill_dialog(fill, seen)
    job = new_study(window)
    assert seen and job is not None and job.kind == "study"
    monitor = window.tabs.currentWidget()
    assert isinstance(monitor, StudyMonitor) and monitor.job is job
    assert monitor.cancel_button.isEnabled() and not monitor.new_button.isEnabled()
    assert wait_job(qtbot, job, timeout=300_000).state == JobState.DONE, job.error_details
    qtbot.waitUntil(lambda: monitor.run is not None and monitor.run.status == "complete",
                    timeout=10_000)  # fmt: skip
    result = monitor.run.result
    assert len(result["runs"]) == result["runs_total"] == 10
    assert monitor.bar.value() == monitor.bar.maximum() == 10
    assert monitor.status.text() == "Finished: 10 training runs."
    assert "10 of 10 training runs" in monitor.note.text()
    # the scatter: one point per subset, for each metric the study scored
    assert monitor.chart_pages.currentWidget() is monitor.chart
    metrics = [monitor.metric_choice.itemData(i) for i in range(monitor.metric_choice.count())]
    assert metrics == ["g-vendi", "ngram"]  # the pool has no embeddings
    for index in range(len(metrics)):
        monitor.metric_choice.setCurrentIndex(index)
        assert points(monitor) == 5 and "Spearman" in monitor.chart.chart["title"]
    assert monitor.verdict.text() == result["analysis"]["improvement"]["verdict"]
    assert monitor.verdict.text()
    # the tables: a row per subset, a row per metric
    assert monitor.subsets.rowCount() == 5 and monitor.evidence.rowCount() == 2
    names = {monitor.subsets.item(r, 0).text() for r in range(5)}
    assert names == {s["name"] for s in result["plan"]["subsets"]}
    scores = {monitor.evidence.item(r, 0).text() for r in range(2)}
    assert scores == {"G-Vendi", "n-gram diversity"}
    assert monitor.evidence_title.text() == "Which score predicts the outcome (over 5 subsets)"
    assert not monitor.cancel_button.isEnabled() and not monitor.resume_button.isEnabled()
    assert monitor.new_button.isEnabled() and not monitor.force_button.isVisible()
    screenshot(window, "study-monitor-window")


@pytest.mark.slow
def test_a_study_its_pilot_stops_shows_why_and_run_anyway_finishes_it(
    qtbot: Any, window: Any, location: Path, tiny_lm: Path
) -> None:
    """Two subsets of the very same rows differ only by seed noise: the pilot says so."""
    from vendiscope.gui.study.launch import start

    with Project.open(location) as project:
        for name in ("same-a", "same-b"):
            subsets.from_positions(project, "pool", name, list(range(6)))
    open_project(qtbot, window, location)
    options = {
        "size": 6, "random": 0, "duplicates": 0, "existing": ["same-a", "same-b"], "seeds": 2,
        "pilot": 2, "trainer_params": {"model": str(tiny_lm), "steps": 3, "batch_size": 2,
                                       "device": "cpu"},
    }  # fmt: skip
    job = start(window, "pool", "held-out", options)
    monitor = window.tabs.currentWidget()
    assert isinstance(monitor, StudyMonitor) and monitor.job is job
    assert monitor.status.text().startswith("Waiting for the study to start")
    assert wait_job(qtbot, job, timeout=300_000).state == JobState.FAILED
    qtbot.waitUntil(lambda: monitor.refusal.isVisible(), timeout=10_000)
    assert job.property("error_shown")  # the monitor says it: no error dialog on top
    refusal = monitor.refusal.text()
    assert refusal.startswith("The study stopped after its pilot: ") and "seed" in refusal
    assert "--force" not in refusal and "Run anyway" in refusal
    assert monitor.status.text().startswith("Stopped after its pilot: 4 of 4 training runs")
    assert monitor.force_button.isVisible() and monitor.force_button.isEnabled()
    assert not monitor.resume_button.isEnabled()
    QApplication.processEvents()
    assert QApplication.activeModalWidget() is None
    screenshot(window, "study-monitor-refused")

    again = monitor.run_anyway()
    assert again is not None and monitor.job is again
    assert not monitor.force_button.isEnabled()
    assert wait_job(qtbot, again, timeout=300_000).state == JobState.DONE, again.error_details
    qtbot.waitUntil(lambda: monitor.run.status == "complete", timeout=10_000)
    assert not monitor.refusal.isVisible() and not monitor.force_button.isVisible()
    assert monitor.run.result["pilot"]["forced"] is True
    assert monitor.status.text() == "Finished: 4 training runs."
    assert monitor.chart_pages.currentWidget() is monitor.chart and points(monitor) == 2
    assert monitor.subsets.rowCount() == 2
    with Project.open(location) as project:
        from vendiscope.core.studies.reading import study_runs

        assert [r.status for r in study_runs(project, "pool")] == ["complete"]  # the same one


@pytest.mark.slow
def test_the_task_runs_a_study_and_the_monitor_follows_a_running_one(
    qtbot: Any, location: Path, tiny_lm: Path
) -> None:
    """The task in this process, then a study written run by run with the real store."""
    from vendiscope.core.store.runs import finish_run, start_run, update_result
    from vendiscope.gui.jobs import tasks
    from vendiscope.gui.windows.document import ProjectDocument

    options = {
        "size": 6, "random": 4, "duplicates": 1, "seeds": 2, "force": True, "name": "done",
        "trainer_params": {"model": str(tiny_lm), "steps": 3, "batch_size": 2,
                           "device": "cpu"},
    }  # fmt: skip
    progress = RecordingProgress()
    done = tasks.study(str(location), "pool", "held-out", options, progress=progress,
                       cancel=CancelToken())  # fmt: skip
    assert done.message == "Study 'done' finished: 10 of 10 training runs"
    assert any(d.startswith("run 1/10 (") for d in progress.descriptions), progress.descriptions
    with Project.open(location) as project:
        result = project.run(done.data["run_id"]).result
        live = start_run(
            project, key="study:pool:live", kind="study", plugin="core:study",
            dataset_id=project.dataset("pool").id,
            params={"pool": "pool", "target": "held-out", "name": "live",
                    "options": {**options, "name": "live"}},
        )  # fmt: skip

    document = ProjectDocument()
    document.open(str(location))
    try:
        monitor = StudyMonitor(document, "pool")
        qtbot.addWidget(monitor)
        monitor.resize(1050, 640)
        monitor.show()
        assert monitor.run is not None and monitor.run.id == live
        assert monitor.timer.isActive()  # a running study is re-read
        assert monitor.status.text() == "Running: making the plan."
        assert monitor.chart_pages.currentWidget() is monitor.chart_placeholder
        assert monitor.chooser.count() == 2  # the finished study and the running one

        first = result["runs"][:4]  # the pilot's first two subsets, both seeds
        partial = {**result, "name": "live", "runs": first, "analysis": None}
        partial.pop("stopped")
        with Project.open(location) as project:
            update_result(project, live, partial)
        qtbot.waitUntil(lambda: monitor.bar.value() == 4, timeout=10_000)
        last = f"run 4 ({first[-1]['subset']}, seed 2)"
        assert (
            monitor.status.text()
            == f"Running: 4 of 10 training runs done — now the run after {last}."
        )
        assert monitor.chart_pages.currentWidget() is monitor.chart and points(monitor) == 2
        assert monitor.verdict.text().startswith("Too few subsets have a finished run")
        assert [monitor.subsets.item(r, 4).text() for r in range(5)].count("2") == 2
        assert monitor.evidence.rowCount() == 0
        screenshot(monitor, "study-monitor-running")

        with Project.open(location) as project:
            finish_run(project, live, status="complete", result={**result, "name": "live"})
        qtbot.waitUntil(lambda: monitor.status.text() == "Finished: 10 training runs.",
                        timeout=10_000)  # fmt: skip
        assert points(monitor) == 5 and monitor.evidence.rowCount() == 2
        qtbot.waitUntil(lambda: not monitor.timer.isActive(), timeout=5_000)
        assert not monitor.cancel_button.isEnabled() and not monitor.resume_button.isEnabled()
    finally:
        document.close()


class CancelAt(RecordingProgress):
    """Cancels the job when it starts training run ``number`` (as the user's Cancel would)."""

    def __init__(self, cancel: CancelToken, number: int) -> None:
        super().__init__()
        self.cancel, self.prefix = cancel, f"run {number}/"

    def start(self, description: str, total: float | None = None, unit: str = "it") -> None:
        super().start(description, total, unit)
        if description.startswith(self.prefix):
            self.cancel.cancel()


@pytest.mark.slow
def test_a_cancelled_study_resumes_from_the_monitor(
    qtbot: Any, window: Any, location: Path, tiny_lm: Path
) -> None:
    from vendiscope.core.base.jobs import Cancelled
    from vendiscope.gui.jobs import tasks

    options = {
        "size": 6, "random": 4, "duplicates": 1, "seeds": 2, "force": True,
        "trainer_params": {"model": str(tiny_lm), "steps": 3, "batch_size": 2,
                           "device": "cpu"},
    }  # fmt: skip
    cancel = CancelToken()
    with pytest.raises(Cancelled):
        tasks.study(str(location), "pool", "held-out", options, progress=CancelAt(cancel, 3),
                    cancel=cancel)  # fmt: skip
    open_project(qtbot, window, location)
    monitor = window.open_view("study", "pool")
    assert isinstance(monitor, StudyMonitor) and monitor.run.status == "cancelled"
    assert monitor.status.text() == (
        "Cancelled: 2 of 10 training runs done. Resume goes on with the next run."
    )
    assert monitor.bar.value() == 2 and monitor.chart_pages.currentWidget() is monitor.chart
    assert monitor.resume_button.isEnabled() and not monitor.cancel_button.isEnabled()
    assert not monitor.force_button.isVisible()
    first = monitor.run.id

    job = monitor.resume()
    assert job is not None and monitor.job is job and not monitor.resume_button.isEnabled()
    assert monitor.cancel_button.isEnabled()
    assert wait_job(qtbot, job, timeout=300_000).state == JobState.DONE, job.error_details
    qtbot.waitUntil(lambda: monitor.run.status == "complete", timeout=10_000)
    assert monitor.run.id == first and len(monitor.run.result["runs"]) == 10
    assert "resumed after run 2" in job.result.message
    assert monitor.status.text() == "Finished: 10 training runs."
