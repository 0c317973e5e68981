"""The record detail pane: a record's prompt and response in full, its roles, its original row."""

from __future__ import annotations

import json
from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFormLayout,
    QLabel,
    QPlainTextEdit,
    QSplitter,
    QStackedLayout,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from vendiscope.core.store.models import RecordRow
from vendiscope.gui.widgets.style import monospace_font
from vendiscope.gui.widgets.text import plain_label, plain_tip

HASH_CHARS = 16
"""The content hash is shown shortened (in full in its tooltip)."""


def _text_box(name: str) -> QPlainTextEdit:
    box = QPlainTextEdit()
    box.setObjectName(name)
    box.setReadOnly(True)
    box.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
    box.setTabChangesFocus(True)
    # two lines at least, not Qt's 70 px: the pane fits beside the map on a 768-pixel screen
    box.setMinimumHeight(box.fontMetrics().lineSpacing() * 2 + 2 * box.frameWidth() + 8)
    return box


def _section(title: str, box: QWidget) -> QWidget:
    holder = QWidget()
    layout = QVBoxLayout(holder)
    layout.setContentsMargins(0, 4, 0, 0)
    label = plain_label(title)
    label.setObjectName("sectionTitle")
    label.setBuddy(box)
    layout.addWidget(label)
    layout.addWidget(box, 1)
    return holder


class RecordDetail(QWidget):
    """Shows one :class:`RecordRow` (or a hint when none is selected)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.record: RecordRow | None = None
        self.heading = plain_label()
        self.heading.setObjectName("sectionTitle")
        self.facts = QFormLayout()
        self.facts.setContentsMargins(0, 0, 0, 0)
        self.fact_labels: dict[str, QLabel] = {}
        for key in ("source", "label", "id", "row", "hash"):
            value = plain_label()
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            value.setWordWrap(True)
            self.fact_labels[key] = value
            self.facts.addRow(f"{'Row in source' if key == 'row' else key.capitalize()}:", value)

        self.prompt = _text_box("detailPrompt")
        self.response = _text_box("detailResponse")
        self.text = _text_box("detailText")
        self.raw = _text_box("detailRaw")
        self.raw.setFont(monospace_font())
        content = QSplitter(Qt.Orientation.Vertical)
        self.prompt_section = _section("Prompt", self.prompt)
        self.response_section = _section("Response", self.response)
        self.text_section = _section("Text", self.text)
        for section in (self.prompt_section, self.response_section, self.text_section):
            content.addWidget(section)
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(content, "Content")
        self.tabs.addTab(self.raw, "Original row")

        content_page = QWidget()
        layout = QVBoxLayout(content_page)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addWidget(self.heading)
        layout.addLayout(self.facts)
        self.notes = plain_label()
        self.notes.setObjectName("signalNotes")
        self.notes.setWordWrap(True)
        self.notes.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.notes)
        layout.addWidget(self.tabs, 1)
        self.placeholder = plain_label("Select a record to read it in full.")
        self.placeholder.setObjectName("hint")
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setWordWrap(True)
        self.stack = QStackedLayout(self)
        self.stack.addWidget(self.placeholder)
        self.stack.addWidget(content_page)
        self.show_record(None)

    def show_record(self, record: RecordRow | None, notes: Sequence[tuple[str, str]] = ()) -> None:
        """Show ``record`` with its signals' ``notes`` (``(column, text)``: a judge's reason)."""
        self.record = record
        self.notes.setText("\n".join(f"{column}: {text}" for column, text in notes))
        self.notes.setVisible(bool(notes))
        if record is None:
            self.stack.setCurrentWidget(self.placeholder)
            for section in (self.prompt_section, self.response_section, self.text_section):
                section.hide()  # and take no room: the pane's minimum is the placeholder's
            return
        self.stack.setCurrentIndex(1)
        self.heading.setText(f"Record {record.seq:,}")
        facts = {
            "source": record.source,
            "label": record.label,
            "id": record.ext_id,
            "row": f"{record.row_index:,}",
            "hash": record.content_hash,
        }
        for key, value in facts.items():
            shown = value or "—"
            if key == "hash" and len(shown) > HASH_CHARS:  # a hex string cannot wrap
                shown = shown[:HASH_CHARS] + "…"
            self.fact_labels[key].setText(shown)
            self.fact_labels[key].setToolTip(plain_tip(value))
        self.prompt.setPlainText(record.prompt or "")
        self.response.setPlainText(record.response or "")
        self.text.setPlainText(record.text or "")
        self.prompt_section.setVisible(record.prompt is not None)
        self.response_section.setVisible(record.response is not None)
        self.text_section.setVisible(record.text is not None)
        try:
            original = json.dumps(record.original(), indent=2, ensure_ascii=False, default=str)
        except Exception as exc:  # a damaged raw row should not break browsing
            original = f"(the original row cannot be shown: {exc})"
        self.raw.setPlainText(original)
