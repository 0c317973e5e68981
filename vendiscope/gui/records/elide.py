"""Text cells that show where a record differs from its neighbours.

Records of one template share long beginnings ("Tell me one fact about …", "Read the premise
and decide whether …"): cut at the right, a narrow column shows the same words on every row.
Where a cell's text does not fit, :class:`DistinctTextDelegate` drops the beginning it shares
with the row above or below (keeping the word before the difference for context) and shows
``…`` in its place; the end is then elided as usual, and the tooltip has the whole text.
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem, QWidget

ELLIPSIS = "\u2026"
MIN_CUT = 8
"""A shared beginning shorter than this many characters is kept (the ``…`` would save little)."""


def distinct_start(text: str, neighbours: Iterable[str | None]) -> int:
    """Where ``text`` starts to differ from the neighbour it shares most with, moved back to
    the start of the word before the difference (for context); 0 when the shared beginning
    is shorter than :data:`MIN_CUT` characters."""
    shared = max((_shared(text, other) for other in neighbours if other), default=0)
    if shared >= len(text):  # the same text (or a longer one): nothing tells it apart
        return 0
    start = text.rfind(" ", 0, shared) + 1  # the word where they differ
    start = text.rfind(" ", 0, max(start - 1, 0)) + 1  # and the word before it
    return start if start >= MIN_CUT else 0


def _shared(one: str, other: str) -> int:
    """The length of the beginning ``one`` and ``other`` share."""
    for i, (a, b) in enumerate(zip(one, other, strict=False)):
        if a != b:
            return i
    return min(len(one), len(other))


def shown_text(
    text: str, neighbours: Iterable[str | None], width: int, metrics: QFontMetrics
) -> str:
    """What a cell ``width`` pixels wide shows: ``text`` when it fits, else ``…`` and the part
    where it differs from its neighbours, elided at the right."""
    if metrics.horizontalAdvance(text) <= width:
        return text
    start = distinct_start(text, neighbours)
    if start:
        text = ELLIPSIS + text[start:]
    return metrics.elidedText(text, Qt.TextElideMode.ElideRight, width)


class DistinctTextDelegate(QStyledItemDelegate):
    """Paints a text column with :func:`shown_text` (the rows above and below are the
    neighbours, in the order the view shows them)."""

    def initStyleOption(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        super().initStyleOption(option, index)
        if not option.text:
            return
        width = self.text_width(option)
        option.text = shown_text(option.text, neighbour_texts(index), width, option.fontMetrics)

    @staticmethod
    def text_width(option: QStyleOptionViewItem) -> int:
        """The pixels a cell of ``option.rect`` has for its text (less the style's margins)."""
        widget: QWidget | None = option.widget
        style = widget.style() if widget is not None else None
        margin = (
            style.pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, widget) + 1
            if style is not None
            else 4
        )
        return max(option.rect.width() - 2 * margin, 0)


def neighbour_texts(index: QModelIndex | QPersistentModelIndex) -> list[str | None]:
    """The display texts of the cells above and below ``index``."""
    model = index.model()
    found = []
    for row in (index.row() - 1, index.row() + 1):
        if 0 <= row < model.rowCount(index.parent()):
            found.append(model.index(row, index.column(), index.parent()).data())
    return found
