"""The eigenvalue spectrum of a Vendi score, drawn with pyqtgraph in the palette's colours.

Imported only when a dashboard opens (pyqtgraph takes a moment to import).
"""

from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QStackedLayout, QWidget

from vendiscope.gui.dashboard.data import ScoreSummary
from vendiscope.gui.widgets.legend import LegendEntry, SeriesLegend, with_legend_below
from vendiscope.gui.widgets.style import is_dark
from vendiscope.gui.widgets.text import plain_label

SPECTRUM_HELP = (
    "The largest eigenvalues of the similarity matrix, divided by n (they sum to 1), on a log "
    "scale. The Vendi score is exp of their entropy: a flat spectrum means many distinct "
    "directions (diverse data); a steep drop means a few directions dominate."
)


def series_colours(palette: QPalette) -> dict[str, QColor]:
    """One colour per metric that reads on the palette's base colour."""
    if is_dark(palette):
        return {"gvendi": QColor("#8aa2ff"), "vendi": QColor("#f2a65a")}
    return {"gvendi": QColor("#3a56d4"), "vendi": QColor("#c96a10")}


class SpectrumPlot(QWidget):
    """Normalised eigenvalues (rank on x, log value on y) of the latest score runs."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        palette = self.palette()
        self.plot = pg.PlotWidget(background=palette.color(QPalette.ColorRole.Base))
        self.plot.setObjectName("spectrumPlot")
        self.plot.setToolTip(SPECTRUM_HELP)
        self.plot.setMenuEnabled(False)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideButtons()
        self.plot.setLogMode(x=False, y=True)
        self.plot.showGrid(x=False, y=True, alpha=0.25)
        text = palette.color(QPalette.ColorRole.Text)
        for name in ("left", "bottom"):
            axis = self.plot.getAxis(name)
            axis.setPen(pg.mkPen(palette.color(QPalette.ColorRole.Mid)))
            axis.setTextPen(pg.mkPen(text))
            axis.enableAutoSIPrefix(False)
        _sparse_log_labels(self.plot.getAxis("left"))
        self.plot.setLabel("bottom", "eigenvalue rank", color=text.name())
        self.plot.setLabel("left", "share of the spectrum", color=text.name())
        self.legend = SeriesLegend()
        self.chart = with_legend_below(self.plot, self.legend)
        self.placeholder = plain_label(
            "No spectrum yet. Score the dataset (G-Vendi or embedding-Vendi) to see how evenly "
            "its variety spreads over directions."
        )
        self.placeholder.setObjectName("hint")
        self.placeholder.setWordWrap(True)
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.stack = QStackedLayout(self)
        self.stack.addWidget(self.placeholder)
        self.stack.addWidget(self.chart)
        self.series: dict[str, list[float]] = {}

    def set_scores(self, scores: list[ScoreSummary]) -> None:
        self.plot.clear()
        self.series = {}
        colours = series_colours(self.palette())
        entries = []
        for score in scores:
            values = [v for v in score.spectrum if v > 0]
            if not values:
                continue
            self.series[score.metric] = values
            colour = colours.get(score.metric, QColor("#888888"))
            self.plot.plot(
                list(range(1, len(values) + 1)),
                values,
                pen=pg.mkPen(colour, width=2),
                symbol="o",
                symbolSize=5,
                symbolBrush=colour,
                symbolPen=None,
            )
            entries.append(
                LegendEntry(
                    f"{score.label} ({score.vector_set})",
                    colour,
                    marker=True,
                    tooltip=f"{score.label} of run #{score.run_id} on vector set "
                    f"'{score.vector_set}': {score.value:,.1f} effective distinct examples "
                    f"of {score.n:,}; its {len(values)} largest eigenvalues",
                )
            )
        self.legend.set_entries(entries)
        self.plot.enableAutoRange()
        self.stack.setCurrentWidget(self.chart if self.series else self.placeholder)


def _sparse_log_labels(axis: pg.AxisItem) -> None:
    """Label a log axis at 1, 2 and 5 times each power of ten only (not 0.06, 0.07, ...)."""
    original = axis.logTickStrings

    def labels(values, scale, spacing):  # values are log10 of the tick values
        strings = original(values, scale, spacing)
        kept = []
        for value, text in zip(values, strings, strict=False):
            mantissa = round(10 ** (value - math.floor(value + 1e-9)), 6)
            kept.append(text if mantissa in (1.0, 2.0, 5.0) else "")
        return kept

    axis.logTickStrings = labels
