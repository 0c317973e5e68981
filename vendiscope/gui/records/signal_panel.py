"""The records view's signal panel: the histogram of one signal column over the shown records.

The column is chosen in the panel's list or by clicking a signal column's header. Numbers
are binned (records whose value does not apply are counted apart, in the title), flags show
raised / not raised, labels their commonest values. The histogram follows the filter: it
counts the records the table shows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QVBoxLayout, QWidget

from vendiscope.gui.records.signal_data import SignalColumn, histogram_of
from vendiscope.gui.widgets.text import plain_label

if TYPE_CHECKING:
    import numpy as np

    from vendiscope.gui.records.signal_data import HistogramData
    from vendiscope.gui.widgets.histogram import Histogram


class SignalPanel(QWidget):
    """A choice of signal column over its histogram (built when first shown)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("signalPanel")
        self.columns: list[SignalColumn] = []
        self.positions: np.ndarray | None = None
        self.data: HistogramData | None = None
        title = plain_label("Signal")
        title.setObjectName("sectionTitle")
        self.combo = QComboBox()
        self.combo.setObjectName("signalHistogramColumn")
        self.combo.setToolTip("Which signal column the histogram shows (or click its header)")
        self.combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.combo.setMinimumContentsLength(12)
        self.combo.currentIndexChanged.connect(self._chosen)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(title)
        row.addWidget(self.combo, 1)
        from vendiscope.gui.widgets.histogram import Histogram  # pyqtgraph: when signals exist

        self.histogram: Histogram = Histogram()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.setSpacing(4)
        layout.addLayout(row)
        layout.addWidget(self.histogram, 1)

    @property
    def key(self) -> str | None:
        """The column shown."""
        data = self.combo.currentData()
        return str(data) if data is not None else None

    def set_columns(self, columns: list[SignalColumn]) -> None:
        """Every signal column to choose from; keeps the one shown if it is still there
        (else the first flag that raised anything, else the first column)."""
        current = self.key
        self.columns = columns
        self.combo.blockSignals(True)
        self.combo.clear()
        for column in columns:
            self.combo.addItem(f"{column.key} ({column.kind})", column.key)
            self.combo.setItemData(
                self.combo.count() - 1, column.tooltip, Qt.ItemDataRole.ToolTipRole
            )
        keys = [c.key for c in columns]
        raised = [c.key for c in columns if c.kind == "flag" and c.raised]
        wanted = current if current in keys else next(iter(raised or keys), None)
        self.combo.setCurrentIndex(keys.index(wanted) if wanted in keys else -1)
        self.combo.blockSignals(False)
        self.refresh()

    def show_column(self, key: str) -> None:
        """Show the histogram of the column ``key``."""
        index = self.combo.findData(key)
        if index >= 0 and index != self.combo.currentIndex():
            self.combo.setCurrentIndex(index)

    def set_positions(self, positions: np.ndarray | None) -> None:
        """Count only the records at ``positions`` (the filter; None: every record)."""
        self.positions = positions
        self.refresh()

    def _chosen(self) -> None:
        self.refresh()

    def refresh(self) -> None:
        column = next((c for c in self.columns if c.key == self.key), None)
        if column is None:
            self.data = None
            self.histogram.clear("No signal computed for this dataset yet.")
            return
        data = histogram_of(column, self.positions)
        self.data = data
        if data.records == 0:
            self.histogram.clear("No record matches the filter.")
        elif data.binned:
            self.histogram.show_bins(data.edges, data.counts, title=data.title)
        elif data.labels:
            self.histogram.show_counts(data.labels, data.counts, title=data.title)
        else:
            self.histogram.clear(data.title)
