"""Diversity-vs-budget curves of selection runs on one chart (pyqtgraph).

Each run is a solid line: the Vendi score of its first ``b`` records for every budget ``b``.
Its random baseline (a random order of the same candidates; runs that share one draw it
once) is a dashed line drawn *on top* of the runs, so it stays visible where a run follows
it (the Random selector's own run does, exactly). The legend below the chart says which
line is which. The run selected in the table is drawn thicker.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QStackedLayout, QWidget

from vendiscope.core.selection.choices import curve_title
from vendiscope.gui.map.canvas import style_axes
from vendiscope.gui.selection.data import SelectionRun
from vendiscope.gui.widgets import palettes
from vendiscope.gui.widgets.legend import LegendEntry, SeriesLegend, with_legend_below
from vendiscope.gui.widgets.text import plain_label

BASELINE_NAME = "random baseline (dashed): a random order of the same candidates"
BASELINE_Z = 10
"""Above every run's curve."""


def baseline_colour(palette: QPalette) -> QColor:
    """A dark (light on a dark base) grey that reads over any run's colour."""
    text = QColor(palette.color(QPalette.ColorRole.Text))
    text.setAlpha(190)
    return text


class CurvesPlot(QWidget):
    """The curves of many runs, measured on one vector set."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        palette = self.palette()
        self.plot = pg.PlotWidget(background=palette.color(QPalette.ColorRole.Base))
        self.plot.setObjectName("curvesPlot")
        self.plot.setMenuEnabled(False)
        self.plot.hideButtons()
        self.plot.showGrid(x=True, y=True, alpha=0.2)
        style_axes(self.plot.getPlotItem(), palette)
        text = palette.color(QPalette.ColorRole.Text).name()
        self.plot.setLabel("bottom", "budget b (records selected)", color=text)
        self.legend = SeriesLegend()
        self.chart = with_legend_below(self.plot, self.legend)
        self.placeholder = plain_label(
            "No selection yet. Choose a method and a budget on the left and run it: its "
            "diversity-vs-budget curve appears here next to a random selection's."
        )
        self.placeholder.setObjectName("hint")
        self.placeholder.setWordWrap(True)
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.stack = QStackedLayout(self)
        self.stack.addWidget(self.placeholder)
        self.stack.addWidget(self.chart)
        self.curves: dict[int, pg.PlotDataItem] = {}
        self.baselines: list[pg.PlotDataItem] = []
        self.vector_set: str | None = None
        self.colours: dict[int, object] = {}

    def set_runs(
        self, runs: list[SelectionRun], vector_set: str | None, highlight: int | None = None
    ) -> None:
        self.plot.clear()
        self.curves, self.baselines, self.colours = {}, [], {}
        self.vector_set = vector_set
        drawn = [r for r in runs if vector_set in r.vendi and r.budgets]
        self.stack.setCurrentWidget(self.chart if drawn else self.placeholder)
        if not drawn:
            self.legend.set_entries([])
            return
        palette = self.palette()
        kind = next((r.kinds.get(vector_set, "") for r in drawn), "")
        self.plot.setLabel(
            "left", f"{curve_title(kind)} of the first b",
            color=palette.color(QPalette.ColorRole.Text).name(),
        )  # fmt: skip
        entries: list[LegendEntry] = []
        colours = palettes.categorical(palette, len(drawn))
        for number, run in enumerate(drawn):
            colour = colours[number]
            width = 3.2 if run.run_id == highlight else 2.0
            symbol = "o" if len(run.budgets) <= 40 else None
            item = self.plot.plot(
                run.budgets, run.vendi[vector_set],
                pen=pg.mkPen(colour, width=width), symbol=symbol, symbolSize=5,
                symbolBrush=colour, symbolPen=None,
            )  # fmt: skip
            self.curves[run.run_id] = item
            self.colours[run.run_id] = colour
            same = run.random.get(vector_set) == run.vendi[vector_set]
            entries.append(
                LegendEntry(
                    run.label + (" (the same curve as the baseline)" if same else ""),
                    colour,
                    marker=symbol is not None,
                    width=width,
                    tooltip=f"Run #{run.run_id}: {run.method} chose {run.k:,} records on "
                    f"'{run.vector_set}'; the curve is the Vendi score of its first b records",
                )
            )
        pen = pg.mkPen(baseline_colour(palette), width=1.8, style=Qt.PenStyle.DashLine)
        seen: set[tuple[float, ...]] = set()
        for run in drawn:
            random = run.random.get(vector_set)
            if not random or tuple(random) in seen:
                continue
            seen.add(tuple(random))
            item = self.plot.plot(run.budgets, random, pen=pen)
            item.setZValue(BASELINE_Z)  # on top: a run that follows it cannot hide it
            self.baselines.append(item)
        if self.baselines:
            entries.insert(
                0,
                LegendEntry(
                    BASELINE_NAME,
                    baseline_colour(palette),
                    style="dash",
                    width=1.8,
                    tooltip="What choosing at random would give: the Vendi score of the first "
                    "b records of a random order of the same candidates. A run above it "
                    "chose more diverse records than chance.",
                ),
            )
        self.legend.set_entries(entries)
        self.plot.enableAutoRange()
