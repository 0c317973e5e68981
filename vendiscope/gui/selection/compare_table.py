""" "Subsets compared": the dataset and each scored subset side by side, with intervals.

Rows come from :func:`vendiscope.gui.selection.compare_data.subset_comparisons`, read in the
background whenever the project changes. Columns: n, the score, the score per record, the
bootstrap interval (when the run had one), the random baseline (mean ± sd of random subsets
of the same size) and where the subset sits against it. The selection workbench shows it
with a *Score subsets* button; the dashboard shows it, without one, once a subset is scored.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QPushButton,
    QSplitter,
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
OPTIONAL_COLUMNS = (7, 3, 5, 4)
"""Hidden in this order while the columns are wider than the table (the Set's tooltip has
their values): the run, the score per record, the random baseline, the interval."""
DASH = "\u2014"
TO = "\u2013"
FITTED_ROWS = 6
"""The table is first given the height of up to this many sets (then it scrolls)."""
MIN_ROWS = 2
"""Its splitter never squeezes the table below this many rows."""


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
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)  # see fit_columns
        self.table.setMinimumHeight(self._table_height(MIN_ROWS))
        self.table.viewport().installEventFilter(self)  # columns to fit its width
        self._fitted_rows = -1

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(head)
        layout.addWidget(self.hint)
        layout.addWidget(self.table, 1)
        self.head = head
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
        self.fit_columns()
        if self.table.rowCount() != self._fitted_rows:  # once the layout has the new rows
            QTimer.singleShot(0, self.fit_in_splitter)

    # ------------------------------------------------------------------ width
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.table.viewport() and event.type() == QEvent.Type.Resize:
            self.fit_columns()
        return super().eventFilter(watched, event)

    def fit_columns(self) -> None:
        """Every column as wide as its contents, the Set's (names in full) with the width the
        others leave too; where they do not all fit, hide :data:`OPTIONAL_COLUMNS` one by one
        rather than scroll sideways."""
        table, header = self.table, self.table.horizontalHeader()
        wanted = {
            c: max(table.sizeHintForColumn(c), header.sectionSizeHint(c))
            for c in range(table.columnCount())
        }
        room = table.viewport().width()
        hidden: set[int] = set()
        for column in OPTIONAL_COLUMNS:
            if sum(w for c, w in wanted.items() if c not in hidden) <= room:
                break
            hidden.add(column)
        for column in range(table.columnCount()):
            if table.isColumnHidden(column) != (column in hidden):
                table.setColumnHidden(column, column in hidden)
        shown = sum(w for c, w in wanted.items() if c not in hidden)
        header.resizeSection(0, wanted[0] + max(room - shown, 0))

    # ------------------------------------------------------------------ height
    def _table_height(self, rows: int) -> int:
        """The table's height to show ``rows`` rows and its header (no sideways scroll bar:
        :meth:`fit_columns` leaves columns out instead)."""
        table = self.table
        return (
            table.horizontalHeader().sizeHint().height()
            + rows * table.verticalHeader().defaultSectionSize()
            + 2 * table.frameWidth()
            + 2
        )

    def fitted_height(self) -> int:
        """The height this widget needs to show every row (up to :data:`FITTED_ROWS`)."""
        layout = self.layout()
        hint = self.hint.heightForWidth(max(self.width(), 1)) if self.hint.text() else 0
        rows = min(max(self.table.rowCount(), MIN_ROWS), FITTED_ROWS)
        return (
            self.head.sizeHint().height() + hint + self._table_height(rows) + 2 * layout.spacing()
        )

    def fit_in_splitter(self) -> None:
        """In a splitter (the dashboard's, the workbench's), take the height the rows need
        from the other panes (each keeps its minimum); the user's dragging stands until the
        number of rows changes."""
        splitter = self.parentWidget()
        if not isinstance(splitter, QSplitter) or not self.isVisible():
            return
        sizes = splitter.sizes()
        total = sum(sizes)
        if total <= 0:
            return
        self._fitted_rows = self.table.rowCount()
        index = splitter.indexOf(self)
        others = [i for i in range(len(sizes)) if i != index and sizes[i] > 0]
        floors = {i: splitter.widget(i).minimumSizeHint().height() for i in others}
        mine = min(self.fitted_height(), total - sum(floors.values()))
        mine = max(mine, self.minimumSizeHint().height())
        room = max(total - mine - sum(floors.values()), 0)  # above the others' minimums
        above = {i: max(sizes[i] - floors[i], 0) for i in others}
        for i in others:  # each keeps its minimum and its share of the rest
            sizes[i] = floors[i] + room * above[i] // (sum(above.values()) or len(others))
        sizes[index] = mine
        splitter.setSizes(sizes)

    def _add_row(self, row: CompareRow) -> None:
        number = self.table.rowCount()
        self.table.insertRow(number)
        cells = _cells(row)
        for column, text in enumerate(cells):
            item = QTableWidgetItem(text)
            item.setData(Qt.ItemDataRole.UserRole, row.run_id)
            if column == 0:  # the whole row (some columns may be hidden)
                item.setToolTip(plain_tip(_row_tip(cells)))
            elif text:
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


def _row_tip(cells: list[str]) -> str:
    """A row in words: each column's name and value."""
    return (
        cells[0]
        + "\n"
        + "\n".join(f"{name}: {text}" for name, text in zip(COLUMNS[1:], cells[1:], strict=True))
    )


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
