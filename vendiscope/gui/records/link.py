"""The record selected in each dataset, shared by a window's views, and a small record cache.

Selecting a record in the records table rings it on the map; clicking a point on the map
selects its row in the table: both views call :meth:`RecordLink.select` and follow
:attr:`RecordLink.selected`. Selecting the record that is already selected emits nothing,
so the two views never echo each other.
"""

from __future__ import annotations

from collections import OrderedDict
from html import escape

from PySide6.QtCore import QObject, Signal

from vendiscope.core.store.models import RecordRow
from vendiscope.gui.windows.document import ProjectDocument


class RecordLink(QObject):
    """The current record (dataset position) of each dataset."""

    selected = Signal(str, int, object)  # dataset, position, the view that selected it

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._current: dict[str, int] = {}

    def select(self, dataset: str, position: int, origin: object = None) -> None:
        if self._current.get(dataset) == position:
            return
        self._current[dataset] = position
        self.selected.emit(dataset, position, origin)

    def current(self, dataset: str) -> int | None:
        return self._current.get(dataset)

    def forget(self) -> None:
        self._current.clear()


class RecordCache:
    """Records of one dataset by position, read through the document's connection (LRU)."""

    def __init__(self, document: ProjectDocument, dataset: str, size: int = 512) -> None:
        self.document = document
        self.dataset = dataset
        self.size = size
        self.reads = 0
        self._records: OrderedDict[int, RecordRow] = OrderedDict()

    def get(self, position: int) -> RecordRow | None:
        found = self._records.get(position)
        if found is not None:
            self._records.move_to_end(position)
            return found
        if not self.document.is_open:
            return None
        page = self.document.project.records(self.dataset, position, 1)
        self.reads += 1
        if not page or page[0].seq != position:
            return None
        self._records[position] = page[0]
        while len(self._records) > self.size:
            self._records.popitem(last=False)
        return page[0]

    def clear(self) -> None:
        self._records.clear()


def record_tooltip(record: RecordRow, width: int = 280) -> str:
    """A record in a few lines, for a hover tooltip (rich text, so Qt wraps it)."""

    def short(text: str | None) -> str:
        flat = " ".join((text or "").split())
        return escape(flat if len(flat) <= width else flat[: width - 1] + "…")

    head = f"<b>Record {record.seq:,}</b>"
    if record.source:
        head += f" · {escape(record.source)}"
    if record.label:
        head += f" · label {escape(record.label)}"
    lines = [head]
    if record.prompt:
        lines.append(f"<i>Prompt:</i> {short(record.prompt)}")
    if record.response:
        lines.append(f"<i>Response:</i> {short(record.response)}")
    if record.text and not record.prompt:
        lines.append(short(record.text))
    return "<br>".join(lines)
