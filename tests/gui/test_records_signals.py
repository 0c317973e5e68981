"""Curation signals in the records view: columns, sorting over every record, the signal
filter, and a column's histogram (the demo project with its signals computed once)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from tests.gui.conftest import open_project, screenshot
from vendiscope.core.store.migrate import copy_project
from vendiscope.gui.records.signal_data import (
    FLAG_MARK,
    SignalColumn,
    cell_text,
    histogram_of,
)

SIGNALS = ["text-stats", "pii", "language", "lexical-dups"]


@pytest.fixture(scope="module")
def signals_template(demo_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo project with text-stats, pii, language and lexical-dups computed."""
    import vendiscope as vs

    path = copy_project(demo_template, tmp_path_factory.mktemp("signals") / "demo.vscope")
    with vs.open(path, progress=False) as project:
        project.signals("demo", SIGNALS)
        project.store.wal_checkpoint()
    return path


@pytest.fixture
def signals_project(signals_template: Path, tmp_path: Path) -> Path:
    return copy_project(signals_template, tmp_path / "demo.vscope")


def truth(path: Path, expression: str | None = None) -> dict:
    """Signal values and a filter's matches, read through the Python API (not the view)."""
    import vendiscope as vs

    with vs.open(path, progress=False) as project:
        values = project.signal_values("demo")
        found = {"values": values}
        if expression:
            found["matches"] = set(np.flatnonzero(project.where("demo", expression)).tolist())
        return found


def open_records(qtbot, window, path: Path):
    open_project(qtbot, window, path)
    view = window.open_view("records", "demo")
    qtbot.waitUntil(lambda: bool(view.model.signal_table.columns), timeout=20_000)
    return view


def column_of(view, key: str) -> int:
    model = view.model
    return next(c for c in range(model.columnCount()) if getattr(model.signal_at(c), "key",
                                                                    None) == key)  # fmt: skip


def shown_positions(view) -> set[int]:
    return {view.model.position(row) for row in range(view.model.rowCount())}


def apply_signal_filter(qtbot, view, expression: str) -> None:
    view.signal_edit.setText(expression)
    view.apply_filter()
    qtbot.waitUntil(lambda: not view.filter_loader.busy, timeout=20_000)


def test_flags_that_raised_show_and_columns_sort_over_the_whole_dataset(
    qtbot, window, signals_project: Path
) -> None:
    view = open_records(qtbot, window, signals_project)
    values = truth(signals_project)["values"]
    model = view.model
    raised = {k for k, v in values.items() if "." not in k and v.kind == "flag" and
              (v.values > 0).any()}  # fmt: skip
    assert raised == {"truncated", "low-quality", "lexical-dups"}  # the demo raises these
    assert {c.key for c in model.signals} == raised  # the default: flags that raised, no numbers
    flagged = int(np.flatnonzero(values["low-quality"].values > 0)[0])
    quality = column_of(view, "low-quality")
    assert model.index(flagged, quality).data() == FLAG_MARK
    clean = int(np.flatnonzero(values["low-quality"].values == 0)[0])
    assert model.index(clean, quality).data() == ""
    tip = model.index(flagged, quality).data(Qt.ItemDataRole.ToolTipRole)
    assert tip == "low-quality: raised"

    header = view.table.horizontalHeader()  # by default every column in view, named in full
    qtbot.wait(50)
    for column in range(model.columnCount()):
        left = header.sectionViewportPosition(column)
        assert left >= 0 and left + header.sectionSize(column) <= view.table.viewport().width()
        lines = str(model.headerData(column, Qt.Orientation.Horizontal)).split("\n")
        widest = max(header.fontMetrics().horizontalAdvance(line) for line in lines)
        assert widest <= header.sectionSize(column) or column in (1, 2), lines

    view.grab().save("/tmp/shots/records_default.png") if Path("/tmp/shots").is_dir() else None
    view.show_signal("words")
    view.show_signal("language")
    words = column_of(view, "words")
    view._header_clicked(words)  # highest first
    view._header_clicked(words)  # then lowest first
    assert model.sort_state == (words, Qt.SortOrder.AscendingOrder)
    every = values["words"].values
    first = [float(every[model.position(r)]) for r in range(30)]
    assert first == sorted(every.tolist())[:30]  # the smallest of all 1,245, not of a page
    assert model.index(0, words).data() == f"{float(np.min(every)):.3g}"
    last = model.rowCount() - 1
    assert float(every[model.position(last)]) == float(np.max(every))
    language = column_of(view, "language")
    labels = values["language"].labels()
    assert model.index(5, language).data() == labels[model.position(5)]
    assert view.signal_panel is not None and view.signal_panel.key == "words"

    qtbot.wait(50)
    for column in range(1 + len(model.scores) + len(model.signals)):  # next to the #
        left = header.sectionViewportPosition(header.logicalIndex(column))
        assert left + header.sectionSize(header.logicalIndex(column)) <= view.table.width()
    screenshot(window, "records-signal-columns")
    view.grab().save("/tmp/shots/records_signals.png") if Path("/tmp/shots").is_dir() else None

    view.show_signal("words", False)  # hiding the sorted column: back to the dataset's order
    assert "words" not in [c.key for c in model.signals]
    assert model.sort_state is None or model.signal_at(model.sort_state[0]) is None
    menu = view.fill_signal_menu()
    ticked = {a.data() for a in menu.actions() if a.isCheckable() and a.isChecked()}
    assert ticked == raised | {"language"}


