"""Read-only tables of a source preview: the raw rows, and the records they would become."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt

from vendiscope.core.io.fields import ROLES, FieldMapping, MappingError, as_text
from vendiscope.gui.widgets.text import plain_tip

CELL_CHARS = 160
Index = QModelIndex | QPersistentModelIndex


def short(value: Any, limit: int = CELL_CHARS) -> str:
    text = as_text(value)
    if text is None:
        return ""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class RowsModel(QAbstractTableModel):
    """A list of dicts as a table; full values in tooltips."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.columns: list[str] = []
        self.rows: list[list[Any]] = []
        self.errors: list[str | None] = []

    def set_rows(
        self, columns: list[str], rows: list[list[Any]], errors: list[str | None] | None = None
    ) -> None:
        self.beginResetModel()
        self.columns, self.rows = columns, rows
        self.errors = errors or [None] * len(rows)
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.columns)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        value = self.rows[index.row()][index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return short(value)
        if role == Qt.ItemDataRole.ToolTipRole:
            error = self.errors[index.row()]
            text = as_text(value) or ""
            return plain_tip(f"{error}\n\n{text[:2000]}" if error else text[:2000])
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = 0) -> Any:
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal:
            return self.columns[section]
        error = self.errors[section] if section < len(self.errors) else None
        return f"{section + 1} ⚠" if error else str(section + 1)


def source_columns(rows: list[dict[str, Any]]) -> list[str]:
    """Every key of the rows, in first-seen order."""
    seen: dict[str, None] = {}
    for row in rows:
        for key in row:
            seen.setdefault(key, None)
    return list(seen)


def raw_table(rows: list[dict[str, Any]]) -> tuple[list[str], list[list[Any]]]:
    columns = source_columns(rows)
    return columns, [[row.get(c) for c in columns] for row in rows]


def mapped_table(
    rows: list[dict[str, Any]], mapping: FieldMapping
) -> tuple[list[str], list[list[Any]], list[str | None]]:
    """The records the rows become under ``mapping`` (and each row's error, if any)."""
    roles = [r for r in ROLES if r in mapping.roles]
    table: list[list[Any]] = []
    errors: list[str | None] = []
    for row in rows:
        try:
            values = mapping.apply(row)
        except MappingError as exc:
            table.append([f"⚠ {exc}", *("" for _ in roles[1:])])
            errors.append(str(exc))
        else:
            table.append([values[r] for r in roles])
            errors.append(None)
    return roles, table, errors
