"""The outputs of a synthesis run: accepted and rejected, each with its reason, read in full.

Outputs come from :func:`vendiscope.gui.synthesis.data.read_outputs`: the records of the
unfiltered stream (``NAME-all``, whose provenance says accepted or rejected and why) and the
outputs that never became records (``result["rejects"]``: unparsable, cut off, failed).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QPlainTextEdit,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from vendiscope.gui.dialogs.error_dialog import describe_error
from vendiscope.gui.jobs.background import Loader
from vendiscope.gui.synthesis.data import Output, output_details, read_outputs
from vendiscope.gui.widgets.text import plain_label, plain_tip

COLUMNS = ("Decision", "Round", "Reason", "Output")
SHOWN = {"all": "All outputs", "accepted": "Accepted", "rejected": "Rejected"}
TEXT_WIDTH = 200
AnyIndex = QModelIndex | QPersistentModelIndex


class OutputsModel(QAbstractTableModel):
    """The outputs as table rows; ``Qt.UserRole`` of any cell is its :class:`Output`."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.outputs: list[Output] = []

    def set_outputs(self, outputs: list[Output]) -> None:
        self.beginResetModel()
        self.outputs = list(outputs)
        self.endResetModel()

    def rowCount(self, parent: AnyIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.outputs)

    def columnCount(self, parent: AnyIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = 0) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        return None

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        output = self.outputs[index.row()]
        column = index.column()
        if role == Qt.ItemDataRole.UserRole:
            return output
        if role == Qt.ItemDataRole.DisplayRole:
            if column == 0:
                return output.decision
            if column == 1:
                return "" if output.round is None else output.round + 1
            if column == 2:
                return output.reason
            text = " ".join(output.text.split())
            return text[:TEXT_WIDTH] + ("…" if len(text) > TEXT_WIDTH else "")
        if role == Qt.ItemDataRole.ToolTipRole and column >= 2:
            return plain_tip(output.reason if column == 2 else output.text[:2000])
        if role == Qt.ItemDataRole.TextAlignmentRole and column == 1:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None


class DecisionFilter(QSortFilterProxyModel):
    """Shows all outputs, the accepted ones, or the rejected ones."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.shown = "all"

    def set_shown(self, shown: str) -> None:
        self.beginFilterChange()
        self.shown = shown
        self.endFilterChange()

    def filterAcceptsRow(self, row: int, parent: AnyIndex) -> bool:
        if self.shown == "all":
            return True
        model = self.sourceModel()
        output = model.data(model.index(row, 0, parent), Qt.ItemDataRole.UserRole)
        return output is not None and output.accepted == (self.shown == "accepted")


class OutputsBrowser(QWidget):
    """A list of a run's outputs with a decision filter, and the chosen one in full."""

    def __init__(self, location: str | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.location = location
        self.names: tuple[str, str] = ("", "")
        self.result: dict[str, Any] | None = None
        self.model = OutputsModel(self)
        self.proxy = DecisionFilter(self)
        self.proxy.setSourceModel(self.model)
        self.shown = QComboBox()
        self.shown.setObjectName("outputsShown")
        for key, text in SHOWN.items():
            self.shown.addItem(text, key)
        self.shown.currentIndexChanged.connect(self._shown_changed)
        self.counts = plain_label()
        self.counts.setObjectName("hint")
        head = QHBoxLayout()
        head.addWidget(plain_label("Show:"))
        head.addWidget(self.shown)
        head.addWidget(self.counts, 1)
        self.table = QTableView()
        self.table.setObjectName("outputsTable")
        self.table.setModel(self.proxy)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 10)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.table.setColumnWidth(2, 240)
        self.table.selectionModel().currentRowChanged.connect(lambda *_: self._show_current())
        self.details = QPlainTextEdit()
        self.details.setObjectName("outputDetails")
        self.details.setReadOnly(True)
        self.details.setPlaceholderText("Choose an output to read it in full.")
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.table)
        split.addWidget(self.details)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(head)
        layout.addWidget(split, 1)
        self.loader = Loader(self)
        self.loader.loaded.connect(self.set_outputs)
        self.loader.failed.connect(self._failed)

    def show_run(
        self, location: str, name: str, all_name: str, result: dict[str, Any] | None
    ) -> None:
        """Read the outputs of the run that made ``name`` and ``all_name`` (in the background)."""
        self.location, self.names, self.result = location, (name, all_name), result
        self.loader.run(read_outputs, location, name, all_name, result)

    def clear(self) -> None:
        self.loader.cancel()
        self.set_outputs([])

    def set_outputs(self, outputs: list[Output]) -> None:
        chosen = self._current()
        self.model.set_outputs(outputs)
        accepted = sum(1 for o in outputs if o.accepted)
        self.counts.setText(
            f"{accepted:,} accepted, {len(outputs) - accepted:,} rejected" if outputs else ""
        )
        if chosen is not None and chosen in outputs:
            self.select(outputs.index(chosen))
        self._show_current()

    def _failed(self, error: BaseException, _details: str) -> None:
        self.counts.setText(f"Could not read the outputs: {describe_error(error)}")

    def _shown_changed(self) -> None:
        self.proxy.set_shown(self.shown.currentData())
        self._show_current()

    def select(self, row: int) -> None:
        """Choose the output at ``row`` of the model (if it is shown)."""
        index = self.proxy.mapFromSource(self.model.index(row, 0))
        if index.isValid():
            self.table.setCurrentIndex(index)

    def _current(self) -> Output | None:
        index = self.table.currentIndex()
        return index.data(Qt.ItemDataRole.UserRole) if index.isValid() else None

    def _show_current(self) -> None:
        output = self._current()
        self.details.setPlainText(output_details(output) if output is not None else "")

    def shown_outputs(self) -> list[Output]:
        """The outputs the table shows, in order (for tests and the window)."""
        return [
            self.proxy.index(row, 0).data(Qt.ItemDataRole.UserRole)
            for row in range(self.proxy.rowCount())
        ]
