""" "Subsets compared": the dataset and each scored subset side by side, with intervals.

Rows come from :func:`vendiscope.gui.selection.compare_data.subset_comparisons`, read in the
background whenever the project changes. Columns: n, the score, the score per record, the
bootstrap interval (when the run had one), the random baseline (mean ± sd of random subsets
of the same size) and where the subset sits against it. The selection workbench shows it
with a *Score subsets* button; the dashboard shows it, without one, once a subset is scored.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from vendiscope.gui.dialogs.error_dialog import describe_error
from vendiscope.gui.jobs.background import Loader
from vendiscope.gui.selection.compare_data import (
    CompareRow,
    SubsetComparison,
    subset_comparisons,
)
from vendiscope.gui.widgets.icons import icon
from vendiscope.gui.widgets.text import plain_label, plain_tip
from vendiscope.gui.windows.document import ProjectDocument

COLUMNS = ("Set", "n", "Score", "Per record", "Interval", "Random ± sd", "Vs random", "Run")
TIPS = (
    "The whole dataset, then each subset scored",
    "Records in the set",
    "The set's diversity score: its effective number of distinct examples",
    "The score divided by n: the effective fraction of distinct examples",
    "The bootstrap confidence interval of the score (when scored with a bootstrap)",
    "Mean and standard deviation of the score of random subsets of the same size",
    "The score minus the random mean, in standard deviations; and the share of the random "
    "subsets scoring lower",
    "The score run",
)
NUMBER_COLUMNS = (1, 2, 3, 4, 5, 6, 7)
DASH = "\u2014"
TO = "\u2013"
FITTED_ROWS = 6
"""On the dashboard the table shows up to this many sets without scrolling."""


class SubsetCompareTable(QWidget):
    """The latest scores of a dataset's subsets next to the dataset's own.

    ``with_action`` adds the *Score subsets* button (it emits :attr:`score_requested`);
    ``hide_when_empty`` hides the whole widget until a subset has been scored.
    """

    score_requested = Signal()

    def __init__(
        self,
        document: ProjectDocument,
        dataset: str,
        *,
        with_action: bool = False,
        hide_when_empty: bool = False,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("subsetCompare")
        self.document = document
        self.dataset = dataset
        self.hide_when_empty = hide_when_empty
        self.comparisons: list[SubsetComparison] | None = None

        title = plain_label("Subsets compared")
        title.setObjectName("sectionTitle")
        self.measure = QComboBox()
        self.measure.setObjectName("compareMeasure")
        self.measure.setToolTip("What was measured: only scores of one measure compare")
        self.measure.currentIndexChanged.connect(self._fill)
        self.score_button = QPushButton(icon("score"), "Score subsets")
        self.score_button.setObjectName("scoreSubsets")
        self.score_button.setToolTip(
            "Score the dataset and each of its subsets, each against random subsets of its size"
        )
        self.score_button.clicked.connect(self.score_requested)
        self.score_button.setVisible(with_action)
        head = QHBoxLayout()
        head.addWidget(title)
        head.addStretch(1)
        head.addWidget(self.measure)
        head.addWidget(self.score_button)
        self.hint = plain_label()
        self.hint.setObjectName("hint")
        self.hint.setWordWrap(True)

        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setObjectName("subsetCompareTable")
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        for column, tip in enumerate(TIPS):
            self.table.horizontalHeaderItem(column).setToolTip(tip)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().hide()
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 10)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(head)
        layout.addWidget(self.hint)
        layout.addWidget(self.table, 1)
        if hide_when_empty:
            self.hide()

        self.loader = Loader(self)
        self.loader.loaded.connect(self.show_comparisons)
        self.loader.failed.connect(self._failed)
        document.changed.connect(self.reload)
        self.reload()

    # ------------------------------------------------------------------ data
    def reload(self) -> None:
        if self.document.is_open and self.document.dataset(self.dataset) is not None:
            self.loader.run(subset_comparisons, self.document.location, self.dataset)

    def _failed(self, error: BaseException, _details: str) -> None:
        self.hint.setText(f"Could not read the subset scores: {describe_error(error)}")

    def show_comparisons(self, comparisons: list[SubsetComparison]) -> None:
        self.comparisons = comparisons
        keep = self.measure.currentText()
        self.measure.blockSignals(True)
        self.measure.clear()
        for comparison in comparisons:
            self.measure.addItem(comparison.title)
        if keep and self.measure.findText(keep) >= 0:
            self.measure.setCurrentIndex(self.measure.findText(keep))
        self.measure.blockSignals(False)
        self.measure.setVisible(len(comparisons) > 1)
        if self.hide_when_empty and self.parentWidget() is not None:
            self.setVisible(bool(comparisons))
        self._fill()

    def current(self) -> SubsetComparison | None:
        index = self.measure.currentIndex()
        if not self.comparisons or index < 0:
            return None
        return self.comparisons[index]

    def _fill(self) -> None:
        comparison = self.current()
        self.table.setRowCount(0)
        if comparison is None:
            self.hint.setText(
                "No subset scored yet: Score subsets scores the dataset and each subset "
                "against random subsets of the same size."
            )
            return
        self.hint.setText(_hint(comparison))
        for row in comparison.rows:
            self._add_row(row)
        if self.hide_when_empty:  # on a page of its own: as tall as its rows (up to a few)
            table = self.table
            rows = min(table.rowCount(), FITTED_ROWS)
            table.setFixedHeight(
                table.horizontalHeader().sizeHint().height()
                + rows * table.verticalHeader().defaultSectionSize()
                + 2 * table.frameWidth()
                + 2
            )

    def _add_row(self, row: CompareRow) -> None:
        number = self.table.rowCount()
        self.table.insertRow(number)
        for column, text in enumerate(_cells(row)):
            item = QTableWidgetItem(text)
            item.setData(Qt.ItemDataRole.UserRole, row.run_id)
            if text:
                item.setToolTip(plain_tip(text))
            if column in NUMBER_COLUMNS:
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.table.setItem(number, column, item)

    def cells(self) -> list[list[str]]:
        """What the table shows, row by row (for tests and copying)."""
        return [
            [self.table.item(r, c).text() for c in range(self.table.columnCount())]
            for r in range(self.table.rowCount())
        ]


def _cells(row: CompareRow) -> list[str]:
    interval = DASH
    if row.ci is not None:
        level = f" ({row.ci_level:.0%})" if row.ci_level else ""
        interval = f"{row.ci[0]:,.2f} {TO} {row.ci[1]:,.2f}{level}"
    random, against = DASH, DASH
    if row.random:
        random = f"{row.random['mean']:,.2f} ± {row.random['sd']:,.2f}"
        z = row.random.get("z")
        share = f"beats {row.random['share_below']:.0%}"
        against = share if z is None else f"{z:+.1f} sd · {share}"
    return [
        row.label,
        f"{row.n:,}",
        f"{row.value:,.2f}",
        f"{row.fraction:.3f}",
        interval,
        random,
        against,
        f"#{row.run_id}",
    ]


def _hint(comparison: SubsetComparison) -> str:
    text = f"{comparison.title}; the latest score of each set."
    if comparison.dataset_row is None:
        text += " The whole dataset has no score with this measure yet."
    draws = next((r.random for r in comparison.rows if r.random), None)
    if draws:
        text += (
            f" Random: {draws['draws']} subsets of each size drawn from all records "
            f"(seed {draws['seed']})."
        )
    return text
