"""A small histogram: binned numbers (bars over their ranges) or counts of named values.

Drawn with pyqtgraph in the palette's colours (bars in the first category colour, axes in
the text and mid colours), so it reads on light and dark themes and follows a theme change.
Named values are horizontal bars, each name on its own line at the left (shortened to the
room it has, in full in the tooltip) with its count at the end of its bar. Every bar's
range or name and count is in the plot's tooltip too.

Imported only when a histogram is first shown (pyqtgraph takes a moment to import).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QColor, QFontMetrics, QPalette
from PySide6.QtWidgets import QSizePolicy, QStackedLayout, QVBoxLayout, QWidget

from vendiscope.gui.widgets import palettes
from vendiscope.gui.widgets.text import plain_label, plain_tip

MIN_HEIGHT = 170
"""The widget's smallest height: room for a title, a few bars and an axis."""
LABEL_CHARS = 22
"""A named value is shortened to about this many characters on the axis."""
TIP_ROWS = 30
"""The tooltip lists at most this many bars."""


def _plot(name: str) -> pg.PlotWidget:
    plot = pg.PlotWidget()
    plot.setObjectName(name)
    plot.setMenuEnabled(False)
    plot.setMouseEnabled(x=False, y=False)
    plot.hideButtons()
    plot.setMinimumHeight(MIN_HEIGHT - 40)
    for axis in ("left", "bottom"):
        plot.getAxis(axis).enableAutoSIPrefix(False)
    return plot


def bin_text(low: float, high: float) -> str:
    """A bin's range as a reader writes it: ``0.25 to 0.5``."""
    return f"{low:.3g} to {high:.3g}"


