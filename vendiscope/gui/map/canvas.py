"""An interactive scatter canvas: a :class:`~vendiscope.gui.map.point_cloud.PointCloud` in a plot.

Pan with the left button and zoom with the wheel (tool ``pan``), or drag a rectangle
(``rect``) or a free-hand lasso (``lasso``) to select the points inside. Hovering a point
shows its tooltip (a callback gives the text); clicking one selects it (a ring marks it).
The canvas knows nothing of projects: it speaks in point indices.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QPainterPath, QPalette, QPen
from PySide6.QtWidgets import QGraphicsPathItem, QToolTip, QVBoxLayout, QWidget

from vendiscope.gui.map.point_cloud import PointCloud

TOOLS = ("pan", "rect", "lasso")
HOVER_RADIUS_PX = 8.0


class MapViewBox(pg.ViewBox):
    """A ViewBox whose left-drag draws a selection (rect or lasso) unless the tool is pan."""

    region_drawn = Signal(str, object)  # tool, list of QPointF in data coordinates
    clicked_at = Signal(object)  # QPointF in data coordinates

    def __init__(self) -> None:
        super().__init__(enableMenu=False)
        self.tool = "pan"
        self._path: list[QPointF] = []
        self._overlay: QGraphicsPathItem | None = None

    def set_tool(self, tool: str) -> None:
        if tool not in TOOLS:
            raise ValueError(f"tool must be one of {', '.join(TOOLS)}; got {tool!r}")
        self.tool = tool

    def mouseDragEvent(self, ev, axis=None) -> None:
        if self.tool == "pan" or ev.button() != Qt.MouseButton.LeftButton:
            super().mouseDragEvent(ev, axis)
            return
        ev.accept()
        here = self.mapSceneToView(ev.scenePos())
        if ev.isStart():
            self._path = [self.mapSceneToView(ev.buttonDownScenePos()), here]
            self._show_overlay()
        elif self.tool == "rect":
            self._path[1:] = [here]
        else:
            self._path.append(here)
        self._update_overlay()
        if ev.isFinish():
            path, self._path = self._path, []
            self._hide_overlay()
            self.region_drawn.emit(self.tool, self.region_points(self.tool, path))

    @staticmethod
    def region_points(tool: str, path: list[QPointF]) -> list[QPointF]:
        """The polygon a drag drew: the rectangle's four corners, or the lasso's path."""
        if tool == "rect" and len(path) >= 2:
            a, b = path[0], path[-1]
            return [a, QPointF(b.x(), a.y()), b, QPointF(a.x(), b.y())]
        return list(path)

    def mouseClickEvent(self, ev) -> None:
        if ev.button() == Qt.MouseButton.LeftButton:
            ev.accept()
            self.clicked_at.emit(self.mapSceneToView(ev.scenePos()))
            return
        super().mouseClickEvent(ev)

    def _show_overlay(self) -> None:
        palette = self.scene().views()[0].palette() if self.scene() else QPalette()
        colour = palette.color(QPalette.ColorRole.Highlight)
        self._overlay = QGraphicsPathItem()
        pen = QPen(colour, 1.5, Qt.PenStyle.DashLine)
        pen.setCosmetic(True)
        self._overlay.setPen(pen)
        fill = QColor(colour)
        fill.setAlpha(40)
        self._overlay.setBrush(QBrush(fill))
        self._overlay.setZValue(1000)
        self.addItem(self._overlay, ignoreBounds=True)

    def _update_overlay(self) -> None:
        if self._overlay is None or len(self._path) < 2:
            return
        path = QPainterPath()
        points = self.region_points(self.tool, self._path)
        path.moveTo(points[0])
        for point in points[1:]:
            path.lineTo(point)
        path.closeSubpath()
        self._overlay.setPath(path)

    def _hide_overlay(self) -> None:
        if self._overlay is not None:
            self.removeItem(self._overlay)
            self._overlay = None


class MapCanvas(QWidget):
    """A point cloud with pan/zoom, hover tooltips, click and rectangle/lasso selection."""

    hovered = Signal(int)  # point index, -1 when the mouse left every point
    clicked = Signal(int)  # point index, -1 for a click on empty space
    region_selected = Signal(object)  # np.ndarray of the point indices inside

    def __init__(
        self, *, axes: bool = False, lock_aspect: bool = True, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        palette = self.palette()
        self.viewbox = MapViewBox()
        self.viewbox.setAspectLocked(lock_aspect)
        self.plot = pg.PlotWidget(
            viewBox=self.viewbox, background=palette.color(QPalette.ColorRole.Base)
        )
        self.plot.setObjectName("mapPlot")
        self.plot.hideButtons()
        self.plot.setMenuEnabled(False)
        item = self.plot.getPlotItem()
        if axes:
            style_axes(item, palette)
        else:
            for name in ("left", "bottom"):
                item.hideAxis(name)
        self.cloud = PointCloud()
        self.plot.addItem(self.cloud)
        text = palette.color(QPalette.ColorRole.Text)
        highlight = palette.color(QPalette.ColorRole.Highlight)
        self.selected_marker = _Marker(size=17, pen=pg.mkPen(text, width=2.2))
        self.hover_marker = _Marker(size=13, pen=pg.mkPen(highlight, width=1.6))
        for marker in (self.hover_marker, self.selected_marker):
            marker.setZValue(10)
            self.plot.addItem(marker, ignoreBounds=True)
        self.tooltip: Callable[[int], str] | None = None
        """The hover tooltip of a point, as a tooltip shows it: markup of ours with the data
        escaped (:func:`~vendiscope.gui.records.link.record_tooltip`) or
        :func:`~vendiscope.gui.widgets.text.plain_tip` text."""
        self.tooltip_text = ""
        self.hover_index = -1
        self.selected_index = -1
        self.plot.scene().sigMouseMoved.connect(self._mouse_moved)
        self.viewbox.clicked_at.connect(self._clicked)
        self.viewbox.region_drawn.connect(self._region_drawn)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.plot)

    # ------------------------------------------------------------------ data
    def set_points(self, x: np.ndarray, y: np.ndarray, *, fit: bool = True) -> None:
        self.cloud.set_points(x, y)
        self.set_selected(-1)
        self._set_hover(-1)
        if fit:
            self.fit()

    def set_colours(
        self, codes: np.ndarray, lut: np.ndarray, background: np.ndarray | None = None
    ) -> None:
        self.cloud.set_colours(codes, lut, background)

    def set_hidden(self, hidden: np.ndarray) -> None:
        self.cloud.set_hidden(hidden)

    def set_tool(self, tool: str) -> None:
        self.viewbox.set_tool(tool)
        cursor = Qt.CursorShape.OpenHandCursor if tool == "pan" else Qt.CursorShape.CrossCursor
        self.plot.viewport().setCursor(cursor)

    def fit(self) -> None:
        """Show every point."""
        if len(self.cloud.x):
            self.viewbox.autoRange(items=[self.cloud], padding=0.04)

    @property
    def count(self) -> int:
        return len(self.cloud.x)

    # ------------------------------------------------------------------ selection
    def set_selected(self, index: int, *, reveal: bool = False) -> None:
        """Ring point ``index`` (-1: none); with ``reveal``, pan to it if it is out of view."""
        self.selected_index = index
        if index < 0 or index >= self.count:
            self.selected_marker.setData([], [])
            return
        x, y = float(self.cloud.x[index]), float(self.cloud.y[index])
        self.selected_marker.setData([x], [y])
        if reveal and not self.viewbox.viewRect().contains(QPointF(x, y)):
            rect = self.viewbox.viewRect()
            rect.moveCenter(QPointF(x, y))
            self.viewbox.setRange(rect=rect, padding=0)

    def select_rect(self, rect: QRectF) -> np.ndarray:
        """Select the shown points inside ``rect`` (data coordinates), as a drag would."""
        found = self.cloud.inside_rect(rect)
        self.region_selected.emit(found)
        return found

    def select_polygon(self, points: list[QPointF]) -> np.ndarray:
        """Select the shown points inside a lasso polygon (data coordinates)."""
        found = self.cloud.inside_polygon(points)
        self.region_selected.emit(found)
        return found

    def _region_drawn(self, tool: str, points: list[QPointF]) -> None:
        if len(points) < 3:
            return
        if tool == "rect":
            xs = [p.x() for p in points]
            ys = [p.y() for p in points]
            self.select_rect(QRectF(min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)))
        else:
            self.select_polygon(points)

    def _clicked(self, point: QPointF) -> None:
        index = self.cloud.nearest(point.x(), point.y(), HOVER_RADIUS_PX)
        index = -1 if index is None else index
        if index >= 0:
            self.set_selected(index)
        self.clicked.emit(index)

    # ------------------------------------------------------------------ hover
    def hover_at(self, point: QPointF) -> int:
        """Hover the data point ``point``: the nearest shown point within reach, or -1."""
        index = self.cloud.nearest(point.x(), point.y(), HOVER_RADIUS_PX)
        self._set_hover(-1 if index is None else index)
        return self.hover_index

    def _mouse_moved(self, scene_pos: QPointF) -> None:
        if not self.viewbox.sceneBoundingRect().contains(scene_pos) or self.viewbox.tool != "pan":
            self._set_hover(-1)
            return
        self.hover_at(self.viewbox.mapSceneToView(scene_pos))
        if self.tooltip_text:
            view = self.plot
            QToolTip.showText(
                view.mapToGlobal(view.mapFromScene(scene_pos)), self.tooltip_text, view
            )

    def _set_hover(self, index: int) -> None:
        if index == self.hover_index:
            return
        self.hover_index = index
        if index < 0:
            self.hover_marker.setData([], [])
            self.tooltip_text = ""
            QToolTip.hideText()
        else:
            self.hover_marker.setData([float(self.cloud.x[index])], [float(self.cloud.y[index])])
            self.tooltip_text = self.tooltip(index) if self.tooltip is not None else f"#{index}"
        self.hovered.emit(index)


class _Marker(pg.ScatterPlotItem):
    """A ring around a point that lets clicks through to the view (which picks the point)."""

    def __init__(self, *, size: float, pen: object) -> None:
        super().__init__(size=size, pen=pen, brush=None, pxMode=True)

    def mouseClickEvent(self, ev) -> None:
        ev.ignore()


def style_axes(item: pg.PlotItem, palette: QPalette) -> None:
    """Axes in the palette's colours (text for labels, mid for lines)."""
    text = palette.color(QPalette.ColorRole.Text)
    for name in ("left", "bottom"):
        axis = item.getAxis(name)
        axis.setPen(pg.mkPen(palette.color(QPalette.ColorRole.Mid)))
        axis.setTextPen(pg.mkPen(text))
        axis.enableAutoSIPrefix(False)
