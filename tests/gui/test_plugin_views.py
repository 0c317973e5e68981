"""Views from plugins: the Views menu, one renderer for every chart kind, failures shown."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMenu

from tests.gui.conftest import ANALYSED, open_project, screenshot
from vendiscope.gui.main_window import MainWindow
from vendiscope.gui.param_form import ParamDialog
from vendiscope.gui.plugin_views import ChartTab

BUILT_IN_VIEWS = {
    "map", "cluster-coverage", "selection-curves", "spectrum", "composition", "coverage",
    "near-duplicates",
}  # fmt: skip


@pytest.fixture
def registry():
    """The built-in plugins plus the test views (histogram, heatmap and broken ones)."""
    from tests.gui import _views
    from vendiscope.core.plugins.registry import PluginRegistry
    from vendiscope.plugins import manifest as builtins

    found = PluginRegistry()
    found.add_manifest(builtins)
    found.add_manifest(_views.manifest())
    return found


def show(qtbot, window: MainWindow, name: str, **params) -> ChartTab:
    tab = window.plugin_views.open(name, ANALYSED, params=params, ask=False)
    assert tab is not None
    qtbot.waitUntil(lambda: tab.chart is not None or tab.error is not None, timeout=20_000)
    return tab


def test_the_views_menu_lists_every_view_plugin(qtbot, window: MainWindow, analysed_project):
    from vendiscope.core.plugins.registry import default_registry

    open_project(qtbot, window, analysed_project)
    menu: QMenu = window.actions_.views_menu
    window.plugin_views.fill_menu(menu)  # what opening the menu does
    listed = [a.data() for a in menu.actions() if a.data()]
    assert listed == [c.name for c in default_registry().contributions("view")]
    assert set(listed) >= BUILT_IN_VIEWS
    assert all(a.isEnabled() for a in menu.actions() if a.data())


def test_one_renderer_draws_every_chart_kind(
    qtbot, window: MainWindow, analysed_project: Path, registry
) -> None:
    window.plugin_views.set_registry(registry)
    open_project(qtbot, window, analysed_project)

    scatter = show(qtbot, window, "map")  # built-in: the map as a scatter of records
    chart = scatter.chart
    assert chart["kind"] == "scatter" and scatter.error is None
    cloud = scatter.renderer.canvas.cloud
    series = chart["series"][0]
    assert np.allclose(cloud.x, series["x"]) and np.allclose(cloud.y, series["y"])
    names = {scatter.renderer.legend_list.item(i).text().split("  ·  ")[0]
             for i in range(scatter.renderer.legend_list.count())}  # fmt: skip
    assert names == set(series["category"])
    screenshot(window, "view-map")

    line = show(qtbot, window, "selection-curves")  # built-in: lines, the baseline dashed
    drawn = dict(line.renderer.items)
    for one in line.chart["series"]:
        xs, ys = drawn[one["name"]].getData()
        assert list(xs) == one["x"] and list(ys) == one["y"]
    assert "(random)" in drawn

    bars = show(qtbot, window, "cluster-coverage")  # built-in: grouped bars
    drawn = dict(bars.renderer.items)
    for one in bars.chart["series"]:
        assert list(drawn[one["name"]].opts["height"]) == one["y"]
    screenshot(window, "view-cluster-coverage")

    histogram = show(qtbot, window, "lengths", bins=8)
    values = histogram.chart["series"][0]["values"]
    xs, counts = dict(histogram.renderer.items)["prompt"].getData()
    expected, edges = np.histogram(values, bins=8)
    assert list(counts) == expected.tolist() and np.allclose(xs, edges)

    heatmap = show(qtbot, window, "grid")
    from tests.gui._views import HEATMAP_Z

    image = dict(heatmap.renderer.items)["grid"].image
    assert np.array_equal(image, np.array(HEATMAP_Z))
    assert heatmap.renderer.describe_at(heatmap.renderer.plot.getPlotItem().vb.mapSceneToView(
        heatmap.renderer.plot.getPlotItem().vb.mapViewToScene(_point(2.5, 1.5)))) == (
        "second × c: 6.5"  # noqa: RUF001
    )  # fmt: skip
    screenshot(window, "view-heatmap")


def _point(x: float, y: float):
    from PySide6.QtCore import QPointF

    return QPointF(x, y)


def test_a_view_with_parameters_asks_for_them_first(
    qtbot, window: MainWindow, analysed_project: Path
) -> None:
    open_project(qtbot, window, analysed_project)
    seen: list[list[str]] = []

    def answer() -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, ParamDialog):
            QTimer.singleShot(20, answer)
            return
        seen.append(list(dialog.form.fields))
        dialog.form.set_value("color_by", "source")
        dialog.accept()

    QTimer.singleShot(20, answer)
    tab = window.plugin_views.open("map", ANALYSED)
    assert seen and seen[0][:2] == ["color_by", "score"]
    assert tab.params == {"color_by": "source"}
    qtbot.waitUntil(lambda: tab.chart is not None, timeout=20_000)
    assert set(tab.chart["series"][0]["category"]) == {"c0", "c1", "c2", "c3"}


def test_a_broken_view_shows_a_readable_error_not_a_crash(
    qtbot, window: MainWindow, analysed_project: Path, registry
) -> None:
    from vendiscope.gui.error_dialog import ErrorDialog

    window.plugin_views.set_registry(registry)
    open_project(qtbot, window, analysed_project)
    crashing = show(qtbot, window, "crashing")
    assert crashing.pages.currentWidget() is crashing.error_page
    assert "divided by zero" in crashing.error_label.text()
    assert "view 'crashing'" in crashing.error_label.text()
    crashing.show_details()
    dialog = crashing.findChild(ErrorDialog, "viewErrorDialog")
    assert dialog is not None and "RuntimeError" in dialog.details
    dialog.reject()
    screenshot(window, "view-error")

    misshapen = show(qtbot, window, "misshapen")
    assert "chart schema" in misshapen.error_label.text()
    assert "chart.kind" in misshapen.error_label.text()

    missing = show(qtbot, window, "missing")
    assert "failed to load" in missing.error_label.text()

    not_computed = show(qtbot, window, "near-duplicates")  # no near-duplicate run yet
    assert "not computed yet" in not_computed.error_label.text()
    assert not not_computed.fix_button.isHidden()
    assert not_computed.fix_button.property("step") == "near-duplicates"

    working = show(qtbot, window, "spectrum")  # the window carries on
    assert working.chart is not None and working.error is None
