"""The "Quality vs diversity" tab of the selection workbench: how to read it, the strengths to
compare, the button that computes them (a job the workbench starts) and the chart."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLineEdit, QPushButton, QVBoxLayout, QWidget

from vendiscope.gui.selection.data import parse_strengths
from vendiscope.gui.widgets.icons import icon
from vendiscope.gui.widgets.style import error_palette
from vendiscope.gui.widgets.text import plain_label

if TYPE_CHECKING:
    from vendiscope.core.selection.tradeoff import TradeoffResult

HOW_TO_READ = (
    "Each point is a selection of k records, quality weighing more as the number beside it "
    "grows (0: diversity only). Right is higher mean quality, up more diverse; the grey "
    "square is random choice."
)
ADVICE = (
    "Weighting a selection by quality buys quality with diversity. Strength 1 is the form's "
    "quality-weighted selection. Pick the strength after which quality barely rises while "
    "diversity keeps falling. A point up and to the right of the dashed lines beats random "
    "choice on both."
)
DEFAULT_STRENGTHS_TEXT = "0, 0.5, 1, 2, 4"


class TradeoffPanel(QWidget):
    """Asks for a trade-off (``compute_requested`` with the strengths) and shows it."""

    compute_requested = Signal(tuple)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        explain = plain_label(HOW_TO_READ)
        explain.setObjectName("hint")
        explain.setWordWrap(True)
        explain.setToolTip(ADVICE)
        self.strengths = QLineEdit(DEFAULT_STRENGTHS_TEXT)
        self.strengths.setObjectName("tradeoffStrengths")
        self.strengths.setToolTip(
            "How strongly quality weighs in each selection compared: quality is scaled to at "
            "most 1 and raised to this power (0: not at all)"
        )
        self.strengths.setMaximumWidth(
            self.fontMetrics().horizontalAdvance("0, 0.5, 1, 2, 4, 8") + 24
        )
        self.strengths.returnPressed.connect(self._compute)
        self.compute_button = QPushButton(icon("select"), "Compare strengths")
        self.compute_button.setObjectName("computeTradeoff")
        self.compute_button.setToolTip(
            "Run one selection per strength with the form's budget, vector set, quality and "
            "leave-outs (a job; nothing is saved)"
        )
        self.compute_button.clicked.connect(self._compute)
        self.status = plain_label()
        self._why: str | None = None
        self.status.setObjectName("hint")
        self.status.setWordWrap(True)
        self.problem = plain_label()
        self.problem.setWordWrap(True)
        error_palette(self.problem)
        self.problem.hide()
        controls = QHBoxLayout()
        controls.addWidget(plain_label("Strengths:"))
        controls.addWidget(self.strengths)
        controls.addWidget(self.compute_button)
        controls.addWidget(self.status, 1)
        from vendiscope.gui.selection.tradeoff_plot import TradeoffPlot  # pyqtgraph: later

        self.plot = TradeoffPlot()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.addWidget(explain)
        layout.addLayout(controls)
        layout.addWidget(self.problem)
        layout.addWidget(self.plot, 1)

    def _compute(self) -> None:
        try:
            strengths = parse_strengths(self.strengths.text())
        except ValueError as exc:
            self.show_problem(str(exc))
            return
        self.show_problem(None)
        self.compute_requested.emit(strengths)

    def set_ready(self, ready: bool, why: str = "") -> None:
        """Whether a trade-off can be asked for now; ``why`` not, in the status line (until
        it can)."""
        self.compute_button.setEnabled(ready)
        if not ready:
            self.status.setText(why)
            self._why = why
        elif self._why is not None:
            if self.status.text() == self._why:
                self.status.clear()
            self._why = None

    def show_problem(self, text: str | None) -> None:
        self.problem.setText(text or "")
        self.problem.setVisible(bool(text))

    def show_result(self, result: TradeoffResult, marked: float | None) -> None:
        left_out = f" ({result.excluded:,} left out)" if result.excluded else ""
        self.status.setText(f"k = {result.k:,} of {result.n_candidates:,} candidates{left_out}")
        self.status.setToolTip(
            f"Selected and scored on {result.vector_set}; quality: {result.quality}"
        )
        self.plot.set_result(result, marked)
