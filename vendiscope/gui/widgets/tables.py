"""Read-only tables of texts: one made the same way everywhere, and filled from rows."""

from __future__ import annotations

from collections.abc import Container, Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem

from vendiscope.gui.widgets.text import plain_tip


def read_only_table(name: str, columns: Sequence[str] = ()) -> QTableWidget:
    """A table named ``name`` with the headers ``columns``: rows selected whole, never
    edited, columns as wide as their contents."""
    table = QTableWidget(0, len(columns))
    table.setObjectName(name)
    if columns:
        table.setHorizontalHeaderLabels(list(columns))
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.verticalHeader().hide()
    table.setAlternatingRowColors(True)
    table.setWordWrap(False)
    table.verticalHeader().setDefaultSectionSize(table.fontMetrics().height() + 10)
    header = table.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    header.setMinimumSectionSize(40)
    return table


def fill_table(
    table: QTableWidget, rows: Sequence[Sequence[str]], text_columns: Container[int]
) -> None:
    """``rows`` of texts into ``table``: the ``text_columns`` left-aligned (their text also
    the tooltip), the others numbers, right-aligned."""
    table.setRowCount(len(rows))
    for row, cells in enumerate(rows):
        for column, text in enumerate(cells):
            item = QTableWidgetItem(text)
            if column in text_columns:
                item.setToolTip(plain_tip(text))
            else:
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            table.setItem(row, column, item)
