"""The project panel: an empty project says how to import, vector sets explain themselves."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QFileDialog

from tests.gui.conftest import open_project, screenshot
from vendiscope.gui.windows.main_window import MainWindow


def test_an_empty_project_says_how_to_import_and_offers_a_button(
    qtbot, window: MainWindow, tmp_path: Path
) -> None:
    panel = window.project_panel
    assert window.files.open_location(str(tmp_path / "empty.vscope"), create=True)
    qtbot.waitUntil(lambda: panel.stack.currentWidget() is panel.empty, timeout=10_000)
    text = panel.empty_label.text()
    assert "File &gt; Import data… (Ctrl+I)" in text and "drag a data file" in text
    assert "vendiscope import empty.vscope FILE" in text
    assert panel.import_button.isVisible()
    screenshot(window, "empty-project")

    seen: list[str] = []

    def close_the_file_dialog() -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, QFileDialog):
            QTimer.singleShot(20, close_the_file_dialog)
            return
        seen.append(dialog.windowTitle())
        dialog.reject()

    QTimer.singleShot(20, close_the_file_dialog)
    panel.import_button.click()  # what File > Import data… does: choose the files
    assert seen == ["Import data files"]


def test_vector_sets_show_their_whole_name_kind_size_and_status_in_a_tooltip(
    qtbot, window: MainWindow, demo_project: Path
) -> None:
    panel = window.project_panel
    open_project(qtbot, window, demo_project)
    assert panel.stack.currentWidget() is panel.tree
    model = panel.model
    found = {
        model.node(i).label: i
        for i in model.all_indexes()
        if model.node(i) is not None and model.node(i).kind == "vector_set"
    }
    index = found["sentence-transformers/prompt+response"]
    for column in (0, 1):
        tip = index.siblingAtColumn(column).data(Qt.ItemDataRole.ToolTipRole)
        assert tip.splitlines()[0] == "sentence-transformers/prompt+response"
        assert "kind: embedding (sentence embeddings)" in tip
        assert "rows: 1,245 · dimensions: 384" in tip and "status: complete" in tip
    assert panel.tree.textElideMode() == Qt.TextElideMode.ElideMiddle  # both ends stay
    panel.tree.expandAll()
    screenshot(window, "project-tree")


def test_the_central_page_of_an_empty_project_says_how_to_import(qtbot) -> None:
    from vendiscope.gui.windows.start_page import NoViewsPage

    page = NoViewsPage()
    qtbot.addWidget(page)
    page.show()
    page.update_for("/data/audit.vscope", 0)
    assert page.hint.text().startswith("This project has no datasets yet. Import one")
    assert page.command.text() == "vendiscope import audit.vscope FILE"
    assert page.import_button.isVisible()
    with qtbot.waitSignal(page.import_requested, timeout=1_000):
        page.import_button.click()
    page.update_for("/data/audit.vscope", 2)  # datasets: how to open their views instead
    assert page.hint.text().startswith("Double-click a dataset")
    assert not page.import_button.isVisible() and not page.command.isVisible()


def test_the_window_shows_that_page_for_an_empty_project(qtbot, window, tmp_path) -> None:
    from vendiscope.core.store.project import Project

    location = tmp_path / "audit.vscope"
    Project.create(location).close()
    assert window.files.open_location(str(location))
    qtbot.waitUntil(lambda: window.central.currentWidget() is window.empty_tabs)
    page = window.empty_tabs
    assert "no datasets yet" in page.hint.text()
    assert page.command.text() == "vendiscope import audit.vscope FILE"
    assert not page.import_button.isHidden()
