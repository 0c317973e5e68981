"""The map view: a stored projection drawn, coloured, hovered, selected, linked to the table."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, QTimer
from PySide6.QtWidgets import QApplication

from tests.gui._mouse import click, drag, move
from tests.gui.conftest import ANALYSED, open_project, screenshot, wait_job
from vendiscope.gui.jobs.manager import JobState
from vendiscope.gui.map.view import MapView, SubsetNameDialog
from vendiscope.gui.windows.main_window import MainWindow


def open_map(qtbot, window: MainWindow, path: Path) -> MapView:
    open_project(qtbot, window, path)
    view = window.open_view("map", ANALYSED)
    qtbot.waitUntil(lambda: view.map is not None and view.colouring is not None, timeout=15_000)
    return view


def core_truth(path: Path) -> dict:
    """What the project holds, read through core (not through the view)."""
    from vendiscope.core.clusters.jobs import cluster_labels, latest_cluster_run
    from vendiscope.core.maps.jobs import latest_map
    from vendiscope.core.store import vectors
    from vendiscope.core.store.project import Project

    with Project.open(path) as project:
        info = latest_map(project, ANALYSED)
        return {
            "coords": vectors.load(project, ANALYSED, info.name),
            "labels": cluster_labels(project, ANALYSED, latest_cluster_run(project, ANALYSED)),
            "sources": [r.source for r in project.iter_records(ANALYSED)],
            "prompts": [r.prompt for r in project.iter_records(ANALYSED)],
        }


def members(path: Path, subset: str) -> list[int]:
    from vendiscope.core.store import subsets
    from vendiscope.core.store.project import Project

    with Project.open(path) as project:
        return subsets.members(project, ANALYSED, subset).positions


def pixel(view: MapView, x: float, y: float) -> QPoint:
    """Where data point (x, y) is on the plot's viewport."""
    canvas = view.canvas
    return canvas.plot.mapFromScene(canvas.viewbox.mapViewToScene(QPointF(x, y)))


def name_the_subset(name: str, seen: list[str]) -> None:
    """Answer the next subset-name dialog with ``name``."""

    def poll() -> None:
        dialog = QApplication.activeModalWidget()
        if isinstance(dialog, SubsetNameDialog):
            seen.append(dialog.labelText())
            dialog.setTextValue(name)
            dialog.accept()
            return
        QTimer.singleShot(20, poll)

    QTimer.singleShot(20, poll)


def test_map_loads_the_projection_and_colours_by_cluster_and_source(
    qtbot, window: MainWindow, analysed_project: Path
) -> None:
    view = open_map(qtbot, window, analysed_project)
    truth = core_truth(analysed_project)
    cloud = view.canvas.cloud
    assert np.allclose(cloud.x, truth["coords"][:, 0]) and np.allclose(
        cloud.y, truth["coords"][:, 1]
    )
    assert view.colouring.by == "source"  # the default of every map: the records' sources
    assert view.set_colour("cluster")
    qtbot.waitUntil(lambda: view.colouring.by == "cluster", timeout=10_000)
    assert np.array_equal(cloud.codes, truth["labels"])
    colour = cloud.lut[cloud.codes]  # one colour per cluster, distinct across the 20
    for label in range(20):
        assert len(set(colour[truth["labels"] == label].tolist())) == 1
    assert len(set(cloud.lut.tolist())) == 20
    assert view.legend.count() == 20
    assert cloud.stats.mode == "points" and cloud.stats.visible == 978
    screenshot(window, "map")

    assert view.set_colour("source")
    qtbot.waitUntil(lambda: view.colouring.by == "source", timeout=10_000)
    names = view.colouring.names
    shown = [names[c] for c in cloud.codes]
    assert shown == truth["sources"]
    assert {view.legend.item(i).text().split("  ·  ")[0] for i in range(4)} == {
        "c0",
        "c1",
        "c2",
        "c3",
    }

    view.set_colour("score", "scores/run-4")  # the per-record leverage of G-Vendi
    qtbot.waitUntil(lambda: view.colouring.by == "score", timeout=10_000)
    assert view.legend_stack.currentWidget() is view.colour_bar
    assert view.colour_bar.low < view.colour_bar.high

    view.legend_stack.setCurrentWidget(view.legend)
    view.set_colour("cluster")
    qtbot.waitUntil(lambda: view.colouring.by == "cluster", timeout=10_000)
    view.legend.set_code_visible(3, False)  # hide cluster 3: its points are not drawn
    assert cloud.visible_mask() is not None and not cloud.visible_mask()[truth["labels"] == 3].any()


