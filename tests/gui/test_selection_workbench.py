"""The selection workbench: methods as jobs, curves against random, runs table, export."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Literal

import numpy as np
import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QLineEdit,
    QSpinBox,
)

from tests.gui.conftest import ANALYSED, open_project, screenshot, wait_job
from vendiscope.core.plugin_host.params import ParamError, Range, describe_params
from vendiscope.gui.jobs.manager import JobState
from vendiscope.gui.selection.form import BUDGET_RULE, default_budget
from vendiscope.gui.selection.workbench import RUN_COLUMNS, SelectionWorkbench
from vendiscope.gui.widgets.param_form import ParamForm
from vendiscope.gui.windows.main_window import MainWindow


def open_workbench(qtbot, window: MainWindow, path: Path) -> SelectionWorkbench:
    open_project(qtbot, window, path)
    view = window.open_view("selection", ANALYSED)
    qtbot.waitUntil(lambda: view.state is not None, timeout=10_000)
    return view


def selection_results(path: Path) -> dict[int, dict]:
    from vendiscope.core.store.project import Project

    with Project.open(path) as project:
        return {
            r.id: {"result": r.result, "params": r.params}
            for r in project.runs(ANALYSED)
            if r.kind == "selection" and r.status == "complete"
        }


def plotted(view: SelectionWorkbench, run_id: int) -> tuple[list[float], list[float]]:
    xs, ys = view.curves.curves[run_id].getData()
    return [float(v) for v in xs], [float(v) for v in ys]


def test_the_workbench_shows_the_stored_runs_and_their_curves(
    qtbot, window: MainWindow, analysed_project: Path
) -> None:
    view = open_workbench(qtbot, window, analysed_project)
    ((run_id, stored),) = selection_results(analysed_project).items()
    curve = stored["result"]["curve"]
    assert view.runs_table.rowCount() == 1
    assert view.curve_set.currentData() == "gradients/planted"  # G-Vendi first
    assert plotted(view, run_id) == (
        [float(b) for b in curve["budgets"]],
        curve["vendi"]["gradients/planted"],
    )
    baseline = view.curves.baselines[0]
    assert list(baseline.getData()[1]) == curve["random"]["gradients/planted"]
    assert baseline.opts["pen"].style() == Qt.PenStyle.DashLine
    vendi = view.runs_table.item(0, RUN_COLUMNS.index("Vendi"))
    assert vendi.text() == f"{curve['vendi']['gradients/planted'][-1]:,.2f}"
    view.curve_set.setCurrentIndex(view.curve_set.findData("embeddings/planted"))  # embedding-Vendi
    assert plotted(view, run_id)[1] == curve["vendi"]["embeddings/planted"]
    vendi = view.runs_table.item(0, RUN_COLUMNS.index("Vendi"))
    assert vendi.text() == f"{curve['vendi']['embeddings/planted'][-1]:,.2f}"


def test_the_demo_workbench_fits_1366x768_and_draws_the_baseline_on_top(
    qtbot, window: MainWindow, demo_project: Path
) -> None:
    open_project(qtbot, window, demo_project)
    view = window.open_view("selection", "demo")
    qtbot.waitUntil(lambda: view.state is not None and bool(view.curves.curves), timeout=20_000)
    qtbot.wait(50)
    # every column of the runs table in view, without scrolling sideways
    table = view.runs_table
    header = table.horizontalHeader()
    assert table.horizontalScrollBar().maximum() == 0
    for column in range(table.columnCount()):
        left = header.sectionViewportPosition(column)
        assert left >= 0 and left + header.sectionSize(column) <= table.viewport().width()
    for name in ("Vendi", "Random", "Gain"):  # the results: right after the run, in full
        column = RUN_COLUMNS.index(name)
        for row in range(table.rowCount()):
            text = table.item(row, column).text()
            assert table.fontMetrics().horizontalAdvance(text) <= header.sectionSize(column)
    # the random baseline above the runs (the Random run follows it exactly), named as such
    curves = view.curves
    assert curves.baselines and all(
        b.zValue() > max(c.zValue() for c in curves.curves.values()) for b in curves.baselines
    )
    assert curves.plot.getPlotItem().legend is None  # the legend is below the chart
    first, *runs = curves.legend.entries
    assert first.entry.style == "dash" and first.entry.name.startswith("random baseline")
    random_run = next(r for r in view.state.runs if r.method == "random")
    same = [e.entry.name for e in runs if e.entry.name.startswith(random_run.label)]
    assert same == [f"{random_run.label} (the same curve as the baseline)"]
    # the default budget is a round 10%, and says so
    assert view.form.k.value() == default_budget(1245) == 120
    assert view.form.k_share.text() == "10% of 1,245"
    assert BUDGET_RULE in view.form.k.toolTip()
    screenshot(window, "selection-workbench-demo")


def test_the_default_budget_is_ten_percent_to_two_significant_figures() -> None:
    assert [default_budget(n) for n in (0, 1, 9, 24, 978, 1245, 1999, 9999, 10**6)] == [
        1, 1, 1, 2, 98, 120, 200, 1000, 1000,
    ]  # fmt: skip


@pytest.mark.slow
def test_two_methods_run_as_two_jobs_and_their_curves_appear(
    qtbot, window: MainWindow, analysed_project: Path
) -> None:
    view = open_workbench(qtbot, window, analysed_project)
    view.form.set_methods(["k-center", "random"])
    assert [view.form.param_tabs.tabText(i) for i in range(view.form.param_tabs.count())] == [
        "k-center", "random",
    ]  # fmt: skip
    view.form.forms["random"].set_value("seed", 7)
    view.form.forms["k-center"].set_value("metric", "euclidean")
    view.form.k.setValue(40)
    view.form.exclude.item(0).setCheckState(Qt.CheckState.Checked)  # leave out greedy-vendi-60
    jobs = view.run_selection()
    assert [j.kind for j in jobs] == ["select", "select"] and all(j.in_child_process for j in jobs)
    for job in jobs:
        assert wait_job(qtbot, job).state == JobState.DONE, job.error_details
    stored = selection_results(analysed_project)
    assert len(stored) == 3
    qtbot.waitUntil(lambda: len(view.curves.curves) == 3, timeout=10_000)
    for run_id, found in stored.items():
        curve = found["result"]["curve"]
        assert plotted(view, run_id) == (
            [float(b) for b in curve["budgets"]],
            curve["vendi"]["gradients/planted"],
        )
    by_method = {f["params"]["method"]: f["params"] for f in stored.values()}
    assert by_method["random"]["params"] == {"seed": 7}
    assert by_method["k-center"]["params"] == {"metric": "euclidean"}
    assert by_method["random"]["k"] == 40 and by_method["random"]["exclude"] == ["greedy-vendi-60"]
    assert view.runs_table.rowCount() == 3
    view.select_run(max(stored))
    assert (
        view.export_button.isEnabled() and view.curves.curves[max(stored)].opts["pen"].widthF() > 3
    )
    screenshot(window, "selection-workbench")


def test_export_a_run_subset_with_its_selection_run(
    qtbot, window: MainWindow, analysed_project: Path, tmp_path: Path
) -> None:
    from vendiscope.gui.dialogs.export_dialog import ExportDialog

    view = open_workbench(qtbot, window, analysed_project)
    view.select_run(next(iter(selection_results(analysed_project))))
    target = tmp_path / "chosen.jsonl"
    seen: list[str] = []

    def fill() -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, ExportDialog):
            QTimer.singleShot(20, fill)
            return
        seen.append(dialog.subset.currentData())
        dialog.destination.setText(str(target))
        dialog.accept()

    QTimer.singleShot(20, fill)
    job = view.export_subset()
    assert seen == ["greedy-vendi-60"]
    assert wait_job(qtbot, job).state == JobState.DONE, job.error_details
    assert len(target.read_text().splitlines()) == 60
    manifest = json.loads(Path(job.result.data["manifest"]).read_text())
    assert manifest["selection_run"] is not None

    copy = view.copy_subset("greedy-vendi-60", "kept")  # "Save subset…" keeps the run
    assert wait_job(qtbot, copy).state == JobState.DONE, copy.error_details
    from vendiscope.core.store.project import Project

    with Project.open(analysed_project) as project:
        original, kept = (
            project.subset(ANALYSED, "greedy-vendi-60"),
            project.subset(ANALYSED, "kept"),
        )
    assert kept.run_id == original.run_id and kept.size == 60


class _Example:
    def __init__(
        self,
        k: Annotated[int, Range(1, 50), "Neighbours."] = 10,
        level: Annotated[float, Range(gt=0, lt=1)] = 0.95,
        mode: Literal["fast", "exact"] = "fast",
        exact: bool = False,
        limit: int | None = None,
        label: str = "x",
    ) -> None:
        pass


def test_the_parameter_form_follows_the_param_specs(qtbot) -> None:
    form = ParamForm(describe_params(_Example))
    qtbot.addWidget(form)
    fields = form.fields
    assert isinstance(fields["k"], QSpinBox) and (fields["k"].minimum(), fields["k"].maximum()) == (
        1,
        50,
    )
    assert "Neighbours." in fields["k"].toolTip()
    assert isinstance(fields["level"], QDoubleSpinBox) and fields["level"].value() == 0.95
    assert isinstance(fields["mode"], QComboBox) and fields["mode"].count() == 2
    assert isinstance(fields["exact"], QCheckBox)
    assert isinstance(fields["limit"], QLineEdit) and isinstance(fields["label"], QLineEdit)
    assert form.values() == {}  # defaults are not repeated
    form.set_value("k", 20)
    form.set_value("mode", "exact")
    form.set_value("limit", "12")
    assert form.values() == {"k": 20, "mode": "exact", "limit": 12}
    form.set_value("limit", "many")
    try:
        form.values()
    except ParamError as exc:
        assert "limit" in str(exc)
    else:  # pragma: no cover
        raise AssertionError("a bad value must be refused")
    assert form.error() is not None and "limit" in form.error()
    assert np.isclose(form.fields["level"].maximum(), 1.0)
