"""The import dialog: preview, detected mapping the user corrects, import as a job, errors."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt

from tests.conftest import write_jsonl
from tests.gui.conftest import open_project, screenshot, wait_job
from vendiscope.gui.jobs.manager import JobState


def rows(n: int) -> list[dict]:
    return [
        {
            "question": f"What is the capital of country number {i}?",
            "answer": f"City {i}.",
            "topic": ["geography", "history"][i % 2],
        }
        for i in range(n)
    ]


def open_dialog(qtbot, window, path: Path):
    dialog = window.files.import_data([str(path)])
    qtbot.addWidget(dialog)
    qtbot.waitUntil(
        lambda: dialog.current().preview is not None or bool(dialog.current().error), timeout=20_000
    )
    return dialog


def test_import_with_a_corrected_mapping(qtbot, window, demo_project: Path, tmp_path) -> None:
    open_project(qtbot, window, demo_project)
    data = write_jsonl(tmp_path / "capitals.jsonl", rows(30))
    dialog = open_dialog(qtbot, window, data)
    editor = dialog.mapping_editor
    assert dialog.current().error is None, dialog.current().error
    assert dialog.current().preview.importer == "jsonl"
    assert (editor.spec("prompt"), editor.spec("response")) == ("question", "answer")
    assert editor.spec("source") is None  # "topic" is not a name detection knows
    assert dialog.raw_model.rowCount() == 20 and "topic" in dialog.raw_model.columns

    editor.combos["source"].setCurrentText("topic")  # the user corrects the guess
    assert dialog.mapped_model.columns == ["prompt", "response", "source"]
    assert dialog.mapped_model.rows[1][2] == "history"
    dialog.name_edit.clear()
    qtbot.keyClicks(dialog.name_edit, "capitals")
    assert dialog.import_button.isEnabled(), dialog.problems()
    screenshot(dialog, "import-dialog")

    qtbot.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)
    job = wait_job(qtbot, dialog.jobs[0])
    assert job.state == JobState.DONE, job.error_details
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=5_000)
    info = window.document.dataset("capitals")
    assert info is not None and info.row_count == 30
    assert info.field_mapping["roles"]["source"] == "topic"
    assert info.field_mapping["detected"] == "manual"
    assert window.project_panel.model.find_dataset("capitals").isValid()


def test_a_dataset_name_in_use_blocks_the_import(qtbot, window, demo_project, tmp_path) -> None:
    open_project(qtbot, window, demo_project)
    dialog = open_dialog(qtbot, window, write_jsonl(tmp_path / "x.jsonl", rows(5)))
    dialog.name_edit.clear()
    qtbot.keyClicks(dialog.name_edit, "demo")
    assert not dialog.import_button.isEnabled()
    assert any("already exists" in p for p in dialog.problems())


def test_a_bad_row_in_the_preview_is_named(qtbot, window, demo_project, tmp_path) -> None:
    open_project(qtbot, window, demo_project)
    data = write_jsonl(tmp_path / "broken.jsonl", rows(5))
    with data.open("ab") as handle:
        handle.write(b'{"question": "unterminated\n')
    dialog = open_dialog(qtbot, window, data)
    assert "line 6" in dialog.message.text() and "broken.jsonl" in dialog.message.text()


def test_an_import_error_late_in_the_file_shows_in_the_dialog(
    qtbot, window, demo_project, tmp_path
) -> None:
    open_project(qtbot, window, demo_project)
    data = write_jsonl(tmp_path / "late.jsonl", rows(400))
    with data.open("ab") as handle:
        handle.write(b"this is not json\n")
    dialog = open_dialog(qtbot, window, data)
    assert dialog.import_button.isEnabled(), dialog.problems()  # the preview looked fine
    qtbot.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)
    job = wait_job(qtbot, dialog.jobs[0])
    assert job.state == JobState.FAILED
    message = dialog.message.text()
    assert "late.jsonl" in message and "line 401" in message
    assert dialog.isVisible() and dialog.import_button.isEnabled()
    assert job.property("error_shown")  # the window does not pop a second dialog
    assert window.document.dataset("late") is None  # all or nothing


def test_a_missing_file_is_refused_before_anything(qtbot, window, demo_project, tmp_path) -> None:
    open_project(qtbot, window, demo_project)
    dialog = open_dialog(qtbot, window, tmp_path / "nowhere.jsonl")
    assert "no such file" in dialog.message.text()
    assert not dialog.import_button.isEnabled()


def test_importer_options_reread_the_file(qtbot, window, demo_project, tmp_path) -> None:
    open_project(qtbot, window, demo_project)
    data = tmp_path / "latin1.csv"
    data.write_bytes(
        (
            "question,answer\n" + "".join(f"Qu'est-ce que {i}?,Réponse {i}\n" for i in range(12))
        ).encode("latin-1")
    )
    dialog = open_dialog(qtbot, window, data)
    bad = dialog.current().preview.bad_rows  # read with the default encoding, UTF-8
    assert bad and "invalid UTF-8" in bad[0].message
    specs = {s.name for s in dialog.registry.describe("importer", "csv")}
    assert {"delimiter", "encoding"} <= specs  # the Options… form is built from these
    dialog.apply_options({"encoding": "latin-1"})
    qtbot.waitUntil(lambda: dialog.current().preview is not None, timeout=10_000)
    assert not dialog.current().preview.bad_rows
    assert dialog.mapped_model.rows[0][1] == "Réponse 0"
    dialog.name_edit.clear()
    qtbot.keyClicks(dialog.name_edit, "latin1")
    qtbot.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)
    job = wait_job(qtbot, dialog.jobs[0])
    assert job.state == JobState.DONE, job.error_details
    info = window.document.dataset("latin1")
    assert info is not None and info.row_count == 12