@pytest.mark.parametrize(
    "expression", ["low-quality", "words < 20 and not lexical-dups", "language != en", "pii"]
)
def test_the_signal_filter_shows_exactly_the_matching_records(
    qtbot, window, signals_project: Path, expression: str
) -> None:
    view = open_records(qtbot, window, signals_project)
    wanted = truth(signals_project, expression)["matches"]
    apply_signal_filter(qtbot, view, expression)
    assert view.model.filtered
    assert shown_positions(view) == wanted
    assert view.count_label.text() == f"{len(wanted):,} of 1,245 records match"
    assert not view.signal_message.isVisible()
    histogram = view.signal_panel.histogram  # counts the records shown, none: says so
    assert sum(histogram.counts) == len(wanted)
    assert (histogram.mode == "empty") == (not wanted)


def test_the_signal_filter_combines_with_the_text_filter(
    qtbot, window, signals_project: Path
) -> None:
    from vendiscope.gui.records.queries import filter_positions

    view = open_records(qtbot, window, signals_project)
    expression = "words >= 30 and not low-quality"
    matches = truth(signals_project, expression)["matches"]
    containing = set(filter_positions(str(signals_project), "demo", "the", None).tolist())
    view.filter_edit.setText("the")
    apply_signal_filter(qtbot, view, expression)
    assert shown_positions(view) == matches & containing
    assert 0 < len(matches & containing) < len(containing)
    panel = view.signal_panel
    panel.show_column("words")
    assert sum(panel.histogram.counts) == len(matches & containing)  # the shown records


def test_a_bad_expression_says_why_and_leaves_the_table_usable(
    qtbot, window, signals_project: Path
) -> None:
    from vendiscope.core.base.errors import ProjectError
    from vendiscope.core.signals.reading import where
    from vendiscope.core.store.project import Project

    view = open_records(qtbot, window, signals_project)
    for bad in ("words <", "wordz < 5", "language < en"):
        with Project.open(signals_project) as project, pytest.raises(ProjectError) as refused:
            where(project, "demo", bad)
        apply_signal_filter(qtbot, view, bad)
        assert view.signal_message.isVisible()
        assert str(refused.value) in view.signal_message.text()  # the core's own message
        assert QApplication.activeModalWidget() is None  # inline, no dialog
        assert view.model.rowCount() == 1245 and not view.model.filtered
        assert view.count_label.text() == "1,245 records"
    view.resize(1300, 700)
    view.grab().save("/tmp/shots/records_bad_filter.png") if Path("/tmp/shots").is_dir() else None
    assert view.select_position(7)  # still usable
    assert view.detail.record is not None and view.detail.record.seq == 7
    apply_signal_filter(qtbot, view, "truncated")
    assert not view.signal_message.isVisible() and view.model.rowCount() == 35


