"""Diversity-vs-budget curves of selection runs on one chart (pyqtgraph).

Each run is a solid line: the Vendi score of its first ``b`` records for every budget ``b``;
its random baseline (a random order of the same candidates) is dashed grey beneath (runs
that share one baseline draw it once). The run selected in the table is drawn thicker.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QLabel, QStackedLayout, QWidget

from vendiscope.gui import palettes
from vendiscope.gui.map_canvas import style_axes
from vendiscope.gui.selection_data import KIND_TITLES, SelectionRun


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
        self.legend = self.plot.addLegend(
            offset=(10, 10), labelTextColor=palette.color(QPalette.ColorRole.Text)
        )
        self.placeholder = QLabel(
            "No selection yet. Choose a method and a budget on the left and run it: its "
            "diversity-vs-budget curve appears here next to a random selection's."
        )
        self.placeholder.setObjectName("hint")
        self.placeholder.setWordWrap(True)
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.stack = QStackedLayout(self)
        self.stack.addWidget(self.placeholder)
        self.stack.addWidget(self.plot)
        self.curves: dict[int, pg.PlotDataItem] = {}
        self.baselines: list[pg.PlotDataItem] = []
        self.vector_set: str | None = None
        self.colours: dict[int, object] = {}

    def set_runs(
        self, runs: list[SelectionRun], vector_set: str | None, highlight: int | None = None
    ) -> None:
        self.plot.clear()
        self.legend.clear()
        self.curves, self.baselines, self.colours = {}, [], {}
        self.vector_set = vector_set
        drawn = [r for r in runs if vector_set in r.vendi and r.budgets]
        self.stack.setCurrentWidget(self.plot if drawn else self.placeholder)
        if not drawn:
            return
        palette = self.palette()
        grey = palettes.background(palette)
        kind = next((r.kinds.get(vector_set, "") for r in drawn), "")
        self.plot.setLabel(
            "left", f"{KIND_TITLES.get(kind, 'Vendi score')} of the first b",
            color=palette.color(QPalette.ColorRole.Text).name(),
        )  # fmt: skip
        seen: set[tuple[float, ...]] = set()
        baseline_named = False
        for run in drawn:
            random = run.random.get(vector_set)
            if not random or tuple(random) in seen:
                continue
            seen.add(tuple(random))
            item = self.plot.plot(
                run.budgets, random,
                pen=pg.mkPen(grey, width=1.6, style=Qt.PenStyle.DashLine),
                name=None if baseline_named else "random order (baseline)",
            )  # fmt: skip
            item.setZValue(-1)
            baseline_named = True
            self.baselines.append(item)
        colours = palettes.categorical(palette, len(drawn))
        for number, run in enumerate(drawn):
            colour = colours[number]
            width = 3.2 if run.run_id == highlight else 2.0
            symbol = "o" if len(run.budgets) <= 40 else None
            item = self.plot.plot(
                run.budgets, run.vendi[vector_set],
                pen=pg.mkPen(colour, width=width), symbol=symbol, symbolSize=5,
                symbolBrush=colour, symbolPen=None, name=run.label,
            )  # fmt: skip
            self.curves[run.run_id] = item
            self.colours[run.run_id] = colour
        self.plot.enableAutoRange()
