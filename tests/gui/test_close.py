"""Closing the window while a job runs: it asks, and on yes cancels, waits, leaves it sound."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QMessageBox

from tests.gui.conftest import answer_message_box, make_project, open_project, tiny_rows
from vendiscope.core.store import vectors
from vendiscope.core.store.project import Project
from vendiscope.core.weights import bundled as bundled_models
from vendiscope.gui.jobs.manager import JobState


@pytest.mark.slow
@pytest.mark.skipif(bundled_models.sentence_encoder_dir() is None, reason="needs MiniLM")
def test_closing_with_a_running_job_asks_then_cancels(qtbot, window, tmp_path) -> None:
    path = make_project(tmp_path / "closing.vscope", tiny_rows(160), name="many")
    open_project(qtbot, window, path)
    job = window.pipeline.submit("embed", "many", chunk_rows=8)
    qtbot.waitUntil(lambda: job.status.completed > 0, timeout=180_000)

    asked: list[str] = []
    answer_message_box(QMessageBox.StandardButton.No, asked)
    assert not window.close()  # "keep working"
    assert asked and "Embeddings of many" in asked[0]
    assert window.isVisible() and job.state == JobState.RUNNING

    answer_message_box(QMessageBox.StandardButton.Yes, asked)
    assert window.close()
    assert len(asked) == 2
    assert job.state == JobState.CANCELLED
    assert not window.document.is_open
    with Project.open(path) as project:
        assert project.integrity_check() == "ok"
        (found,) = vectors.list_sets(project, "many")
        assert found.status != vectors.COMPLETE  # nothing half-written is marked complete
        assert [r.status for r in project.runs("many") if r.kind == "embedding"] == ["cancelled"]


def test_closing_without_jobs_does_not_ask(qtbot, window, small_project) -> None:
    open_project(qtbot, window, small_project)
    assert window.close()
    assert not window.document.is_open
