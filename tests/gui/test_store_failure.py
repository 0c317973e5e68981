"""A project file that fails under the app: one clear dialog, and nothing more written to it."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

from PySide6.QtWidgets import QApplication

from tests.gui.conftest import make_project, open_project, tiny_rows, wait_job
from vendiscope.gui.dialogs.error_dialog import ErrorDialog
from vendiscope.gui.jobs import tasks
from vendiscope.gui.jobs.manager import JobState
from vendiscope.gui.windows import store_guard

# Another program writes over the middle of the file (a sync client, a bad disk).
DAMAGE = """
import sqlite3, sys
path = sys.argv[1]
connection = sqlite3.connect(path)
page = connection.execute("PRAGMA page_size").fetchone()[0]
pages = connection.execute("PRAGMA page_count").fetchone()[0]
connection.close()
with open(path, "r+b") as handle:
    for number in range(2, pages):
        handle.seek(number * page)
        handle.write(b"\\x5a" * page)
"""


def damaged_project(tmp_path: Path) -> Path:
    location = make_project(tmp_path / "p.vscope", tiny_rows(400), name="tiny")
    connection = sqlite3.connect(location)
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    connection.close()
    return location


def store_dialogs(window) -> list[ErrorDialog]:
    return [d for d in window.findChildren(ErrorDialog) if d.objectName() == "storeFailureDialog"]


def test_a_job_on_a_damaged_file_shows_the_store_dialog_and_stops_writing(
    qtbot, window, tmp_path: Path
) -> None:
    location = damaged_project(tmp_path)
    open_project(qtbot, window, location)
    subprocess.run([sys.executable, "-c", DAMAGE, str(location)], check=True)

    export = window.jobs.submit(
        "Export tiny",
        tasks.export,
        str(location),
        "tiny",
        str(tmp_path / "out.jsonl"),
        kind="export",
        in_thread=True,
    )
    wait_job(qtbot, export)
    assert export.state == JobState.FAILED
    qtbot.waitUntil(lambda: bool(store_dialogs(window)), timeout=10_000)
    dialog = store_dialogs(window)[0]
    assert str(location) in dialog.message
    assert "running “Export tiny”" in dialog.message
    assert "vendiscope doctor" in dialog.message
    assert not window.document.writable
    assert "not written" in window.project_label.text()
    assert not any(a.isEnabled() for a in window.pipeline.actions.values())

    again = window.jobs.submit(
        "Export tiny again",
        tasks.export,
        str(location),
        "tiny",
        str(tmp_path / "out2.jsonl"),
        kind="export",
        in_thread=True,
    )
    wait_job(qtbot, again)
    assert again.state == JobState.FAILED
    assert "stopped writing" in str(again.error)
    assert not (tmp_path / "out2.jsonl").exists()
    dialog.close()


def test_a_store_error_escaping_a_slot_is_shown_not_printed(qtbot, window, tmp_path: Path) -> None:
    location = damaged_project(tmp_path)
    open_project(qtbot, window, location)
    store_guard.install_excepthook()
    try:
        raise sqlite3.DatabaseError("database disk image is malformed")
    except sqlite3.DatabaseError as error:
        sys.excepthook(type(error), error, error.__traceback__)
    qtbot.waitUntil(lambda: bool(store_dialogs(window)), timeout=10_000)
    assert "database disk image is malformed" in store_dialogs(window)[0].message
    assert not window.document.writable
    store_dialogs(window)[0].close()
    QApplication.processEvents()


def test_a_busy_project_is_reported_but_stays_writable(qtbot, window, tmp_path: Path) -> None:
    location = damaged_project(tmp_path)
    open_project(qtbot, window, location)
    assert window.store_guard.report(
        sqlite3.OperationalError("database is locked"), "saving a subset"
    )
    qtbot.waitUntil(lambda: bool(store_dialogs(window)), timeout=10_000)
    assert "Another program held the project" in store_dialogs(window)[0].message
    assert window.document.writable
    store_dialogs(window)[0].close()


def test_other_errors_are_not_store_failures(window) -> None:
    assert not window.store_guard.report(ValueError("no column holds text"), "importing")
