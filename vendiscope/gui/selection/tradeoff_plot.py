"""The quality/diversity trade-off on one chart (pyqtgraph).

x is the mean quality of a selection's records, y its Vendi score (how many distinct
records it holds in effect). Each strength's selection is a point, labelled by its
strength and joined to the next in order; the random subsets of the same candidates are a
grey square with dashed lines through it, so a point up and to the right of both lines beats
random on quality and diversity. A point that a selected run of the table chose is ringed.
The legend below the chart says which mark is which.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QStackedLayout, QWidget

from vendiscope.core.selection.choices import curve_title
from vendiscope.gui.map.canvas import style_axes
from vendiscope.gui.selection.curves_plot import baseline_colour
from vendiscope.gui.widgets import palettes
from vendiscope.gui.widgets.legend import LegendEntry, SeriesLegend, with_legend_below
from vendiscope.gui.widgets.text import plain_label

if TYPE_CHECKING:
    from vendiscope.core.selection.tradeoff import TradeoffResult

PLACEHOLDER = (
    "No comparison yet. With a quality column chosen on the left (a curation signal's number, "
    "a score or a field), Compare strengths runs one selection per strength; each becomes a "
    "point here."
)
RANDOM_Z = 5
MARK_Z = 20


def strength_label(strength: float) -> str:
    """How a point is labelled: ``strength 0 (diversity only)``, ``strength 2``."""
    return f"strength {strength:g}" + (" (diversity only)" if strength == 0 else "")


class TradeoffPlot(QWidget):
    """Mean quality against Vendi score of the selections of one trade-off."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        palette = self.palette()
        self.plot = pg.PlotWidget(background=palette.color(QPalette.ColorRole.Base))
        self.plot.setObjectName("tradeoffPlot")
        self.plot.setMenuEnabled(False)
        self.plot.hideButtons()
        self.plot.showGrid(x=True, y=True, alpha=0.2)
        style_axes(self.plot.getPlotItem(), palette)
        self.legend = SeriesLegend()
        self.chart = with_legend_below(self.plot, self.legend)
        self.placeholder = plain_label(PLACEHOLDER)
        self.placeholder.setObjectName("hint")
        self.placeholder.setWordWrap(True)
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.stack = QStackedLayout(self)
        self.stack.addWidget(self.placeholder)
        self.stack.addWidget(self.chart)
        self.result: TradeoffResult | None = None
        self.marked: float | None = None
        self.points: pg.PlotDataItem | None = None
        self.labels: list[pg.TextItem] = []
        self.random: pg.PlotDataItem | None = None
        self.ring: pg.PlotDataItem | None = None

    def set_result(self, result: TradeoffResult | None, marked: float | None = None) -> None:
        """Draw ``result`` (None: the placeholder); ring the point of strength ``marked``."""
        self.plot.clear()
        self.result, self.marked = result, marked
        self.points, self.labels, self.random, self.ring = None, [], None, None
        self.stack.setCurrentWidget(self.chart if result is not None else self.placeholder)
        if result is None:
            self.legend.set_entries([])
            return
        palette = self.palette()
        text = palette.color(QPalette.ColorRole.Text)
        self.plot.setLabel("bottom", f"mean quality of the chosen records ({result.quality})",
                           color=text.name())  # fmt: skip
        self.plot.setLabel(
            "left", f"diversity ({curve_title(result.vector_kind)})", color=text.name()
        )
        colour = palettes.categorical(palette, 1)[0]
        xs = [p.mean_quality for p in result.points]
        ys = [p.vendi for p in result.points]
        self.points = self.plot.plot(
            xs, ys, pen=pg.mkPen(colour, width=2), symbol="o", symbolSize=9,
            symbolBrush=colour, symbolPen=pg.mkPen(palette.color(QPalette.ColorRole.Base)),
        )  # fmt: skip
        for point in result.points:
            label = pg.TextItem(f"{point.strength:g}", color=text, anchor=(-0.25, 1.1))
            label.setPos(point.mean_quality, point.vendi)
            self.plot.addItem(label)
            self.labels.append(label)
        grey = baseline_colour(palette)
        reference = result.random
        dashed = pg.mkPen(grey, width=1.4, style=Qt.PenStyle.DashLine)
        for line in (
            pg.InfiniteLine(reference.mean_quality, angle=90, pen=dashed),
            pg.InfiniteLine(reference.vendi, angle=0, pen=dashed),
        ):
            line.setZValue(RANDOM_Z)
            self.plot.addItem(line)
        self.random = self.plot.plot(
            [reference.mean_quality], [reference.vendi], pen=None, symbol="s", symbolSize=10,
            symbolBrush=grey, symbolPen=None,
        )  # fmt: skip
        self.random.setZValue(RANDOM_Z)
        entries = [
            LegendEntry(
                "selections by strength (the number beside each point; 0: diversity only)",
                colour,
                marker=True,
                tooltip="Each point is a greedy Vendi selection of the same budget with quality "
                "weighted more strongly: quality scaled to at most 1, to the power of the strength",
            ),
            LegendEntry(
                f"random subsets (mean of {reference.draws}): the dashed lines cross there",
                QColor(grey),
                style="dash",
                marker=True,
                width=1.4,
                tooltip="What choosing at random from the same candidates gives; a point above "
                "and to the right of both lines beats chance on quality and on diversity",
            ),
        ]
        if marked is not None:
            entries.append(self._mark(result, marked, palette))
        self.legend.set_entries(entries)
        self._frame([*xs, reference.mean_quality], [*ys, reference.vendi])

    def set_marked(self, marked: float | None) -> None:
        if marked != self.marked:
            self.set_result(self.result, marked)

    def _mark(self, result: TradeoffResult, strength: float, palette: QPalette) -> LegendEntry:
        point = result.point(strength)
        colour = palettes.accent(palette)
        self.ring = self.plot.plot(
            [point.mean_quality], [point.vendi], pen=None, symbol="o", symbolSize=20,
            symbolBrush=None, symbolPen=pg.mkPen(colour, width=2.5),
        )  # fmt: skip
        self.ring.setZValue(MARK_Z)
        return LegendEntry(
            f"ringed: the run selected in the table ({strength_label(strength)})",
            colour,
            marker=True,
            tooltip="The selection run chosen in the table has this point's settings",
        )

    def _frame(self, xs: list[float], ys: list[float]) -> None:
        """Every point and label in view, with a margin (points may sit very close)."""
        low_x, high_x, low_y, high_y = min(xs), max(xs), min(ys), max(ys)
        span_x = (high_x - low_x) or abs(high_x) * 0.01 or 1.0
        span_y = (high_y - low_y) or abs(high_y) * 0.01 or 1.0
        self.plot.setXRange(low_x - span_x * 0.08, high_x + span_x * 0.18, padding=0)
        self.plot.setYRange(low_y - span_y * 0.1, high_y + span_y * 0.3, padding=0)