def test_rectangle_and_lasso_make_subsets_of_exactly_the_points_inside(
    qtbot, window: MainWindow, analysed_project: Path
) -> None:
    view = open_map(qtbot, window, analysed_project)
    x, y = view.canvas.cloud.x, view.canvas.cloud.y
    seen: list[str] = []

    # a real drag of a rectangle on the plot
    view.set_tool("rect")
    corner_a = QPointF(float(np.percentile(x, 20)), float(np.percentile(y, 25)))
    corner_b = QPointF(float(np.percentile(x, 65)), float(np.percentile(y, 80)))
    start, end = pixel(view, corner_a.x(), corner_a.y()), pixel(view, corner_b.x(), corner_b.y())
    steps = [start + (end - start) * (t / 6) for t in range(7)]
    name_the_subset("box", seen)
    drag(view.canvas.plot.viewport(), steps)
    qtbot.waitUntil(lambda: view.last_subset_job is not None, timeout=5_000)
    job = wait_job(qtbot, view.last_subset_job)
    assert job.state == JobState.DONE, job.error_details
    # the rectangle is where the drag's end points landed (pixel-exact, in data units)
    view_a = view.canvas.viewbox.mapSceneToView(view.canvas.plot.mapToScene(start))
    view_b = view.canvas.viewbox.mapSceneToView(view.canvas.plot.mapToScene(end))
    left, right = sorted((view_a.x(), view_b.x()))
    bottom, top = sorted((view_a.y(), view_b.y()))
    inside = np.flatnonzero((x >= left) & (x <= right) & (y >= bottom) & (y <= top))
    assert 50 < len(inside) < 900
    assert sorted(members(analysed_project, "box")) == inside.tolist()
    assert seen and f"{len(inside):,} records selected" in seen[0]
    qtbot.waitUntil(
        lambda: view.colouring.by == "subset" and view.colouring.key == "box", timeout=10_000
    )
    screenshot(window, "map-rectangle-subset")

    # a lasso (a triangle), through the same path a drag ends in
    view.set_tool("lasso")
    triangle = [(float(np.percentile(x, 10)), float(np.percentile(y, 10))),
                (float(np.percentile(x, 90)), float(np.percentile(y, 30))),
                (float(np.percentile(x, 40)), float(np.percentile(y, 90)))]  # fmt: skip
    name_the_subset("lasso", seen)
    chosen = view.canvas.select_polygon([QPointF(*p) for p in triangle])
    qtbot.waitUntil(
        lambda: view.last_subset_job.title.startswith("Save subset lasso"), timeout=5_000
    )
    assert wait_job(qtbot, view.last_subset_job).state == JobState.DONE
    expected = [i for i in range(len(x)) if _in_polygon(float(x[i]), float(y[i]), triangle)]
    assert len(expected) > 20
    assert sorted(members(analysed_project, "lasso")) == expected == sorted(chosen.tolist())


def _in_polygon(px: float, py: float, polygon: list[tuple[float, float]]) -> bool:
    """Ray casting, written out: the independent check of the lasso."""
    inside = False
    for (x1, y1), (x2, y2) in zip(polygon, polygon[1:] + polygon[:1], strict=True):
        if (y1 > py) != (y2 > py) and px < x1 + (py - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
    return inside


def test_hovering_a_point_shows_its_record(
    qtbot, window: MainWindow, analysed_project: Path
) -> None:
    view = open_map(qtbot, window, analysed_project)
    truth = core_truth(analysed_project)
    x, y = view.canvas.cloud.x, view.canvas.cloud.y
    # the most isolated record: nothing else within reach of the cursor
    distance = (x[:, None] - x[None, :]) ** 2 + (y[:, None] - y[None, :]) ** 2
    np.fill_diagonal(distance, np.inf)
    target = int(np.argmax(distance.min(axis=1)))
    move(view.canvas.plot.viewport(), pixel(view, float(x[target]), float(y[target])))
    qtbot.waitUntil(lambda: view.canvas.hover_index == target, timeout=3_000)
    assert truth["prompts"][target] in view.canvas.tooltip_text
    assert f"Record {target:,}" in view.canvas.tooltip_text
    reads = view.records.reads
    view.canvas.hover_at(QPointF(-1e6, -1e6))  # away: nothing hovered
    assert view.canvas.hover_index == -1
    view.canvas.hover_at(QPointF(float(x[target]), float(y[target])))
    assert view.canvas.hover_index == target and view.records.reads == reads  # cached


def test_selection_is_linked_between_the_table_and_the_map(
    qtbot, window: MainWindow, analysed_project: Path
) -> None:
    view = open_map(qtbot, window, analysed_project)
    records = window.open_view("records", ANALYSED)
    records.select_position(123)  # table -> map
    assert view.canvas.selected_index == 123
    assert view.detail.record is not None and view.detail.record.seq == 123
    window.tabs.setCurrentWidget(view)
    x, y = view.canvas.cloud.x, view.canvas.cloud.y
    distance = (x[:, None] - x[None, :]) ** 2 + (y[:, None] - y[None, :]) ** 2
    np.fill_diagonal(distance, np.inf)
    target = int(np.argmax(distance.min(axis=1)))
    view.set_tool("pan")
    click(
        view.canvas.plot.viewport(), pixel(view, float(x[target]), float(y[target]))
    )  # map -> table
    qtbot.waitUntil(lambda: records.detail.record is not None
                    and records.detail.record.seq == target, timeout=3_000)  # fmt: skip
    current = records.table.currentIndex()
    assert records.model.position(current.row()) == target
    assert view.canvas.selected_index == target
    view.show_records.click()  # "Show in Records" brings the table forward on the record
    assert window.tabs.currentWidget() is records


def test_compute_map_from_the_empty_view(qtbot, window: MainWindow, tmp_path: Path) -> None:
    """A dataset with embeddings but no map: one click (and the options dialog) makes one."""
    from tests.core._planted import planted_vectors, write_set
    from tests.gui.conftest import make_project, tiny_rows
    from vendiscope.core.store.project import Project
    from vendiscope.gui.dialogs.pipeline_dialogs import MapDialog

    window.jobs.run_in_child_process = False  # PCA needs no process of its own
    path = make_project(tmp_path / "nomap.vscope", tiny_rows(120), name=ANALYSED)
    with Project.open(path) as project:
        write_set(
            project, ANALYSED, "embeddings/x", planted_vectors((60, 40, 20))[0], kind="embedding"
        )
    open_project(qtbot, window, path)
    view = window.open_view("map", ANALYSED)
    qtbot.waitUntil(lambda: view.pages.currentWidget() is view.empty, timeout=10_000)
    assert view.empty_button.text() == "Compute the map…"
    screenshot(window, "map-empty")

    def choose_pca() -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, MapDialog):
            QTimer.singleShot(20, choose_pca)
            return
        dialog.method.setCurrentIndex(dialog.method.findData("pca"))
        dialog.accept()

    QTimer.singleShot(20, choose_pca)
    view.empty_button.click()
    job = window.jobs.jobs[-1]
    assert job.kind == "map"
    assert wait_job(qtbot, job).state == JobState.DONE, job.error_details
    qtbot.waitUntil(lambda: view.map is not None and view.pages.currentWidget() is view.plot_page,
                    timeout=10_000)  # fmt: skip
    assert view.map.method == "pca" and view.canvas.count == 120


