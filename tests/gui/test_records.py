"""The records view: a virtual table over 50,000 records, pages on demand, filter, detail."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from tests.gui.conftest import open_project, screenshot
from vendiscope.core.store.migrate import copy_project
from vendiscope.gui.records.model import CACHE_PAGES, PAGE_ROWS, RECORD_ROLE, RecordsTableModel
from vendiscope.gui.records.view import TEXT_COLUMNS, TEXT_MIN_WIDTH
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
    assert shown == "Leverage\n(G-Vendi)"  # what, then measured how
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


def header_lines(view) -> list[str]:
    model = view.model
    return [str(model.headerData(c, Qt.Orientation.Horizontal)) for c in range(model.columnCount())]


def painted_text(view, row: int, column: int) -> str:
    """The text a cell paints at its column's width (what its delegate gives, elided at the
    right by the style as Qt does when it does not fit)."""
    from PySide6.QtWidgets import QStyle, QStyleOptionViewItem

    table = view.table
    index = view.model.index(row, column)
    option = QStyleOptionViewItem()
    option.initFrom(table)
    option.rect = table.visualRect(index)
    option.widget = table
    table.itemDelegateForIndex(index).initStyleOption(option, index)
    margin = table.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, table) + 1
    width = option.rect.width() - 2 * margin
    return option.fontMetrics.elidedText(option.text, Qt.TextElideMode.ElideRight, width)


def test_a_rerun_score_shows_once_and_older_runs_can_be_chosen(
    qtbot, window, demo_project: Path
) -> None:
    """Scored twice, a score is one column (the newest run); the column chooser lists every
    run and shows an older one beside it, each header naming its run. At 1280x760 the
    prompt and response keep room to be read."""
    from vendiscope.core.metrics.scoring import score_dataset
    from vendiscope.core.store.project import Project

    with Project.open(demo_project) as project:  # the embedding leverage again (run #6 first)
        rerun = score_dataset(
            project, "demo", metric="vendi", vector_set="sentence-transformers/prompt+response",
            params={"per_record": "leverage"},
        ).run_id  # fmt: skip
    window.resize(1280, 760)
    open_project(qtbot, window, demo_project)
    view = window.open_view("records", "demo")
    qtbot.waitUntil(lambda: bool(view.model.scores), timeout=20_000)
    model, header = view.model, view.table.horizontalHeader()
    assert [c.run_id for c in model.scores] == [rerun, 5]  # the newest of each score
    headers = header_lines(view)
    assert headers[4:] == ["Leverage\n(embedding-Vendi)", "Leverage\n(G-Vendi)"]
    assert view.scores_button.isVisible()
    qtbot.wait(50)
    viewport = view.table.viewport().width()
    for column in range(model.columnCount()):  # every column in view, text columns readable
        left = header.sectionViewportPosition(column)
        assert left >= 0 and left + header.sectionSize(column) <= viewport, column
    for column in TEXT_COLUMNS:
        assert header.sectionSize(column) >= TEXT_MIN_WIDTH
    screenshot(window, "records-newest-score-runs")

    button = view.scores_button
    menu = button.menu()
    menu.popup(button.mapToGlobal(button.rect().bottomLeft()))  # fills itself as it opens
    qtbot.waitUntil(menu.isVisible)
    screenshot(menu, "records-score-columns-menu")
    menu.hide()
    runs = [a for a in menu.actions() if a.isCheckable()]
    labels = [a.text() for a in runs]
    embedding = "embedding-Vendi leverage on sentence-transformers/prompt+response"
    assert labels[0].startswith(f"{embedding}: run #{rerun}, ")
    assert labels[1].startswith(f"{embedding}: run #6, ") and labels[1].endswith("(older)")
    assert labels[2].startswith("G-Vendi leverage on gradients/fast: run #5, ")
    assert [a.isChecked() for a in runs] == [True, False, True]
    runs[1].trigger()  # show the older run too
    qtbot.waitUntil(lambda: len(model.scores) == 3, timeout=20_000)
    qtbot.wait(50)
    headers = header_lines(view)
    assert len(set(headers)) == len(headers)  # every header tells its column apart
    assert headers[4:] == [
        f"Leverage, run #{rerun}\n(embedding-Vendi)",
        "Leverage, run #6\n(embedding-Vendi)",
        "Leverage\n(G-Vendi)",
    ]
    tip = model.headerData(5, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)
    assert f"An older run of this score: the newest is run #{rerun}." in tip
    for column in range(model.columnCount()):  # every header in full
        widest = max(header.fontMetrics().horizontalAdvance(line)
                     for line in headers[column].split("\n"))  # fmt: skip
        assert widest <= header.sectionSize(column) or column in TEXT_COLUMNS, column
    for column in TEXT_COLUMNS:  # prompt and response keep room to be read (or it scrolls)
        assert header.sectionSize(column) >= TEXT_MIN_WIDTH
    screenshot(window, "records-older-score-run")
    view.fill_score_menu().actions()[-1].trigger()  # back to the newest of each
    qtbot.waitUntil(lambda: len(model.scores) == 2, timeout=20_000)


def test_text_cells_show_where_neighbouring_records_differ(
    qtbot, window, small_project: Path
) -> None:
    """Every prompt starts "Tell me one fact about": cut at the right, each row would show
    those words. A cell that does not fit drops the beginning it shares with its neighbours."""
    window.resize(1024, 700)
    open_project(qtbot, window, small_project)
    view = window.open_view("records", "tiny")
    qtbot.waitUntil(lambda: view.model.rowCount() == 24, timeout=10_000)
    qtbot.wait(50)
    prompts = [painted_text(view, row, 1) for row in range(8)]
    topics = ["rivers", "prime", "sorting", "tea", "volcanoes", "chess", "bees", "jazz"]
    for row, (shown, topic) in enumerate(zip(prompts, topics, strict=True)):
        assert shown.startswith("\u2026about ") and topic in shown, (row, shown)
    assert all(a != b for a, b in itertools.pairwise(prompts))
    assert painted_text(view, 0, 2) == "Fact 0 about rivers."  # it fits: shown whole
    screenshot(window, "records-distinct-text")
