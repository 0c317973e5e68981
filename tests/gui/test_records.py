"""The records view: a virtual table over 50,000 records, pages on demand, filter, detail."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from tests.gui.conftest import open_project, screenshot
from vendiscope.core.store.migrate import copy_project
from vendiscope.gui.records.model import CACHE_PAGES, PAGE_ROWS, RECORD_ROLE, RecordsTableModel
from vendiscope.gui.windows.document import ProjectDocument


@pytest.fixture
def large_project(large_template: Path, tmp_path: Path) -> Path:
    return copy_project(large_template, tmp_path / "large.vscope")


@pytest.fixture
def document(large_project: Path):
    opened = ProjectDocument()
    opened.open(str(large_project))
    yield opened
    opened.close()


def test_rows_at_a_deep_offset_come_from_one_page(document) -> None:
    model = RecordsTableModel(document, "large")
    assert model.rowCount() == 50_000
    assert model.columnCount() == 4
    deep = model.index(45_123, 1)
    assert deep.data() == "Tell me one fact about tea (number 45123)."
    assert model.index(45_123, 0).data() == "45,123"
    assert model.index(45_123, 2).data() == "Fact 45123 about tea."
    assert model.index(45_123, 3).data() == "d3"
    assert model.pages_fetched == 1  # never loads all rows
    record = model.index(45_199, 1).data(RECORD_ROLE)
    assert record.seq == 45_199 and model.pages_fetched == 1  # same page, from the cache
    assert model.index(45_200, 1).data(RECORD_ROLE).seq == 45_200
    assert model.pages_fetched == 2


def test_the_page_cache_is_bounded(document) -> None:
    model = RecordsTableModel(document, "large")
    for page in range(CACHE_PAGES + 10):
        model.record(page * PAGE_ROWS)
    assert len(model._pages) == CACHE_PAGES
    fetched = model.pages_fetched
    model.record(0)  # evicted long ago: read again
    assert model.pages_fetched == fetched + 1


def test_an_order_maps_rows_to_positions(document) -> None:
    import numpy as np

    model = RecordsTableModel(document, "large")
    model.set_filter(np.array([7, 49_999, 30_000], dtype=np.int64))
    assert model.rowCount() == 3
    assert [model.record(r).seq for r in range(3)] == [7, 49_999, 30_000]
    model.sort(0, Qt.SortOrder.DescendingOrder)
    assert [model.position(r) for r in range(3)] == [30_000, 49_999, 7]
    assert model.row_of_position(49_999) == 1
    model.set_filter(None)
    assert model.rowCount() == 50_000 and model.position(0) == 49_999


def test_filter_and_detail_in_the_view(qtbot, window, large_project: Path) -> None:
    open_project(qtbot, window, large_project)
    view = window.open_view("records", "large")
    view.table.scrollTo(view.model.index(40_000, 0))
    assert view.select_position(40_000)
    assert view.detail.prompt.toPlainText() == "Tell me one fact about rivers (number 40000)."
    assert view.detail.fact_labels["source"].text() == "d0"
    assert '"question"' in view.detail.raw.toPlainText()

    qtbot.keyClicks(view.filter_edit, "number 4999")
    qtbot.waitUntil(lambda: view.model.filtered and view.model.rowCount() == 11, timeout=20_000)
    seqs = {view.model.record(r).seq for r in range(11)}
    assert seqs == {4999, *range(49_990, 50_000)}
    assert view.count_label.text() == "11 of 50,000 records match"

    qtbot.waitUntil(lambda: view.source_combo.count() == 5, timeout=20_000)
    view.source_combo.setCurrentIndex(view.source_combo.findData("d3"))
    qtbot.waitUntil(lambda: view.model.rowCount() == 4, timeout=20_000)
    assert all(view.model.record(r).source == "d3" for r in range(4))
    screenshot(window, "records-filtered")

    view.filter_edit.clear()
    view.source_combo.setCurrentIndex(0)
    qtbot.waitUntil(lambda: not view.model.filtered, timeout=20_000)
    assert view.model.rowCount() == 50_000


def test_score_columns_are_named_by_what_they_are_and_every_column_is_in_view(
    qtbot, window, demo_project: Path
) -> None:
    open_project(qtbot, window, demo_project)
    view = window.open_view("records", "demo")
    qtbot.waitUntil(lambda: len(view.model.scores) == 2, timeout=20_000)
    titles = [c.title for c in view.model.scores]  # newest first
    assert titles == [
        "Leverage (sentence-transformers/prompt+response)",
        "Leverage (gradients/fast)",
    ]
    header = view.table.horizontalHeader()
    model = view.model
    shown = model.headerData(5, Qt.Orientation.Horizontal)
    assert shown == "Leverage\n(gradients/fast)"  # what, then on what
    tip = model.headerData(5, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)
    assert "run #5" in tip and "G-Vendi on 'gradients/fast'" in tip and "bootstrap = 200" in tip
    assert [header.visualIndex(c) for c in (0, 4, 5)] == [0, 1, 2]  # scores next to the #
    qtbot.wait(50)
    assert view.select_position(3)  # selecting a record keeps the # column in view
    assert view.table.horizontalScrollBar().value() == 0
    viewport = view.table.viewport().width()
    for column in range(model.columnCount()):
        left = header.sectionViewportPosition(column)
        assert left >= 0 and left + header.sectionSize(column) <= viewport, column
        lines = str(model.headerData(column, Qt.Orientation.Horizontal)).split("\n")
        widest = max(header.fontMetrics().horizontalAdvance(line) for line in lines)
        assert widest <= header.sectionSize(column) or column in (1, 2), column
    screenshot(window, "records-score-columns")


def test_the_demo_story_fits_a_1366x768_screen(qtbot, window, demo_project: Path) -> None:
    """The record detail pane (in the records view and beside the map) asks for little
    height, so no view makes the window taller than a 768-pixel screen."""
    window.files.demo_path = demo_project
    window.files.open_demo()
    map_view = window.tabs.widget(2)
    assert map_view.property("view_kind") == "map"
    window.tabs.setCurrentWidget(map_view)
    records = window.tabs.widget(0)
    qtbot.waitUntil(lambda: bool(records.model.scores), timeout=20_000)
    assert records.select_position(3)  # a record shown in the detail panes too
    qtbot.wait(100)
    assert window.minimumSizeHint().height() <= 768
    assert window.height() == 768