class Histogram(QWidget):
    """Bars of counts: :meth:`show_bins` for numbers, :meth:`show_counts` for named values."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("histogram")
        self.setMinimumHeight(MIN_HEIGHT)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Expanding)
        self.mode = "empty"
        """``bins``, ``counts`` or ``empty``: what is shown."""
        self.edges: list[float] = []
        self.labels: list[str] = []
        self.counts: list[int] = []
        self.title = ""

        self.title_label = plain_label()
        self.title_label.setObjectName("sectionTitle")
        self.title_label.setWordWrap(True)
        self.bins_plot = _plot("histogramBins")  # one plot per mode: no axis state leaks
        self.bins_plot.setLabel("left", "records")
        self.counts_plot = _plot("histogramCounts")
        self.counts_plot.setLabel("bottom", "records")
        self.counts_plot.getViewBox().invertY(True)  # the first value at the top
        self.counts_plot.getViewBox().sigResized.connect(self._fit_counts)
        self.plot = self.bins_plot
        """The plot shown (bins or counts)."""
        self.plots = QStackedLayout()
        self.plots.addWidget(self.bins_plot)
        self.plots.addWidget(self.counts_plot)
        chart = QWidget()
        chart_layout = QVBoxLayout(chart)
        chart_layout.setContentsMargins(0, 0, 0, 0)
        chart_layout.setSpacing(2)
        chart_layout.addWidget(self.title_label)
        chart_layout.addLayout(self.plots, 1)
        self.chart = chart
        self.message = plain_label()
        self.message.setObjectName("hint")
        self.message.setWordWrap(True)
        self.message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.stack = QStackedLayout(self)
        self.stack.addWidget(self.message)
        self.stack.addWidget(chart)
        self._style()

    # ------------------------------------------------------------------ public
    def show_bins(self, edges: Sequence[float], counts: Sequence[int], *, title: str) -> None:
        """Bars over the ranges ``edges[i]`` to ``edges[i + 1]``, ``counts[i]`` high."""
        if len(edges) != len(counts) + 1:
            raise ValueError(f"{len(counts)} counts need {len(counts) + 1} edges, not {len(edges)}")
        self.mode, self.title = "bins", title
        self.edges = [float(e) for e in edges]
        self.counts = [int(c) for c in counts]
        self.labels = [bin_text(a, b) for a, b in zip(self.edges, self.edges[1:], strict=False)]
        self._draw()

    def show_counts(self, labels: Sequence[str], counts: Sequence[int], *, title: str) -> None:
        """One bar per named value (in the order given, first at the top)."""
        if len(labels) != len(counts):
            raise ValueError(f"{len(labels)} names and {len(counts)} counts")
        self.mode, self.title = "counts", title
        self.edges = []
        self.labels = [str(label) for label in labels]
        self.counts = [int(c) for c in counts]
        self._draw()

    def clear(self, message: str = "") -> None:
        """Show no bars, only ``message`` (e.g. why there is nothing to show)."""
        self.mode, self.title = "empty", ""
        self.edges, self.labels, self.counts = [], [], []
        self.bins_plot.clear()
        self.counts_plot.clear()
        self.message.setText(message)
        self.stack.setCurrentWidget(self.message)

    # ------------------------------------------------------------------ drawing
    def _colours(self) -> tuple[QColor, QColor]:
        palette = self.palette()
        colour = palettes.categorical(palette, 1)[0]
        fill = QColor(colour)
        fill.setAlpha(210)
        return fill, colour.darker(125)

    def _style(self) -> None:
        palette = self.palette()
        text = palette.color(QPalette.ColorRole.Text)
        for plot in (self.bins_plot, self.counts_plot):
            plot.setBackground(palette.color(QPalette.ColorRole.Base))
            for name in ("left", "bottom"):
                axis = plot.getAxis(name)
                axis.setPen(pg.mkPen(palette.color(QPalette.ColorRole.Mid)))
                axis.setTextPen(pg.mkPen(text))
                axis.setLabel(axis.labelText, color=text.name())

    def _draw(self) -> None:
        self._style()
        self.plot = self.bins_plot if self.mode == "bins" else self.counts_plot
        self.plot.clear()
        self.title_label.setText(self.title)
        self.title_label.setVisible(bool(self.title))
        if self.mode == "bins":
            self._draw_bins()
        else:
            self._draw_counts()
        self.plot.setToolTip(plain_tip(self._tip()))
        self.plots.setCurrentWidget(self.plot)
        self.stack.setCurrentWidget(self.chart)

    def _draw_bins(self) -> None:
        fill, pen = self._colours()
        edges = np.asarray(self.edges, dtype=float)
        heights = np.asarray(self.counts, dtype=float)
        item = pg.BarGraphItem(
            x0=edges[:-1], x1=edges[1:], y0=0, height=heights, brush=fill, pen=pg.mkPen(pen)
        )
        self.plot.addItem(item)
        low, high = float(edges[0]), float(edges[-1])
        self.plot.setXRange(low, high if high > low else low + 1.0, padding=0.02)
        self.plot.setYRange(0, max(float(heights.max(initial=0)), 1.0), padding=0.05)

    def _draw_counts(self) -> None:
        fill, pen = self._colours()
        rows = len(self.counts)
        positions = np.arange(rows, dtype=float)
        heights = np.asarray(self.counts, dtype=float)
        item = pg.BarGraphItem(
            x0=0, y=positions, width=heights, height=0.72, brush=fill, pen=pg.mkPen(pen)
        )
        self.plot.addItem(item)
        left = self.plot.getAxis("left")
        metrics = QFontMetrics(self.font())
        room = metrics.averageCharWidth() * LABEL_CHARS
        names = [
            metrics.elidedText(name, Qt.TextElideMode.ElideRight, room) for name in self.labels
        ]
        left.setTicks([list(zip(positions.tolist(), names, strict=True))])
        widest = max((metrics.horizontalAdvance(name) for name in names), default=0)
        left.setWidth(widest + 16)  # every name in full (as shortened), none clipped
        text = self.palette().color(QPalette.ColorRole.Text)
        for y, count in zip(positions, self.counts, strict=True):
            label = pg.TextItem(f"{count:,}", color=text, anchor=(0, 0.5))
            label.setPos(float(count), float(y))
            self.plot.addItem(label)
        self.plot.setYRange(-0.6, max(rows, 1) - 0.4, padding=0)
        self._fit_counts()

    def _fit_counts(self) -> None:
        """Widen the count axis so the longest bar leaves room for its count in pixels."""
        if self.mode != "counts":
            return
        most = float(max(self.counts, default=0)) or 1.0
        metrics = QFontMetrics(self.font())
        need = max((metrics.horizontalAdvance(f"{c:,}") for c in self.counts), default=0) + 12
        width = self.counts_plot.getViewBox().width() or 300.0
        share = min(need / max(width, 1.0), 0.6)
        self.counts_plot.setXRange(0, most / (1.0 - share), padding=0)

    def _tip(self) -> str:
        lines = [self.title] if self.title else []
        shown = list(zip(self.labels, self.counts, strict=True))
        lines += [f"{name}: {count:,}" for name, count in shown[:TIP_ROWS]]
        if len(shown) > TIP_ROWS:
            lines.append(f"… and {len(shown) - TIP_ROWS:,} more")
        return "\n".join(lines)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.PaletteChange and self.mode != "empty":
            self._draw()  # the theme changed: bars and axes in its colours
        elif event.type() == QEvent.Type.PaletteChange:
            self._style()
        super().changeEvent(event)
