"""The dashboard's "Quality" section: what the curation signals flag, and a few histograms.

Shown once signals are computed (before, the dashboard's signals card offers to compute
them): each flag with the records it raises (their share and the sources most flagged), a
few columns as small histograms (:class:`~vendiscope.gui.widgets.histogram.Histogram`), and
"Clean up…" and "Compute signals…". What to draw is chosen by
:func:`vendiscope.gui.dashboard.data.charted` (no Qt).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from vendiscope.core.signals.summary import (
    ColumnSummary,
    FlagSummary,
    LabelSummary,
    NumberSummary,
)
from vendiscope.gui.dashboard.cards import HELP
from vendiscope.gui.dashboard.data import CHARTS, charted, flags_by_size, source_text
from vendiscope.gui.widgets.icons import icon

if TYPE_CHECKING:
    from vendiscope.gui.widgets.histogram import Histogram  # pyqtgraph: imported when shown
from vendiscope.gui.widgets.text import plain_label, plain_tip

SECTION_HEIGHT = 170
"""The flags table's least height: that of a histogram."""


class QualitySection(QWidget):
    """Shows a dataset's signal summaries; ``compute`` and ``clean`` start the dialogs."""

    def __init__(
        self,
        compute: Callable[[], None] | None = None,
        clean: Callable[[], None] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("qualitySection")
        self.note = plain_label()
        self.note.setObjectName("hint")
        self.note.setWordWrap(True)
        self.compute_button = QPushButton(icon("score"), "Compute signals…")
        self.compute_button.setObjectName("computeSignals")
        self.compute_button.setToolTip("Choose the signals to compute for this dataset")
        self.clean_button = QPushButton(icon("subset"), "Clean up…")
        self.clean_button.setObjectName("cleanUp")
        self.clean_button.setToolTip(
            "Tick the flags whose records to leave out and save the rest as a subset"
        )
        for button, action in ((self.compute_button, compute), (self.clean_button, clean)):
            button.setEnabled(action is not None)
            if action is not None:
                button.clicked.connect(lambda _checked=False, a=action: a())
        head = QHBoxLayout()
        head.addWidget(self.note, 1)
        head.addWidget(self.clean_button, 0, Qt.AlignmentFlag.AlignTop)
        head.addWidget(self.compute_button, 0, Qt.AlignmentFlag.AlignTop)

        self.flags = QTableWidget(0, 4)
        self.flags.setObjectName("qualityFlags")
        self.flags.setHorizontalHeaderLabels(["Flag", "Records", "Share", "Most in"])
        sources_header = self.flags.horizontalHeaderItem(3)
        assert sources_header is not None
        sources_header.setToolTip("The sources with the most records flagged")
        self.flags.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.flags.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.flags.verticalHeader().hide()
        self.flags.setAlternatingRowColors(True)
        self.flags.setWordWrap(False)
        header = self.flags.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        self.flags.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.flags.setMinimumHeight(SECTION_HEIGHT)
        self.charts_row = QHBoxLayout()
        self.charts_row.setSpacing(10)
        self.charts: list[Histogram] = []
        body = QHBoxLayout()
        body.setSpacing(10)
        body.addWidget(self.flags, 4)
        body.addLayout(self.charts_row, 6)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(head)
        layout.addLayout(body, 1)

    def show_quality(self, quality: list[ColumnSummary], records: int, flagged: int) -> None:
        """Show ``quality`` (the dashboard summary's signal columns) of ``records`` records,
        ``flagged`` of which at least one flag raises."""
        flags = flags_by_size(quality)
        raised = sum(1 for f in flags if f.raised)
        share = flagged / records if records else 0.0
        self.note.setText(
            f"{flagged:,} of {records:,} records ({share:.1%}) raise at least one flag; "
            f"{raised} of the {len(flags)} flags raise any. Clean up… saves the records the "
            "flags you tick do not raise as a subset."
        )
        self.note.setToolTip(plain_tip(HELP["quality"]))
        self._fill_flags(flags)
        self._fill_charts(charted(quality))

    def _fill_flags(self, flags: list[FlagSummary]) -> None:
        table = self.flags
        table.setRowCount(0)
        for flag in flags:
            row = table.rowCount()
            table.insertRow(row)
            cells = [flag.name, f"{flag.raised:,}", f"{flag.share:.1%}", source_text(flag)]
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                tip = f"{flag.column}: {flag.help}" if flag.help else flag.column
                if column == 3 and flag.by_source:
                    tip = source_text(flag, shown=len(flag.by_source))
                item.setToolTip(plain_tip(tip))
                if column in (1, 2):
                    item.setTextAlignment(
                        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                    )
                table.setItem(row, column, item)

    def _fill_charts(self, shown: list[ColumnSummary]) -> None:
        from vendiscope.gui.widgets.histogram import Histogram

        while len(self.charts) < CHARTS:
            chart = Histogram()
            self.charts.append(chart)
            self.charts_row.addWidget(chart, 1)
        for chart, summary in zip(self.charts, [*shown, *[None] * CHARTS], strict=False):
            chart.setVisible(summary is not None)
            if isinstance(summary, NumberSummary) and summary.counts:
                chart.show_bins(summary.edges, summary.counts, title=_title(summary))
                chart.setToolTip(plain_tip(_tip(summary)))
            elif isinstance(summary, LabelSummary) and summary.top:
                labels, counts = zip(*summary.top, strict=True)
                chart.show_counts(labels, counts, title=_title(summary))
                chart.setToolTip(plain_tip(_tip(summary)))


def _title(summary: NumberSummary | LabelSummary) -> str:
    """A short title (the chart is small): the column, and the records it does not apply to."""
    if isinstance(summary, LabelSummary):
        return summary.name
    apart = f" ({summary.not_applicable:,} n/a)" if summary.not_applicable else ""
    return f"{summary.name}{apart}"


def _tip(summary: NumberSummary | LabelSummary) -> str:
    """What the chart shows, in full."""
    if isinstance(summary, LabelSummary):
        return f"{summary.column}: {summary.help}. The commonest values."
    median = f"{summary.median:,.3g}" if summary.median is not None else "—"
    low = f"{summary.p5:,.3g}" if summary.p5 is not None else "—"
    high = f"{summary.p95:,.3g}" if summary.p95 is not None else "—"
    apart = (
        f" It does not apply to {summary.not_applicable:,} records (left out)."
        if summary.not_applicable
        else ""
    )
    return f"{summary.column}: {summary.help}. Median {median}, 5-95% {low} to {high}.{apart}"
