"""The dashboard's Quality section on a copy of the demo project with signals computed: each
flag's records as numpy counts them, the sources most flagged, histograms of a few columns;
without signals, one line and the button that computes them."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from tests.gui.conftest import open_project, screenshot
from vendiscope.core.signals.reading import signal_columns
from vendiscope.core.signals.summary import FlagSummary, summarize_signals
from vendiscope.core.store.migrate import copy_project
from vendiscope.core.store.project import Project
from vendiscope.gui.dashboard import data
from vendiscope.gui.dashboard.page import DashboardView
from vendiscope.gui.windows.document import ProjectDocument


@pytest.fixture(scope="module")
def signalled_template(demo_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    from vendiscope.scripting import open as open_project_api

    path = copy_project(demo_template, tmp_path_factory.mktemp("quality") / "demo.vscope")
    with open_project_api(str(path), progress=False) as project:
        project.signals("demo", ["text-stats", "pii", "language", "lexical-dups"])
    return path


@pytest.fixture
def signalled(signalled_template: Path, tmp_path: Path) -> Path:
    return copy_project(signalled_template, tmp_path / "signalled.vscope")


def _dashboard(qtbot, path: Path) -> DashboardView:
    document = ProjectDocument()
    document.open(str(path))
    view = DashboardView(document, "demo")
    qtbot.addWidget(view)
    view.resize(1100, 900)
    view.show()
    qtbot.waitUntil(lambda: view.summary is not None, timeout=20_000)
    return view


def test_the_quality_section_counts_each_flag_as_numpy_does(qtbot, signalled: Path) -> None:
    view = _dashboard(qtbot, signalled)
    assert view.quality_pane.isVisible() and not view.no_signals.isVisible()
    with Project.open(signalled) as project:
        columns = signal_columns(project, "demo")
        sources = np.asarray([r.source or "" for r in project.iter_records("demo")])
    flags = {
        k.split(".", 1)[1]: v.values for k, v in columns.items() if "." in k and v.kind == "flag"
    }
    table = view.quality.flags
    assert table.rowCount() == len(flags) == 11
    rows = {table.item(r, 0).text(): r for r in range(table.rowCount())}
    shown = [int(table.item(r, 1).text().replace(",", "")) for r in range(table.rowCount())]
    assert shown == sorted(shown, reverse=True)  # the flags raising most records first
    for name, values in flags.items():
        raised = values > 0
        row = rows[name]
        assert int(table.item(row, 1).text().replace(",", "")) == int(raised.sum())
        assert table.item(row, 2).text() == f"{raised.mean():.1%}"
        if raised.any():
            source, count = Counter(sources[raised].tolist()).most_common(1)[0]
            assert table.item(row, 3).text().startswith(f"{source} {count:,}")
    union = np.any([v > 0 for v in flags.values()], axis=0)
    assert f"{int(union.sum()):,} of 1,245 records" in view.quality.note.text()
    charts = [c for c in view.quality.charts if not c.isHidden()]
    assert [c.title for c in charts] == ["language", "words", "language-confidence"]
    assert charts[0].mode == "counts" and charts[0].labels[0] == "en"
    words = columns["words"].values
    assert charts[1].mode == "bins" and sum(charts[1].counts) == int((~np.isnan(words)).sum())
    assert view.quality.clean_button.isVisible()
    screenshot(view, "dashboard-quality")


def test_without_signals_one_line_offers_to_compute_them(qtbot, demo_project: Path) -> None:
    view = _dashboard(qtbot, demo_project)
    assert view.no_signals.isVisible() and not view.quality_pane.isVisible()
    assert view.compute_signals_button.text() == "Compute signals…"
    assert not view.compute_signals_button.isEnabled()  # no window to open the dialog in


def test_the_dashboard_buttons_open_the_signal_dialogs(qtbot, window, signalled: Path) -> None:
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from vendiscope.gui.signals.clean_dialog import CleanUpDialog
    from vendiscope.gui.signals.compute_dialog import ComputeSignalsDialog

    open_project(qtbot, window, signalled)
    view = window.open_view("dashboard", "demo")
    qtbot.waitUntil(lambda: view.summary is not None, timeout=20_000)
    seen: list[type] = []

    def close_dialog() -> None:
        dialog = QApplication.activeModalWidget()
        if dialog is None:
            QTimer.singleShot(20, close_dialog)
            return
        seen.append(type(dialog))
        dialog.reject()

    for button in (view.quality.compute_button, view.quality.clean_button):
        QTimer.singleShot(20, close_dialog)
        button.click()
    assert seen == [ComputeSignalsDialog, CleanUpDialog]
    assert not window.jobs.active()  # cancelled: nothing submitted


def test_the_charted_columns_and_source_words() -> None:
    from vendiscope.core.signals.reading import SignalValues
    from vendiscope.core.signals.summary import summarize_column

    flag = summarize_column(
        "s.f", SignalValues("s", "f", "flag", np.array([1, 1, 1, 0, 1], dtype=np.float32)),
        np.array(["a", "b", "a", "c", "d"], dtype=object),
    )  # fmt: skip
    assert isinstance(flag, FlagSummary)
    assert data.source_text(flag, shown=2) == "a 2, b 1 and 1 more"
    loss = summarize_column("p.loss", SignalValues("p", "loss", "number", np.arange(5.0)))
    group = summarize_column(
        "l.lexical-group", SignalValues("l", "lexical-group", "number", np.arange(5.0))
    )
    odd = summarize_column("x.odd", SignalValues("x", "odd", "number", np.arange(5.0)))
    assert data.charted([flag, group, odd, loss]) == [loss, odd]


def test_the_dashboard_summary_carries_the_signal_summaries(signalled: Path) -> None:
    summary = data.summarize(str(signalled), "demo")
    with Project.open(signalled) as project:
        expected = summarize_signals(project, "demo")
    assert [q.column for q in summary.quality] == [q.column for q in expected]
    assert summary.flagged > 0
