"""Legends: a checkable list of categories, a colour bar for scores, and a series legend.

The series legend (:class:`SeriesLegend`) sits *beside* a chart, never on it: one entry per
drawn line or bar series (its swatch drawn in the series' own pen, solid or dashed, and its
full name), flowing onto as many lines as the width needs, so it can neither be clipped nor
cover the data.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QPoint, QPointF, QRect, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QLinearGradient, QPainter, QPalette, QPen, QPixmap
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLayout,
    QLayoutItem,
    QListWidget,
    QListWidgetItem,
    QSizePolicy,
    QWidget,
    QWidgetItem,
)

from vendiscope.gui.widgets.icons import swatch
from vendiscope.gui.widgets.text import plain_label, plain_tip

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
            plain_tip(
                f"{title}: colours from {low:.4g} (bottom) to {high:.4g} (top); the 1% lowest "
                "and highest values are drawn at the ends; grey: no value"
            )
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


# ----------------------------------------------------------------------------- series legend
@dataclass(frozen=True)
class LegendEntry:
    """One series of a chart: its name, colour and how it is drawn.

    ``style`` is ``"line"`` (solid), ``"dash"`` (a dashed reference line) or ``"bar"`` (a
    filled box); ``marker`` adds the series' dot to a line; ``width`` is the pen width.
    """

    name: str
    colour: QColor
    style: str = "line"
    marker: bool = False
    width: float = 2.0
    tooltip: str = ""


SWATCH_SIZE = QSize(26, 12)


def series_swatch(entry: LegendEntry, size: QSize = SWATCH_SIZE) -> QPixmap:
    """The entry's sample as a small picture: a line in its pen (dashed or solid) or a box."""
    ratio = 2.0  # sharp on high-density screens too
    pixmap = QPixmap(round(size.width() * ratio), round(size.height() * ratio))
    pixmap.setDevicePixelRatio(ratio)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    w, h = size.width(), size.height()
    if entry.style == "bar":
        fill = QColor(entry.colour)
        fill.setAlpha(210)
        painter.setPen(QPen(entry.colour.darker(120), 1))
        painter.setBrush(fill)
        painter.drawRect(QRectF(w / 2 - h / 2 + 0.5, 0.5, h - 1, h - 1))
    else:
        pen = QPen(entry.colour, max(1.5, entry.width))
        if entry.style == "dash":
            pen.setStyle(Qt.PenStyle.DashLine)
        pen.setCapStyle(Qt.PenCapStyle.FlatCap)
        painter.setPen(pen)
        painter.drawLine(QPointF(1, h / 2), QPointF(w - 1, h / 2))
        if entry.marker:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(entry.colour)
            painter.drawEllipse(QRectF(w / 2 - 3, h / 2 - 3, 6, 6))
    painter.end()
    return pixmap


class _Entry(QWidget):
    """A swatch and a name; the name is elided only when even a line of its own is too narrow."""

    def __init__(self, entry: LegendEntry, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.entry = entry
        self.setObjectName("legendEntry")
        self.swatch = plain_label()
        self.swatch.setObjectName("legendSwatch")
        self.swatch.setPixmap(series_swatch(entry))
        self.label = plain_label(entry.name)
        self.label.setObjectName("legendLabel")
        self.setToolTip(plain_tip(entry.tooltip or entry.name))
        self.setAccessibleName(entry.name)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(6)
        layout.addWidget(self.swatch)
        layout.addWidget(self.label)
        self.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Fixed)

    def full_width(self) -> int:
        return SWATCH_SIZE.width() + 6 + self.label.fontMetrics().horizontalAdvance(self.entry.name)

    def fit(self, width: int) -> None:
        """Elide the name (keeping both ends) if the entry is wider than ``width``."""
        room = width - SWATCH_SIZE.width() - 6
        metrics = self.label.fontMetrics()
        text = metrics.elidedText(self.entry.name, Qt.TextElideMode.ElideMiddle, max(room, 20))
        if text != self.label.text():
            self.label.setText(text)


class FlowLayout(QLayout):
    """Widgets left to right, wrapping onto new lines (Qt's flow layout example, trimmed)."""

    def __init__(self, parent: QWidget | None = None, spacing: int = 16, line: int = 4) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._spacing, self._line = spacing, line
        self.setContentsMargins(0, 0, 0, 0)

    def addItem(self, item: QLayoutItem) -> None:
        self._items.append(item)

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._arrange(QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect: QRect) -> None:
        super().setGeometry(rect)
        self._arrange(rect, move=True)

    def sizeHint(self) -> QSize:
        return self.minimumSize()

    def minimumSize(self) -> QSize:
        size = QSize()
        for item in self._items:
            size = size.expandedTo(item.minimumSize())
        return size

    def _arrange(self, rect: QRect, *, move: bool) -> int:
        x, y, line_height = rect.x(), rect.y(), 0
        for item in self._items:
            widget = item.widget()
            hint = item.sizeHint()
            if isinstance(widget, _Entry):  # measured on the full name, elided only if need be
                hint.setWidth(widget.full_width())
                if move:
                    widget.fit(rect.width())
            width = min(hint.width(), rect.width())
            if x > rect.x() and x + width > rect.right() + 1:
                x, y = rect.x(), y + line_height + self._line
                line_height = 0
            if move:
                item.setGeometry(QRect(QPoint(x, y), QSize(width, hint.height())))
            x += width + self._spacing
            line_height = max(line_height, hint.height())
        return y + line_height - rect.y()


def with_legend_below(plot: QWidget, legend: QWidget) -> QWidget:
    """``plot`` over ``legend`` in one widget: the legend never covers what it explains."""
    from PySide6.QtWidgets import QVBoxLayout

    holder = QWidget()
    layout = QVBoxLayout(holder)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(6)
    layout.addWidget(plot, 1)
    layout.addWidget(legend)
    return holder


class SeriesLegend(QWidget):
    """The legend of a line or bar chart, placed beside the plot (below it, as a rule)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("seriesLegend")
        self.flow = FlowLayout(self)
        self.entries: list[_Entry] = []
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)

    def set_entries(self, entries: list[LegendEntry]) -> None:
        while self.flow.count():
            item = self.flow.takeAt(0)
            if item is not None and item.widget() is not None:
                item.widget().hide()
                item.widget().deleteLater()
        self.entries = []
        for entry in entries:
            shown = _Entry(entry, self)
            self.flow.addItem(QWidgetItem(shown))
            shown.show()
            self.entries.append(shown)
        self.setVisible(bool(entries))
        self.flow.invalidate()
        self.updateGeometry()

    def names(self) -> list[str]:
        return [shown.entry.name for shown in self.entries]

    def shown_texts(self) -> list[str]:
        """What each entry reads now (elided names end in or contain an ellipsis)."""
        return [shown.label.text() for shown in self.entries]

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self.flow.heightForWidth(width)

    def sizeHint(self) -> QSize:
        width = max(self.width(), 200)
        return QSize(width, self.heightForWidth(width))