def test_the_histogram_counts_the_chosen_column(qtbot, window, signals_project: Path) -> None:
    view = open_records(qtbot, window, signals_project)
    values = truth(signals_project)["values"]
    panel = view.signal_panel
    assert panel is not None and panel.key == "lexical-dups"  # the first flag that raised
    histogram = panel.histogram
    raised = int((values["lexical-dups"].values > 0).sum())
    assert histogram.mode == "counts"
    assert histogram.labels == ["raised", "not raised"]
    assert histogram.counts == [raised, 1245 - raised]

    view.show_signal("chars")
    view._header_clicked(column_of(view, "chars"))  # a header click picks the histogram too
    assert panel.key == "chars" and histogram.mode == "bins"
    chars = values["chars"].values
    expected, edges = np.histogram(chars, bins=20, range=(chars.min(), chars.max()))
    assert histogram.counts == expected.tolist()
    assert np.allclose(histogram.edges, edges)
    assert "1,245 records" in histogram.title

    panel.show_column("language")
    labels = [label for label in values["language"].labels()]
    commonest = max(set(labels), key=labels.count)
    assert histogram.labels[0] == commonest
    assert histogram.counts[0] == labels.count(commonest)
    assert sum(histogram.counts) == 1245
    view.resize(1300, 700)
    panel.show_column("chars")
    view.grab().save("/tmp/shots/records_histogram.png") if Path("/tmp/shots").is_dir() else None
    assert view.select_position(3)  # the record and the histogram share the side
    qtbot.wait(50)
    assert window.minimumSizeHint().height() <= 768  # still fits a 1366x768 screen
    assert histogram.height() >= histogram.minimumHeight() and view.detail.height() > 150
    screenshot(window, "records-signal-histogram")


def test_histogram_data_counts_values_that_do_not_apply_apart() -> None:
    values = np.array([1.0, 2.0, np.nan, 3.0, 3.0, np.nan], dtype=np.float32)
    column = SignalColumn("loss", "proxy-loss", "loss", "number", "", values)
    data = histogram_of(column, bins=4)
    assert data.not_applicable == 2 and sum(data.counts) == 4 and data.counts[-1] == 2
    assert data.edges[0] == pytest.approx(1.0) and data.edges[-1] == pytest.approx(3.0)
    assert "2 not applicable" in data.title
    some = histogram_of(column, np.array([0, 2]), bins=4)
    assert some.not_applicable == 1 and sum(some.counts) == 1
    only = histogram_of(SignalColumn("x", "s", "x", "number", "", np.full(3, np.nan)))
    assert only.counts == [] and only.not_applicable == 3
    codes = np.array([0, 1, 1, -1, 2], dtype=np.float32)
    label = SignalColumn("language", "language", "language", "label", "", codes, ("de", "en", "fr"))
    counted = histogram_of(label, top=2)
    assert counted.labels == ["en", "de", "(other: 2 values)"]  # ties: in the records' order
    assert counted.counts == [2, 1, 2]


def test_cells_show_flags_labels_and_numbers_plainly() -> None:
    assert cell_text("flag", 1.0) == FLAG_MARK and cell_text("flag", 0.0) == ""
    assert cell_text("label", 1.0, ("de", "en")) == "en" and cell_text("label", -1.0, ("de",)) == ""
    assert cell_text("number", 0.123456) == "0.123" and cell_text("number", 7.0) == "7"
    assert cell_text("number", 12345.0) == "12,345" and cell_text("number", float("nan")) == ""
    codes = np.array([1, -1, 0, 2], dtype=np.float32)
    column = SignalColumn(
        "language", "language", "language", "label", "", codes, ("fr", "de", "en")
    )
    keys = column.sort_keys()  # by the label's text: de < en < fr; none last
    assert keys[0] < keys[3] < keys[2] and np.isnan(keys[1])


def test_a_judges_reason_shows_in_the_record_detail(qtbot, window, tmp_path: Path) -> None:
    from tests.conftest import qa_rows, write_jsonl
    from tests.plugins._judge_server import JudgeServer, judge_params
    from vendiscope.core.io.importing import import_dataset
    from vendiscope.core.signals.job import compute_signal
    from vendiscope.core.store.project import Project

    location = tmp_path / "judged.vscope"
    server = JudgeServer()
    try:
        with Project.create(location) as project:
            rows = write_jsonl(tmp_path / "train.jsonl", qa_rows(5))
            import_dataset(project, rows, name="train")
            compute_signal(project, "train", "llm-judge", params=judge_params(server))
    finally:
        server.close()
    open_project(qtbot, window, location)
    view = window.open_view("records", "train")
    qtbot.waitUntil(lambda: bool(view.model.signal_table.columns), timeout=20_000)
    row = next(r for r in range(view.model.rowCount()) if view.model.position(r) == 3)
    view.table.setCurrentIndex(view.model.index(row, 0))
    qtbot.waitUntil(lambda: view.detail.notes.isVisibleTo(view.detail), timeout=5_000)
    assert view.detail.notes.text() == "Reason (llm-judge): the sum 6 is right"
    window.resize(1366, 768)
    screenshot(window, "records-judge-reason")
    view.table.clearSelection()
    view.detail.show_record(None)
    assert not view.detail.notes.text()