@pytest.mark.parametrize("count", [300_000])
def test_a_large_cloud_draws_density_then_points(qtbot, count: int) -> None:
    """Level of detail: a raster of a crowd when zoomed out, discs when zoomed in."""
    from PySide6.QtCore import QRectF

    from vendiscope.gui.map.canvas import MapCanvas

    canvas = MapCanvas()
    qtbot.addWidget(canvas)
    canvas.resize(900, 650)
    canvas.show()
    qtbot.waitExposed(canvas)
    rng = np.random.default_rng(0)
    canvas.set_points(rng.normal(size=count), rng.normal(size=count))
    QApplication.processEvents()
    canvas.plot.viewport().repaint()
    assert canvas.cloud.stats.mode == "density" and canvas.cloud.stats.visible == count
    canvas.viewbox.setRange(rect=QRectF(2.5, 2.5, 0.5, 0.5), padding=0)
    QApplication.processEvents()
    canvas.plot.viewport().repaint()
    stats = canvas.cloud.stats
    visible = canvas.cloud.inside_rect(canvas.viewbox.viewRect())
    assert stats.mode == "points" and 0 < len(visible) <= stats.visible < 2_000


def test_the_map_in_a_dark_palette(qtbot, settings, analysed_project: Path) -> None:
    """Colours come from the palette: the categorical hues are lifted on a dark base."""
    from vendiscope.gui.widgets.style import dark_palette

    app = QApplication.instance()
    light = app.palette()
    app.setPalette(dark_palette())
    try:
        window = MainWindow(settings)
        qtbot.addWidget(window)
        window.resize(1366, 768)
        window.show()
        view = open_map(qtbot, window, analysed_project)
        background = view.canvas.plot.backgroundBrush().color()
        assert background.lightness() < 80  # the dark base, not white
        assert all(c.lightness() > 90 for c in view.colours)  # readable on it
        screenshot(window, "dark-map")
        window.document.close()
    finally:
        app.setPalette(light)


def test_the_map_tab_shows_it_is_loading_at_once(
    qtbot, window: MainWindow, analysed_project: Path
) -> None:
    open_project(qtbot, window, analysed_project)
    view = window.open_view("map", ANALYSED)
    assert window.tabs.currentWidget() is view  # the tab is there before anything is read
    assert view.pages.currentWidget() is view.loading
    assert view.loading_text.text() == f"Loading the map of “{ANALYSED}”…"
    assert view.loading_bar.isVisible() and view.loading_bar.maximum() == 0  # busy
    screenshot(window, "map-loading")
    qtbot.waitUntil(lambda: view.map is not None and view.colouring is not None, timeout=15_000)
    assert view.pages.currentWidget() is view.plot_page and view.canvas.count == len(
        view.map.coords
    )
