"""Sparse clusters on the dashboard, and the demo opening on its whole story."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication

from tests.gui.conftest import ANALYSED, open_project, screenshot, wait_job
from vendiscope.gui.jobs.manager import JobState
from vendiscope.gui.windows.main_window import MainWindow


def test_the_dashboard_lists_sparse_clusters_with_examples(
    qtbot, window: MainWindow, analysed_project: Path
) -> None:
    from vendiscope.core.clusters.jobs import latest_cluster_run
    from vendiscope.core.store.project import Project

    with Project.open(analysed_project) as project:
        run = latest_cluster_run(project, ANALYSED)
    sizes, sparse = run.result["sizes"], run.result["sparse"]
    open_project(qtbot, window, analysed_project)
    dashboard = window.open_view("dashboard", ANALYSED)
    qtbot.waitUntil(lambda: dashboard.summary is not None, timeout=20_000)
    found = dashboard.summary.clusters
    assert found is not None and found.sparse == len(sparse) and found.n_clusters == len(sizes)
    assert dashboard.clusters_note.text().startswith(f"{len(sparse)} of {len(sizes)} clusters")
    table = dashboard.clusters
    assert table.rowCount() == min(len(sparse), 12)
    listed = [int(table.item(row, 0).text()) for row in range(table.rowCount())]
    assert set(listed) <= set(sparse)
    assert [sizes[c] for c in listed] == sorted(sizes[c] for c in listed)  # smallest first
    examples = table.item(0, 0).data(Qt.ItemDataRole.UserRole)  # the example positions
    assert examples and all(p in run.result["examples"][str(listed[0])] for p in examples)
    assert dashboard.clusters_button.text() == "Recompute clusters…"
    screenshot(window, "dashboard-sparse-clusters")
    table.cellDoubleClicked.emit(0, 2)  # read an example record
    records = window.tabs.currentWidget()
    assert records.property("view_kind") == "records"
    assert records.detail.record is not None and records.detail.record.seq == examples[0]


@pytest.mark.slow
def test_finding_clusters_is_one_click_from_the_dashboard(
    qtbot, window: MainWindow, tmp_path: Path
) -> None:
    from tests.core._planted import planted_vectors, write_set
    from tests.gui.conftest import make_project, tiny_rows
    from vendiscope.core.store.project import Project
    from vendiscope.gui.dialogs.pipeline_dialogs import ClusterDialog

    window.jobs.run_in_child_process = False
    path = make_project(tmp_path / "plain.vscope", tiny_rows(120), name="plain")
    with Project.open(path) as project:
        write_set(project, "plain", "gradients/x", planted_vectors((60, 30, 20, 10))[0])
    open_project(qtbot, window, path)
    dashboard = window.open_view("dashboard", "plain")
    qtbot.waitUntil(lambda: dashboard.summary is not None, timeout=20_000)
    button = dashboard.clusters_button
    assert dashboard.summary.clusters is None and button.text() == "Find clusters…"
    assert button.isEnabled() and "Not clustered yet" in dashboard.clusters_note.text()

    def accept() -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, ClusterDialog):
            QTimer.singleShot(20, accept)
            return
        dialog.params.set_value("n_clusters", 6)
        dialog.accept()

    QTimer.singleShot(20, accept)
    button.click()
    job = window.jobs.jobs[-1]
    assert job.kind == "clusters" and wait_job(qtbot, job).state == JobState.DONE, job.error_details
    qtbot.waitUntil(lambda: dashboard.summary.clusters is not None, timeout=20_000)
    assert dashboard.summary.clusters.n_clusters == 6 and dashboard.clusters.rowCount() > 0


def test_the_demo_opens_on_its_whole_story(qtbot, window: MainWindow, tmp_path: Path) -> None:
    """The demo ships analysed: opening it shows records, diversity, map and selection,
    each with the stored analysis, and every part can be recomputed with one click."""
    from vendiscope.core.io.demo import ensure_demo_project

    demo = ensure_demo_project(tmp_path / "demo.vscope")
    window.files.demo_path = demo
    assert window.files.open_demo() is None  # it exists: no build job
    kinds = [window.tabs.widget(i).property("view_kind") for i in range(window.tabs.count())]
    assert kinds == ["records", "dashboard", "map", "selection"]
    assert window.tabs.currentWidget().property("view_kind") == "dashboard"
    records, dashboard, map_view, workbench = (window.tabs.widget(i) for i in range(4))
    qtbot.waitUntil(lambda: bool(records.model.scores), timeout=20_000)  # the leverage column
    qtbot.waitUntil(lambda: dashboard.summary is not None, timeout=20_000)
    assert dashboard.summary.gvendi is not None and dashboard.summary.clusters is not None
    qtbot.waitUntil(lambda: map_view.colouring is not None, timeout=20_000)
    assert map_view.canvas.count == 1245
    assert map_view.colouring.by == "source"  # the one default rule (core/view_data/colouring.py)
    qtbot.waitUntil(lambda: workbench.state is not None, timeout=20_000)
    assert len(workbench.state.runs) == 3 and workbench.curves.curves  # greedy, FL, random
    assert map_view.compute_button.text() == "Recompute map…"  # recomputing is one click
    assert workbench.form.run_button.isEnabled()
    window.tabs.setCurrentWidget(map_view)
    screenshot(window, "demo-map")


def test_the_dashboard_fits_1280x760_with_subsets_compared(
    qtbot, window: MainWindow, analysed_project: Path
) -> None:
    """Scored subsets, sources, sparse clusters and the spectrum (with its axis) all in a
    1280x760 window, without scrolling the page; the share is one number, rounded once."""
    import re

    from PySide6.QtCore import QRect
    from PySide6.QtWidgets import QScrollArea

    from tests.gui.test_subset_compare import visible_rows
    from vendiscope.core.metrics.scoring import score_dataset
    from vendiscope.core.store import subsets
    from vendiscope.core.store.project import Project

    with Project.open(analysed_project) as project:
        subsets.from_positions(project, ANALYSED, "first-forty", range(40))
        subsets.from_positions(project, ANALYSED, "even", range(0, 978, 2))
        for name in ("greedy-vendi-60", "first-forty", "even"):
            score_dataset(project, ANALYSED, vector_set="gradients/planted", subset=name)
    window.resize(1280, 760)
    open_project(qtbot, window, analysed_project)
    dashboard = window.open_view("dashboard", ANALYSED)
    compare = dashboard.subsets_compare
    qtbot.waitUntil(lambda: dashboard.summary is not None, timeout=20_000)
    qtbot.waitUntil(lambda: compare.isVisible() and compare.table.rowCount() == 4, timeout=20_000)
    qtbot.waitUntil(lambda: visible_rows(compare.table) == 4, timeout=5_000)
    scroll = dashboard.findChild(QScrollArea)
    assert scroll.verticalScrollBar().maximum() == 0  # the page fits: nothing below the fold
    viewport = scroll.viewport()
    for part in (compare, dashboard.sources, dashboard.clusters, dashboard.spectrum):
        shown = QRect(part.mapTo(viewport, part.rect().topLeft()), part.size())
        assert viewport.rect().contains(shown), part.objectName()
    chart = dashboard.spectrum.plot
    axis = chart.getPlotItem().getAxis("bottom")  # the rank axis, labels and all, in view
    assert chart.rect().contains(chart.mapFromScene(axis.sceneBoundingRect()).boundingRect())
    share = dashboard.cards["share"].value.text()
    in_gvendi = re.search(
        r"\(([\d.]+%) distinct\)", dashboard.cards["gvendi"].context.text()
    ).group(1)
    assert share == in_gvendi  # "11.6%" on both cards, not "12%" beside "(11.6%)"
    screenshot(window, "dashboard-1280x760")
