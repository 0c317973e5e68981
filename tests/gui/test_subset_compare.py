"""Subsets compared: the workbench scores subsets as a job; it and the dashboard show them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.gui.conftest import ANALYSED, open_project, screenshot, wait_job
from vendiscope.core.metrics.scoring import score_dataset
from vendiscope.core.store import subsets
from vendiscope.core.store.project import Project
from vendiscope.gui.jobs.manager import JobState
from vendiscope.gui.selection.compare_data import comparisons_of
from vendiscope.gui.selection.compare_table import COLUMNS, SubsetCompareTable
from vendiscope.gui.windows.main_window import MainWindow


def column(table: SubsetCompareTable, name: str) -> list[str]:
    return [row[COLUMNS.index(name)] for row in table.cells()]


def stored_runs(path: Path, kind: str) -> list:
    with Project.open(path) as project:
        return [r for r in project.runs(ANALYSED) if r.kind == kind and r.status == "complete"]


@pytest.mark.slow
def test_score_subsets_on_the_workbench_runs_one_job_and_fills_the_table(
    qtbot, window: MainWindow, analysed_project: Path
) -> None:
    with Project.open(analysed_project) as project:
        subsets.from_positions(project, ANALYSED, "first-40", range(40))
    open_project(qtbot, window, analysed_project)
    view = window.open_view("selection", ANALYSED)
    qtbot.waitUntil(lambda: view.state is not None, timeout=10_000)
    compare = view.compare
    qtbot.waitUntil(lambda: compare.comparisons is not None, timeout=10_000)
    assert compare.comparisons == [] and "No subset scored yet" in compare.hint.text()
    assert compare.score_button.isVisible()
    headline = stored_runs(analysed_project, "metric")

    with qtbot.waitSignal(compare.score_requested):
        compare.score_button.click()
    (job,) = [j for j in window.jobs.jobs if j.kind == "score"]
    assert job.in_child_process and wait_job(qtbot, job).state == JobState.DONE, job.error_details
    assert "Scored 2 subsets of 'demo'" in job.result.message
    qtbot.waitUntil(lambda: compare.table.rowCount() == 3, timeout=10_000)

    runs = {r.params["subset"]: r for r in stored_runs(analysed_project, "subset-score")}
    assert set(runs) == {"greedy-vendi-60", "first-40"}
    assert column(compare, "Set") == ["Whole dataset", "greedy-vendi-60", "first-40"]
    assert column(compare, "n") == ["978", "60", "40"]
    for row, name in zip(compare.cells()[1:], ("greedy-vendi-60", "first-40"), strict=True):
        result = runs[name].result
        assert row[COLUMNS.index("Score")] == f"{result['value']:,.2f}"
        low, high = result["details"]["ci"]  # the job asked for a bootstrap interval
        assert row[COLUMNS.index("Interval")] == f"{low:,.2f} \u2013 {high:,.2f} (95%)"
        random = result["vs_random"]
        assert random["draws"] == 20
        assert row[COLUMNS.index("Random ± sd")] == f"{random['mean']:,.2f} ± {random['sd']:,.2f}"
        assert f"beats {random['share_below']:.0%}" in row[COLUMNS.index("Vs random")]
    # greedy Vendi beats random subsets of its size; the first 40 records are a random draw
    assert runs["greedy-vendi-60"].result["vs_random"]["z"] > 2
    assert "G-Vendi on gradients/planted" in compare.hint.text()
    # the dashboard's headline G-Vendi is still the dataset's own score (a new one, of 978)
    newest = stored_runs(analysed_project, "metric")
    assert len(newest) == len(headline) + 1 and newest[-1].result["n"] == 978
    screenshot(window, "selection-workbench-subsets-compared")


def test_the_dashboard_shows_scored_subsets_only_once_there_are_some(
    qtbot, window: MainWindow, analysed_project: Path
) -> None:
    open_project(qtbot, window, analysed_project)
    dashboard = window.open_view("dashboard", ANALYSED)
    compare = dashboard.subsets_compare
    qtbot.waitUntil(lambda: compare.comparisons is not None, timeout=20_000)
    assert not compare.isVisible() and not compare.score_button.isVisible()

    with Project.open(analysed_project) as project:
        whole = score_dataset(project, ANALYSED, vector_set="gradients/planted")
        part = score_dataset(
            project, ANALYSED, vector_set="gradients/planted", subset="greedy-vendi-60",
            vs_random=True, random_draws=8,
        )  # fmt: skip
    window.document.changed.emit()
    qtbot.waitUntil(lambda: compare.isVisible() and compare.table.rowCount() == 2, timeout=20_000)
    assert column(compare, "Score") == [f"{whole.value:,.2f}", f"{part.value:,.2f}"]
    assert column(compare, "Per record") == [f"{whole.fraction:.3f}", f"{part.fraction:.3f}"]
    assert column(compare, "Interval") == ["\u2014", "\u2014"]  # no bootstrap asked for
    assert column(compare, "Run") == [f"#{whole.run_id}", f"#{part.run_id}"]
    assert column(compare, "Random ± sd")[0] == "\u2014"
    assert "Random: 8 subsets of each size" in compare.hint.text()
    qtbot.waitUntil(lambda: dashboard.summary is not None, timeout=20_000)
    assert dashboard.summary.gvendi.run_id == whole.run_id  # never the subset's score
    screenshot(window, "dashboard-subsets-compared")


def test_comparisons_group_by_measure_and_keep_the_latest_score_of_each_subset(
    analysed_project: Path,
) -> None:
    with Project.open(analysed_project) as project:
        subsets.from_positions(project, ANALYSED, "odd", np.arange(1, 978, 2))
        score_dataset(project, ANALYSED, metric="vendi", subset="odd")
        score_dataset(project, ANALYSED, subset="odd", params={"q": 2.0})
        latest = score_dataset(project, ANALYSED, subset="odd", vs_random=True, random_draws=3)
        subsets.delete_subset(project, ANALYSED, "odd")
        found = comparisons_of(project, ANALYSED)
    assert [c.title for c in found] == [
        "G-Vendi on gradients/planted",
        "G-Vendi on gradients/planted, q = 2.0",
        "Embedding-Vendi on embeddings/planted",
    ]
    first = found[0]
    # the analysed project's own G-Vendi (q = 1) is the dataset row; no embedding score yet
    assert first.dataset_row is not None and first.dataset_row.n == 978
    assert found[2].dataset_row is None
    (odd,) = [r for r in first.rows if r.subset is not None]
    assert odd.run_id == latest.run_id and odd.random["draws"] == 3
    assert odd.label == "odd (deleted)" and odd.n == 489


@pytest.mark.slow
@pytest.mark.parametrize("module", ["compare_data"])
def test_the_comparison_data_is_qt_free(module: str) -> None:
    code = (
        f"import sys, vendiscope.gui.selection.{module}; "
        "sys.exit(any(m.split('.')[0] in ('PySide6', 'pyqtgraph') for m in sys.modules))"
    )
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


def visible_rows(table) -> int:
    """Rows shown in full in the table's viewport."""
    viewport = table.viewport().rect()
    return sum(
        viewport.contains(table.visualRect(table.model().index(row, 0)))
        for row in range(table.rowCount())
    )


