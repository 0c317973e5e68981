"""Legends beside the charts (readable, with swatches, over no data) and category labels
that never overlap: the dashboard's spectrum and the composition-by-source chart."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import numpy as np
from PySide6.QtCore import QPoint, QRect
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtWidgets import QScrollArea

from tests.gui.conftest import make_project, open_project, screenshot
from vendiscope.gui.windows.main_window import MainWindow

LONG_SOURCES = [
    f"{name}-questions-collected-from-the-public-forum-archive"
    for name in ("arithmetic", "geometry", "chemistry", "biology", "history", "poetry")
]


def swatch_has(entry, colour: QColor) -> bool:
    """Whether the entry's swatch is drawn in ``colour`` (some pixel close to it)."""
    image = entry.swatch.pixmap().toImage()
    for x in range(image.width()):
        for y in range(image.height()):
            pixel = image.pixelColor(x, y)
            if pixel.alpha() > 200 and all(
                abs(a - b) < 40
                for a, b in zip(pixel.getRgb()[:3], colour.getRgb()[:3], strict=True)
            ):
                return True
    return False


def inside(widget, ancestor) -> QRect:
    return QRect(widget.mapTo(ancestor, QPoint(0, 0)), widget.size())


def test_the_spectrum_legend_is_whole_with_swatches_and_below_the_curves(
    qtbot, window: MainWindow, demo_project: Path
) -> None:
    from vendiscope.gui.dashboard.spectrum_plot import series_colours

    open_project(qtbot, window, demo_project)
    dashboard = window.open_view("dashboard", "demo")
    qtbot.waitUntil(lambda: dashboard.summary is not None, timeout=20_000)
    spectrum = dashboard.spectrum
    legend = spectrum.legend
    assert spectrum.plot.getPlotItem().legend is None  # nothing drawn over the curves
    assert legend.names() == [
        "G-Vendi (gradients/fast)",
        "Embedding-Vendi (sentence-transformers/prompt+response)",
    ]
    qtbot.waitUntil(lambda: legend.isVisible() and legend.height() > 0)
    assert legend.shown_texts() == legend.names()  # in full at 1366x768: nothing clipped
    colours = series_colours(spectrum.palette())
    for entry, metric in zip(legend.entries, ("gvendi", "vendi"), strict=True):
        assert swatch_has(entry, colours[metric])
        assert "run #" in entry.toolTip()
        box = inside(entry, spectrum)
        assert box.width() >= entry.full_width()  # the whole name has room
        assert box.top() >= inside(spectrum.plot, spectrum).bottom()  # below the plot
    # and on screen: the dashboard fits the window, legend included, without scrolling
    viewport = dashboard.findChild(QScrollArea).viewport()
    assert inside(legend, viewport).bottom() <= viewport.height()
    screenshot(window, "dashboard-spectrum-legend")


def analysed_by_embeddings_only(path: Path) -> Path:
    """Six long-named sources, embeddings and embedding-Vendi only (no G-Vendi)."""
    from tests.core._planted import planted_vectors, write_set
    from vendiscope.core.metrics.scoring import score_dataset
    from vendiscope.core.store.project import Project

    rows = [
        {"prompt": f"question {i}", "response": f"answer {i}", "domain": LONG_SOURCES[i % 6]}
        for i in range(180)
    ]
    make_project(path, rows, name="mixed")
    with Project.open(path) as project:
        vectors, _ = planted_vectors((60, 50, 40, 30))
        write_set(project, "mixed", "embeddings/test", vectors[:180], kind="embedding")
        score_dataset(project, "mixed", metric="vendi", vector_set="embeddings/test")
    return path


def drawn_labels(axis) -> list[tuple[QRect, str]]:
    image = QImage(10, 10, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    try:
        _axis, _ticks, texts = axis.generateDrawSpecs(painter)
    finally:
        painter.end()
    return [(rect.toRect(), text) for rect, _flags, text in texts]


def test_composition_defaults_to_the_score_there_is_and_its_labels_never_overlap(
    qtbot, window: MainWindow, tmp_path: Path
) -> None:
    from vendiscope.core.plugin_host.params import describe_params
    from vendiscope.plugins.views.composition import CompositionView

    metric = next(spec for spec in describe_params(CompositionView) if spec.name == "metric")
    assert metric.default == "auto"
    path = analysed_by_embeddings_only(tmp_path / "mixed.vscope")
    open_project(qtbot, window, path)
    tab = window.plugin_views.open("composition", "mixed", params={}, ask=False)
    qtbot.waitUntil(lambda: tab.chart is not None or tab.error is not None, timeout=20_000)
    assert tab.error is None, tab.error
    assert "embedding-Vendi" in tab.chart["title"]  # not "G-Vendi not computed"
    renderer = tab.renderer
    legend = renderer.series_legend
    assert renderer.plot.getPlotItem().legend is None  # the legend covers no bar
    assert legend.names() == ["embedding-Vendi of the source alone", "contribution to the whole"]
    assert inside(legend, renderer).top() >= inside(renderer.plot, renderer).bottom()
    qtbot.wait(50)

    axis = renderer.plot.getPlotItem().getAxis("bottom")
    names = [str(name) for name in tab.chart["series"][0]["x"]]
    labels = drawn_labels(axis)
    assert len(labels) == len(names)  # every source named...
    for (one, _), (other, _) in pairwise(labels):
        assert not one.intersects(other)  # ...and no two names overlap
    shortened = [text for _, text in labels if text not in names]
    assert shortened and all(text.endswith("…") for text in shortened)
    rect, _text = labels[0]
    at = axis.mapToScene(rect.center().toPointF())
    assert renderer.axis_name_at(at) == names[0]  # the full name in the axis' tooltip
    screenshot(window, "view-composition-long-sources")

    window.resize(900, 700)  # narrower: shorter names, still apart
    qtbot.waitUntil(lambda: renderer.plot.width() < 700, timeout=5_000)
    labels = drawn_labels(axis)
    for (one, _), (other, _) in pairwise(labels):
        assert not one.intersects(other)
    assert np.all([len(text) >= 2 for _, text in labels])


def test_category_axes_name_rows_and_columns_of_a_heatmap(qtbot) -> None:
    from vendiscope.gui.view_host.chart_renderer import ChartRenderer

    renderer = ChartRenderer()
    qtbot.addWidget(renderer)
    renderer.resize(800, 500)
    renderer.show()
    qtbot.waitExposed(renderer)
    renderer.set_chart({"kind": "heatmap", "title": "A grid", "series": [
        {"name": "grid", "z": [[1.0, 2.0, 3.0], [4.0, 5.0, 6.5]], "x": ["a", "b", "c"],
         "y": ["first", "second"]},
    ]})  # fmt: skip
    qtbot.wait(100)
    item = renderer.plot.getPlotItem()
    assert [t for _, t in drawn_labels(item.getAxis("left"))] == ["first", "second"]  # inverted
    assert [t for _, t in drawn_labels(item.getAxis("bottom"))] == ["a", "b", "c"]
    assert not renderer.series_legend.isVisibleTo(renderer)  # a heatmap has its colour bar
