"""One interactive renderer for every chart description (:mod:`vendiscope.core.plugin_host.charts`).

A view plugin returns plain data; this widget draws any valid description with pyqtgraph —
``scatter`` (through the map's point cloud: any number of points, hover, click), ``line``,
``bar`` (grouped), ``histogram`` and ``heatmap`` (with a colour bar) — so no plugin needs GUI
code. Series named in parentheses (``"(random)"``) are references: grey, beneath, dashed.

The legend of a line, bar or histogram chart is a widget below the plot (it can cover no
data); category names on an axis are shortened to the room each category has (every name
in full in the axis' tooltip and in the bar's).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtGui import QColor, QFontMetrics, QPalette
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QStackedWidget,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from vendiscope.core.plugin_host.charts import DEFAULT_BINS, validate_chart
from vendiscope.gui.map.canvas import MapCanvas, style_axes
from vendiscope.gui.widgets import palettes
from vendiscope.gui.widgets.legend import CategoryLegend, ColorBar, LegendEntry, SeriesLegend
from vendiscope.gui.widgets.text import markup, plain_label, plain_tip

MAX_TICKS = 30
TICK_CHARS = 18
TICK_GAP_PX = 10
"""Room kept free between two category names on an axis."""
HOVER_PX = 10.0


class CategoryAxis(pg.AxisItem):
    """An axis that names categories at ``offset + i``, each shortened to the room it has.

    Without categories it is an ordinary numeric axis. On a horizontal axis a name gets
    the width of one category (less a gap): long names are elided, never drawn over their
    neighbours; when even a few letters do not fit, only every n-th category is named.
    """

    def __init__(self, orientation: str, **kwargs: Any) -> None:
        super().__init__(orientation, **kwargs)
        self.names: list[str] | None = None
        self.offset = 0.0
        self._room: float | None = None  # pixels per named category, set by tickValues

    def set_categories(self, names: list[str] | None, offset: float = 0.0) -> None:
        self.names, self.offset = names, offset
        self.picture = None
        self.update()

    def _metrics(self) -> QFontMetrics:
        return QFontMetrics(self.style.get("tickFont") or QApplication.font())

    def tickValues(self, minVal: float, maxVal: float, size: float) -> list[Any]:
        if not self.names:
            return super().tickValues(minVal, maxVal, size)
        count = len(self.names)
        low, high = sorted((minVal, maxVal))  # an inverted axis (a heatmap's rows) too
        per = size / max(high - low, 1e-9)  # pixels per category
        if self.orientation in ("left", "right"):
            step = max(1, int(np.ceil(self._metrics().height() * 1.2 / max(per, 1e-9))))
        else:
            least = self._metrics().horizontalAdvance("Mm…") + TICK_GAP_PX
            step = max(1, int(np.ceil(least / max(per, 1e-9))), int(np.ceil(count / MAX_TICKS)))
        self._room = per * step
        values = [i + self.offset for i in range(0, count, step)]
        return [(float(step), [v for v in values if low - 1 <= v <= high + 1])]

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        if not self.names:
            return super().tickStrings(values, scale, spacing)
        metrics = self._metrics()
        vertical = self.orientation in ("left", "right")
        room = TICK_CHARS * metrics.averageCharWidth() if vertical else (self._room or 0)
        strings = []
        for value in values:
            index = round(value - self.offset)
            name = self.names[index] if 0 <= index < len(self.names) else ""
            width = max(int(room) - (0 if vertical else TICK_GAP_PX), 1)
            strings.append(metrics.elidedText(name, Qt.TextElideMode.ElideRight, width))
        return strings

    def name_at(self, value: float) -> str | None:
        """The full name of the category at data coordinate ``value``."""
        if not self.names:
            return None
        index = int(np.floor(value - self.offset + 0.5))
        return self.names[index] if 0 <= index < len(self.names) else None


class ChartRenderer(QWidget):
    """Draws a chart description; ``items`` holds what it drew (name, pyqtgraph item)."""

    point_activated = Signal(int)  # a record position (scatter series with ``index``)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        palette = self.palette()
        self.title = plain_label()
        self.title.setObjectName("sectionTitle")
        self.title.setWordWrap(True)
        self.plot = pg.PlotWidget(
            background=palette.color(QPalette.ColorRole.Base),
            axisItems={"bottom": CategoryAxis("bottom"), "left": CategoryAxis("left")},
        )
        self.plot.setObjectName("chartPlot")
        self.plot.setMenuEnabled(False)
        self.plot.hideButtons()
        style_axes(self.plot.getPlotItem(), palette)
        self.plot.scene().sigMouseMoved.connect(self._hover)
        self.canvas = MapCanvas(axes=True, lock_aspect=False)
        self.canvas.tooltip = self._point_tooltip
        self.canvas.clicked.connect(self._point_clicked)
        self.legend_list = CategoryLegend()
        self.legend_list.hidden_changed.connect(self.canvas.set_hidden)
        self.colour_bar = ColorBar()
        self.side = QStackedWidget()
        self.side.addWidget(self.legend_list)
        self.side.addWidget(self.colour_bar)
        self.side.setMaximumWidth(260)
        scatter = QWidget()
        scatter_layout = QHBoxLayout(scatter)
        scatter_layout.setContentsMargins(0, 0, 0, 0)
        scatter_layout.addWidget(self.canvas, 1)
        scatter_layout.addWidget(self.side)
        self.series_legend = SeriesLegend()  # below the plot: it covers no bar and no line
        plotted = QWidget()
        plotted_layout = QVBoxLayout(plotted)
        plotted_layout.setContentsMargins(0, 0, 0, 0)
        plotted_layout.setSpacing(6)
        plotted_layout.addWidget(self.plot, 1)
        plotted_layout.addWidget(self.series_legend)
        self.plot_page = plotted
        self.pages = QStackedWidget()
        self.pages.addWidget(plotted)
        self.pages.addWidget(scatter)
        self.scatter_page = scatter
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.pages, 1)
        self.chart: dict[str, Any] | None = None
        self.items: list[tuple[str, Any]] = []
        self.tooltip_text = ""
        self.legend_entries: list[LegendEntry] = []
        self._colour_bar_item: Any = None
        self._hover_data: list[tuple[str, np.ndarray, np.ndarray, list[str] | None]] = []
        self._labels: list[str] | None = None
        self._points_index: np.ndarray | None = None
        self._points_series: list[str] = []
        self._bars: dict[str, Any] = {}
        self._grid: tuple[np.ndarray, list[str], list[str]] | None = None

    # ------------------------------------------------------------------ entry
    def set_chart(self, chart: dict[str, Any]) -> None:
        """Validate and draw ``chart`` (raises ``ValueError`` naming a bad field)."""
        validate_chart(chart)
        self._clear()
        self.chart = chart
        self.title.setText(chart["title"])
        kind = chart["kind"]
        if kind == "scatter":
            self.pages.setCurrentWidget(self.scatter_page)
            self._scatter(chart)
            return
        self.pages.setCurrentWidget(self.plot_page)
        text = self.palette().color(QPalette.ColorRole.Text).name()
        self.plot.setLabel("bottom", markup(chart.get("x_label", "")), color=text)  # HTML
        self.plot.setLabel("left", markup(chart.get("y_label", "")), color=text)
        self.plot.setLogMode(x=False, y=bool(chart.get("y_log")))
        {"line": self._line, "bar": self._bar, "histogram": self._histogram,
         "heatmap": self._heatmap}[kind](chart)  # fmt: skip
        legend = kind != "heatmap" and (len(chart["series"]) > 1 or kind == "line")
        self.series_legend.set_entries(self.legend_entries if legend else [])
        self.plot.enableAutoRange()

    def _clear(self) -> None:
        item = self.plot.getPlotItem()
        extra = self._colour_bar_item
        if extra is not None:
            item.layout.removeItem(extra)
            if extra.scene() is not None:
                extra.scene().removeItem(extra)
        self._colour_bar_item = None
        self.legend_entries = []
        self.series_legend.set_entries([])
        self.plot.clear()
        for axis in ("bottom", "left"):
            item.getAxis(axis).set_categories(None)
        view = item.getViewBox()
        view.invertY(False)
        self.items, self._hover_data, self._bars, self._grid = [], [], {}, None
        self._labels, self._points_index, self._points_series = None, None, []

    def _colours(self, series: list[dict[str, Any]]) -> list[QColor]:
        palette = self.palette()
        strong = palettes.categorical(palette, len(series))
        grey = palettes.background(palette)
        colours, number = [], 0
        for one in series:
            if palettes.is_background(one["name"]):
                colours.append(grey)
            else:
                colours.append(strong[number])
                number += 1
        return colours

    # ------------------------------------------------------------------ kinds
    def _line(self, chart: dict[str, Any]) -> None:
        for one, colour in zip(chart["series"], self._colours(chart["series"]), strict=True):
            behind = palettes.is_background(one["name"])
            style = Qt.PenStyle.DashLine if behind else Qt.PenStyle.SolidLine
            pen = pg.mkPen(colour, width=1.8 if behind else 2.2, style=style)
            few = len(one["x"]) <= 40
            item = self.plot.plot(
                one["x"], one["y"], pen=pen, name=one["name"],
                symbol="o" if few and not behind else None, symbolSize=5, symbolBrush=colour,
                symbolPen=None,
            )  # fmt: skip
            item.setZValue(-1 if behind else 0)
            self.legend_entries.append(
                LegendEntry(one["name"], colour, "dash" if behind else "line",
                            marker=few and not behind, width=1.8 if behind else 2.2)
            )  # fmt: skip
            self.items.append((one["name"], item))
            self._hover_data.append(
                (
                    one["name"],
                    np.asarray(one["x"], float),
                    np.asarray(one["y"], float),
                    one.get("label"),
                )
            )

    def _bar(self, chart: dict[str, Any]) -> None:
        categories: list[str] = []
        for one in chart["series"]:
            for name in one["x"]:
                if name not in categories:
                    categories.append(name)
        where = {name: i for i, name in enumerate(categories)}
        count = len(chart["series"])
        width = 0.8 / count
        for number, (one, colour) in enumerate(
            zip(chart["series"], self._colours(chart["series"]), strict=True)
        ):
            positions = np.array([where[c] for c in one["x"]], dtype=float)
            positions += -0.4 + width * (number + 0.5)
            fill = QColor(colour)
            fill.setAlpha(210)
            item = pg.BarGraphItem(
                x=positions, height=one["y"], width=width * 0.92, brush=fill,
                pen=pg.mkPen(colour.darker(120)), name=one["name"],
            )  # fmt: skip
            self.plot.addItem(item)
            self.legend_entries.append(LegendEntry(one["name"], colour, "bar"))
            self.items.append((one["name"], item))
            self._bars[one["name"]] = (positions, np.asarray(one["y"], float), one["x"],
                                       one.get("label"), width)  # fmt: skip
        self._category_ticks("bottom", categories)

    def _histogram(self, chart: dict[str, Any]) -> None:
        values = [np.asarray(one["values"], dtype=float) for one in chart["series"]]
        everything = np.concatenate(values) if values else np.empty(0)
        bins = int(chart.get("bins", DEFAULT_BINS))
        edges = np.histogram_bin_edges(everything, bins=bins) if len(everything) else np.arange(2.0)
        for one, data, colour in zip(
            chart["series"], values, self._colours(chart["series"]), strict=True
        ):
            counts, _ = np.histogram(data, bins=edges)
            fill = QColor(colour)
            fill.setAlpha(90)
            item = self.plot.plot(
                edges, counts, stepMode="center", fillLevel=0, fillBrush=fill,
                pen=pg.mkPen(colour, width=1.6), name=one["name"],
            )  # fmt: skip
            self.items.append((one["name"], item))
            self.legend_entries.append(LegendEntry(one["name"], colour, "bar"))
            centres = (edges[:-1] + edges[1:]) / 2
            self._hover_data.append((one["name"], centres, counts.astype(float), None))

    def _heatmap(self, chart: dict[str, Any]) -> None:
        one = chart["series"][0]
        z = np.asarray(one["z"], dtype=float)
        rows, columns = z.shape
        image = pg.ImageItem(z, axisOrder="row-major")
        image.setRect(0, 0, columns, rows)
        low, high = float(np.nanmin(z)), float(np.nanmax(z))
        if high <= low:
            high = low + 1.0
        colours = palettes.scale_colours(9)
        colour_map = pg.ColorMap(np.linspace(0, 1, len(colours)), [c.getRgb() for c in colours])
        image.setColorMap(colour_map)
        image.setLevels((low, high))
        self.plot.addItem(image)
        view = self.plot.getPlotItem().getViewBox()
        view.invertY(True)  # row 0 at the top, as in a table
        bar = pg.ColorBarItem(values=(low, high), colorMap=colour_map, interactive=False, width=14)
        bar.setImageItem(image, insert_in=self.plot.getPlotItem())
        self._colour_bar_item = bar
        self.items.append((one["name"], image))
        x_names = one.get("x") or [str(i) for i in range(columns)]
        y_names = one.get("y") or [str(i) for i in range(rows)]
        self._category_ticks("bottom", x_names, offset=0.5)
        self._category_ticks("left", y_names, offset=0.5)
        self._grid = (z, x_names, y_names)

    def _category_ticks(self, axis: str, names: list[str], offset: float = 0.0) -> None:
        self.plot.getPlotItem().getAxis(axis).set_categories(list(names), offset)

    def _scatter(self, chart: dict[str, Any]) -> None:
        series = chart["series"]
        x = np.concatenate([np.asarray(s["x"], dtype=np.float32) for s in series])
        y = np.concatenate([np.asarray(s["y"], dtype=np.float32) for s in series])
        self.canvas.plot.setLabel("bottom", markup(chart.get("x_label", "")))
        self.canvas.plot.setLabel("left", markup(chart.get("y_label", "")))
        labels: list[str] = []
        has_labels = any("label" in s for s in series)
        index = []
        names = []
        for one in series:
            n = len(one["x"])
            names.extend([one["name"]] * n)
            if has_labels:
                labels.extend(one.get("label") or [""] * n)
            index.extend(one.get("index") or [-1] * n)
        self._labels = labels if has_labels else None
        self._points_index = np.asarray(index, dtype=np.int64)
        self._points_series = names
        self.canvas.set_points(x, y)
        palette = self.palette()
        if any("color" in s for s in series):
            values = np.concatenate(
                [np.asarray(s.get("color") or [np.nan] * len(s["x"]), float) for s in series]
            )
            finite = values[np.isfinite(values)]
            low, high = (float(finite.min()), float(finite.max())) if len(finite) else (0.0, 1.0)
            high = high if high > low else low + 1.0
            steps = palettes.SCALE_STEPS
            scaled = np.clip((values - low) / (high - low), 0, 1)
            codes = np.where(
                np.isfinite(values), np.round(np.nan_to_num(scaled) * (steps - 1)), steps
            )
            colours = [*palettes.scale_colours(steps), palettes.background(palette)]
            background = np.zeros(steps + 1, dtype=bool)
            background[steps] = True
            self.canvas.set_colours(codes.astype(np.int32), palettes.argb(colours), background)
            self.colour_bar.set_scale(colours[:steps], low, high, series[0]["name"])
            self.side.setCurrentWidget(self.colour_bar)
        else:
            categories = [
                c for s in series for c in (s.get("category") or [s["name"]] * len(s["x"]))
            ]
            found: dict[str, int] = {}
            codes = np.fromiter(
                (found.setdefault(c, len(found)) for c in categories),
                dtype=np.int32,
                count=len(categories),
            )
            names_of = list(found)
            counts = np.bincount(codes, minlength=len(names_of)).tolist()
            background = np.array([palettes.is_background(n) for n in names_of], dtype=bool)
            strong = palettes.categorical(palette, len(names_of))
            grey = palettes.background(palette)
            order = sorted(range(len(names_of)), key=lambda c: (background[c], -counts[c]))
            colours: list[QColor] = [grey] * len(names_of)
            for rank, code in enumerate(c for c in order if not background[c]):
                colours[code] = strong[rank]
            self.canvas.set_colours(codes, palettes.argb(colours), background)
            self.legend_list.set_categories(names_of, counts, colours, order=order)
            self.side.setCurrentWidget(self.legend_list)
        self.items.append((series[0]["name"], self.canvas.cloud))

    # ------------------------------------------------------------------ hover
    def _point_tooltip(self, number: int) -> str:
        """The hover tooltip of scatter point ``number`` (names from the data, as text)."""
        parts = []
        if self._labels is not None and self._labels[number]:
            parts.append(self._labels[number])
        record = int(self._points_index[number]) if self._points_index is not None else -1
        if record >= 0:
            parts.append(f"record {record:,}")
        if not parts:
            x, y = float(self.canvas.cloud.x[number]), float(self.canvas.cloud.y[number])
            parts.append(f"{self._points_series[number]}: ({x:.4g}, {y:.4g})")
        return plain_tip("\n".join(parts))

    def _point_clicked(self, number: int) -> None:
        if number >= 0 and self._points_index is not None and self._points_index[number] >= 0:
            self.point_activated.emit(int(self._points_index[number]))

    def _hover(self, scene_pos: QPointF) -> None:
        if self.chart is None or self.chart["kind"] == "scatter":
            return
        view = self.plot.getPlotItem().getViewBox()
        if not view.sceneBoundingRect().contains(scene_pos):
            found = self.axis_name_at(scene_pos) or ""
        else:
            found = self.describe_at(view.mapSceneToView(scene_pos))
        self.tooltip_text = plain_tip(found)  # series and category names come from data
        if self.tooltip_text:
            QToolTip.showText(
                self.plot.mapToGlobal(self.plot.mapFromScene(scene_pos)),
                self.tooltip_text,
                self.plot,
            )
        else:
            QToolTip.hideText()

    def axis_name_at(self, scene_pos: QPointF) -> str | None:
        """The full category name under the mouse on a category axis (names are shortened)."""
        item = self.plot.getPlotItem()
        view = item.getViewBox()
        point = view.mapSceneToView(scene_pos)
        for name, value in (("bottom", point.x()), ("left", point.y())):
            axis = item.getAxis(name)
            if axis.names and axis.sceneBoundingRect().contains(scene_pos):
                return axis.name_at(value)
        return None

    def describe_at(self, point: QPointF) -> str:
        """What is under data point ``point``: a bar, a heatmap cell or the nearest line point."""
        x, y = point.x(), point.y()
        if self._grid is not None:
            z, x_names, y_names = self._grid
            column, row = int(np.floor(x)), int(np.floor(y))
            if 0 <= row < z.shape[0] and 0 <= column < z.shape[1]:
                return f"{y_names[row]} × {x_names[column]}: {z[row, column]:.4g}"  # noqa: RUF001
            return ""
        for name, (positions, heights, categories, labels, width) in self._bars.items():
            hit = np.flatnonzero(np.abs(positions - x) <= width / 2)
            for i in hit:
                if min(0.0, heights[i]) <= y <= max(0.0, heights[i]):
                    extra = f"\n{labels[i]}" if labels else ""
                    return f"{name}\n{categories[i]}: {heights[i]:.4g}{extra}"
        view = self.plot.getPlotItem().getViewBox()
        width, height = view.viewPixelSize()
        best, text = HOVER_PX**2, ""
        for name, xs, ys, labels in self._hover_data:
            if not len(xs):
                continue
            distance = ((xs - x) / width) ** 2 + ((ys - y) / height) ** 2
            i = int(np.argmin(distance))
            if distance[i] <= best:
                best = distance[i]
                extra = f"\n{labels[i]}" if labels else ""
                text = f"{name}\n{xs[i]:.4g}, {ys[i]:.4g}{extra}"
        return text