def test_the_workbench_shows_every_scored_set_by_name_at_1280x760(
    qtbot, window: MainWindow, analysed_project: Path
) -> None:
    with Project.open(analysed_project) as project:
        subsets.from_positions(project, ANALYSED, "the-first-forty-records", range(40))
        subsets.from_positions(
            project, ANALYSED, "every-other-record-of-the-data", range(0, 978, 2)
        )
        for name in (
            "greedy-vendi-60",
            "the-first-forty-records",
            "every-other-record-of-the-data",
        ):
            score_dataset(project, ANALYSED, vector_set="gradients/planted", subset=name,
                          vs_random=True, random_draws=3)  # fmt: skip
    window.resize(1280, 760)
    open_project(qtbot, window, analysed_project)
    view = window.open_view("selection", ANALYSED)
    compare, table = view.compare, view.compare.table
    qtbot.waitUntil(lambda: view.state is not None and table.rowCount() == 4, timeout=20_000)
    qtbot.waitUntil(lambda: visible_rows(table) == 4, timeout=5_000)  # tall enough for its rows
    header = table.horizontalHeader()
    names = column(compare, "Set")
    assert names[1:] == [
        "greedy-vendi-60", "the-first-forty-records", "every-other-record-of-the-data"
    ]  # fmt: skip
    widest = max(table.fontMetrics().horizontalAdvance(name) for name in names)
    assert header.sectionSize(0) >= widest + 8  # the names in full
    assert table.horizontalScrollBar().maximum() == 0  # nothing off to the side
    shown = [c for c in range(table.columnCount()) if not table.isColumnHidden(c)]
    assert {COLUMNS[c] for c in shown} >= {"Set", "n", "Score", "Vs random"}
    for c in shown:
        left = header.sectionViewportPosition(c)
        assert left >= 0 and left + header.sectionSize(c) <= table.viewport().width(), COLUMNS[c]
        texts = [table.item(r, c).text() for r in range(table.rowCount())]
        assert max(table.fontMetrics().horizontalAdvance(t) for t in texts) <= header.sectionSize(c)
    hidden = [COLUMNS[c] for c in range(table.columnCount()) if table.isColumnHidden(c)]
    tip = table.item(1, 0).toolTip()  # a hidden column's value is in the set's tooltip
    assert all(f"{name}: " in tip for name in hidden) and "Run: #" in tip
    screenshot(window, "selection-workbench-subsets-compared-1280x760")
