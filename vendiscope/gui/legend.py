"""Legends for coloured points: a checkable list of categories and a colour bar for scores."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtGui import QColor, QLinearGradient, QPainter, QPalette
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QSizePolicy, QWidget

from vendiscope.gui.icons import swatch

MAX_ENTRIES = 300
CODE_ROLE = Qt.ItemDataRole.UserRole + 1


class CategoryLegend(QListWidget):
    """One row per category (swatch, name, count); unticking a row hides its points."""

    hidden_changed = Signal(object)  # np.ndarray of bool, one per code

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("mapLegend")
        self.setUniformItemSizes(True)
        self.setToolTip("Untick a category to hide its points (hidden points cannot be selected)")
        self.codes = 0
        self.itemChanged.connect(self._item_changed)
        self._filling = False

    def set_categories(
        self, names: list[str], counts: list[int], colours: list[QColor], *, order: list[int]
    ) -> None:
        """Show the categories ``order`` (codes, most important first) with their colours."""
        self._filling = True
        self.clear()
        self.codes = len(names)
        for code in order[:MAX_ENTRIES]:
            item = QListWidgetItem(swatch(colours[code], 12), f"{names[code]}  ·  {counts[code]:,}")
            item.setData(CODE_ROLE, code)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked)
            self.addItem(item)
        if len(order) > MAX_ENTRIES:
            more = QListWidgetItem(f"… and {len(order) - MAX_ENTRIES:,} more")
            more.setFlags(Qt.ItemFlag.NoItemFlags)
            self.addItem(more)
        self._filling = False

    def hidden(self) -> np.ndarray:
        hidden = np.zeros(self.codes, dtype=bool)
        for row in range(self.count()):
            item = self.item(row)
            code = item.data(CODE_ROLE)
            if code is not None and item.checkState() != Qt.CheckState.Checked:
                hidden[int(code)] = True
        return hidden

    def set_code_visible(self, code: int, visible: bool) -> None:
        for row in range(self.count()):
            item = self.item(row)
            if item.data(CODE_ROLE) == code:
                item.setCheckState(Qt.CheckState.Checked if visible else Qt.CheckState.Unchecked)

    def _item_changed(self, _item: QListWidgetItem) -> None:
        if not self._filling:
            self.hidden_changed.emit(self.hidden())


class ColorBar(QWidget):
    """A vertical colour scale with its title and the values at its ends and middle."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("colorBar")
        self.colours: list[QColor] = []
        self.low, self.high, self.title = 0.0, 1.0, ""
        self.setMinimumHeight(180)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Expanding)

    def set_scale(self, colours: list[QColor], low: float, high: float, title: str) -> None:
        self.colours, self.low, self.high, self.title = colours, low, high, title
        self.setToolTip(
            f"{title}: colours from {low:.4g} (bottom) to {high:.4g} (top); the 1% lowest and "
            "highest values are drawn at the ends; grey: no value"
        )
        self.update()

    def paintEvent(self, _event) -> None:
        if not self.colours:
            return
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        metrics = self.fontMetrics()
        text = self.palette().color(QPalette.ColorRole.WindowText)
        line = metrics.height()
        bar = QRectF(8, line + 10, 18, max(40, self.height() - 2 * line - 20))
        gradient = QLinearGradient(bar.bottomLeft(), bar.topLeft())
        for number, colour in enumerate(self.colours):
            gradient.setColorAt(number / max(1, len(self.colours) - 1), colour)
        painter.setPen(self.palette().color(QPalette.ColorRole.Mid))
        painter.setBrush(gradient)
        painter.drawRoundedRect(bar, 3, 3)
        painter.setPen(text)
        painter.drawText(QRectF(4, 0, self.width() - 8, line + 4), Qt.AlignmentFlag.AlignLeft,
                         metrics.elidedText(self.title, Qt.TextElideMode.ElideRight,
                                            self.width() - 8))  # fmt: skip
        middle = (self.low + self.high) / 2
        for value, y in (
            (self.high, bar.top()),
            (middle, bar.center().y()),
            (self.low, bar.bottom()),
        ):
            painter.drawLine(int(bar.right()), int(y), int(bar.right()) + 4, int(y))
            painter.drawText(
                int(bar.right()) + 8, int(y + metrics.ascent() / 2 - 1), f"{value:.4g}"
            )
        painter.end()
