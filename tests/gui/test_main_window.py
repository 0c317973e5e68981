"""The main window: start page, opening projects, the project tree, settings, drops."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QTimer, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QKeySequence
from PySide6.QtWidgets import QApplication

from tests.conftest import qa_rows, write_jsonl
from tests.gui.conftest import open_project, screenshot, wait_job
from vendiscope.gui.dialogs.import_dialog import ImportDialog
from vendiscope.gui.jobs.manager import JobState
from vendiscope.gui.windows.main_window import MainWindow
from vendiscope.gui.windows.settings import SETTINGS_VERSION


def tree_labels(window: MainWindow) -> dict[str, list[str]]:
    model = window.project_panel.model
    found: dict[str, list[str]] = {}
    for index in model.all_indexes():
        parent = index.parent()
        key = parent.data() if parent.isValid() else "<root>"
        found.setdefault(key, []).append(index.data())
    return found


def test_start_page_without_a_project(window: MainWindow) -> None:
    assert window.central.currentWidget() is window.start_page
    assert not window.actions_.import_.isEnabled()
    assert not window.pipeline.actions["embed"].isEnabled()
    assert window.actions_.new.shortcut().matches(QKeySequence(QKeySequence.StandardKey.New))
    assert window.actions_.open.shortcut() == QKeySequence(QKeySequence.StandardKey.Open)
    menus = [a.text().replace("&", "") for a in window.menuBar().actions()]
    assert menus == ["File", "View", "Views", "Jobs", "Plugins", "Help"]
    screenshot(window, "start-page")


def test_open_demo_builds_it_as_a_job_then_shows_the_tree(qtbot, window: MainWindow) -> None:
    job = window.files.open_demo()  # the demo path is a fresh temporary file
    assert job is not None
    wait_job(qtbot, job)
    assert job.state == JobState.DONE, job.error_details
    qtbot.waitUntil(lambda: window.document.is_open, timeout=10_000)
    labels = tree_labels(window)
    assert labels["<root>"] == ["demo"]
    assert labels["demo"] == ["Vector sets", "Runs", "Subsets"]
    assert labels["Runs"][-1] == "#1 import"  # the oldest; a shipped analysis adds more
    assert window.current_dataset() == "demo"
    assert window.pipeline.actions["embed"].isEnabled()
    # the demo opens on its story: records, diversity, map and selection (diversity in front)
    kinds = [window.tabs.widget(i).property("view_kind") for i in range(window.tabs.count())]
    assert kinds == ["records", "dashboard", "map", "selection"]
    assert window.central.currentWidget() is window.tabs
    assert window.tabs.currentWidget().property("view_kind") == "dashboard"
    assert "demo.vscope" in window.windowTitle()
    assert window.settings.recent_projects()[0].endswith("built-demo.vscope")


def test_views_open_once_per_dataset(qtbot, window: MainWindow, demo_project: Path) -> None:
    open_project(qtbot, window, demo_project)
    node = window.project_panel.current_node()
    window.activate_node(node)  # double-click on a dataset opens its records
    records = window.tabs.currentWidget()
    assert records.property("view_kind") == "records"
    assert window.open_view("records") is records
    dashboard = window.open_view("dashboard")
    assert window.tabs.count() == 2 and dashboard is not records
    qtbot.waitUntil(lambda: dashboard.summary is not None, timeout=20_000)
    records.select_position(3)
    window.tabs.setCurrentWidget(records)
    screenshot(window, "main-window-records")
    window.close_project()
    assert window.tabs.count() == 0
    assert window.central.currentWidget() is window.start_page
    assert window.start_page.recent.count() == 1


def test_recent_projects_and_layout_are_remembered(
    qtbot, window: MainWindow, demo_project: Path, settings
) -> None:
    open_project(qtbot, window, demo_project)
    window.jobs_dock.hide()
    window.save_layout()
    assert settings.qsettings.value("settings_version") in (SETTINGS_VERSION, str(SETTINGS_VERSION))
    again = MainWindow(settings)
    qtbot.addWidget(again)
    again.show()
    assert not again.jobs_dock.isVisible()
    assert again.start_page.recent.count() == 1
    again.files.open_location(settings.recent_projects()[0])
    assert again.document.location == str(demo_project.resolve())
    again.document.close()


def test_a_newer_settings_version_is_not_misapplied(qtbot, settings) -> None:
    settings.qsettings.setValue("settings_version", SETTINGS_VERSION + 1)
    settings.qsettings.setValue("window/state", b"garbage from the future")
    from vendiscope.gui.windows.settings import AppSettings

    newer = AppSettings(settings.qsettings)
    assert newer.newer_than_us and newer.window_state() is None
    window = MainWindow(newer)
    qtbot.addWidget(window)
    window.save_layout()  # writes nothing back over the newer settings
    assert settings.qsettings.value("window/state") == b"garbage from the future"


def test_dropping_a_data_file_opens_the_import_dialog(
    qtbot, window: MainWindow, demo_project: Path, tmp_path: Path
) -> None:
    open_project(qtbot, window, demo_project)
    data = write_jsonl(tmp_path / "dropped.jsonl", qa_rows(5))
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(data))])
    where = (Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton)
    enter = QDragEnterEvent(QPoint(400, 300), *where, Qt.KeyboardModifier.NoModifier)
    window.dragEnterEvent(enter)  # offscreen Qt delivers no synthetic drags: call the handlers
    assert enter.isAccepted()
    drop = QDropEvent(QPointF(400, 300), *where, Qt.KeyboardModifier.NoModifier)
    window.dropEvent(drop)
    assert drop.isAccepted()
    qtbot.waitUntil(lambda: isinstance(window.files.import_dialog, ImportDialog), timeout=5_000)
    dialog = window.files.import_dialog
    assert dialog.choices[0].path == str(data.resolve())
    dialog.reject()


def test_a_bad_project_file_is_reported_not_raised(qtbot, window: MainWindow, tmp_path) -> None:
    from vendiscope.gui.dialogs.error_dialog import ErrorDialog

    bogus = tmp_path / "notes.vscope"
    bogus.write_text("not a database")
    seen: list[str] = []

    def close_error() -> None:
        dialog = QApplication.activeModalWidget()
        if isinstance(dialog, ErrorDialog):
            seen.append(dialog.message)
            dialog.reject()

    QTimer.singleShot(100, close_error)
    assert not window.files.open_location(str(bogus))
    assert seen and "not a Vendiscope project" in seen[0]
    assert not window.document.is_open


def test_dark_palette_screenshots(qtbot, settings, demo_project: Path, tmp_path) -> None:
    """The window in a dark palette (colours come from the palette; look at the PNGs)."""
    from vendiscope.gui.widgets.style import dark_palette, is_dark

    app = QApplication.instance()
    light = app.palette()
    app.setPalette(dark_palette())
    try:
        window = MainWindow(settings)
        qtbot.addWidget(window)
        window.resize(1366, 768)
        window.show()
        open_project(qtbot, window, demo_project)
        assert is_dark()
        dashboard = window.open_view("dashboard")
        qtbot.waitUntil(lambda: dashboard.summary is not None, timeout=20_000)
        screenshot(window, "dark-dashboard")
        records = window.open_view("records")
        records.select_position(5)
        screenshot(window, "dark-records")
        window.document.close()
    finally:
        app.setPalette(light)


def test_keyboard_find_and_arrow_keys(qtbot, window: MainWindow, demo_project: Path) -> None:
    open_project(qtbot, window, demo_project)
    window.project_panel.tree.setFocus()
    qtbot.keyClick(window.project_panel.tree, Qt.Key.Key_Return)  # Enter opens the records
    view = window.tabs.currentWidget()
    assert view.property("view_kind") == "records"
    window.actions_.find.trigger()  # Ctrl+F
    assert view.filter_edit.hasFocus()
    view.table.setFocus()
    view.table.setCurrentIndex(view.model.index(0, 1))
    qtbot.keyClick(view.table, Qt.Key.Key_Down)
    assert view.detail.record is not None and view.detail.record.seq == 1


def test_export_through_the_dialog(qtbot, window: MainWindow, demo_project: Path, tmp_path) -> None:
    from vendiscope.gui.dialogs.export_dialog import ExportDialog

    open_project(qtbot, window, demo_project)
    target = tmp_path / "out.jsonl"

    def fill() -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, ExportDialog):
            QTimer.singleShot(20, fill)
            return
        dialog.destination.setText(str(target))
        dialog.accept()

    QTimer.singleShot(20, fill)
    job = window.files.export_data()
    assert job is not None
    wait_job(qtbot, job)
    assert job.state == JobState.DONE, job.error_details
    assert len(target.read_text().splitlines()) == 1245
    assert target.with_name("out.jsonl.manifest.json").exists()
