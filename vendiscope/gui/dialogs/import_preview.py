"""The middle of the import dialog: the field mapping beside the source rows and the records."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QSplitter,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from vendiscope.core.base.errors import VendiscopeError
from vendiscope.core.io.sources import preview
from vendiscope.gui.dialogs.mapping_editor import MappingEditor
from vendiscope.gui.dialogs.preview_tables import RowsModel, mapped_table, raw_table, source_columns
from vendiscope.gui.jobs.progress import format_amount
from vendiscope.gui.widgets.text import markup, rich_label

if TYPE_CHECKING:
    from vendiscope.core.io.sources import Preview

PREVIEW_ROWS = 20


@dataclass
class FileChoice:
    """What the user chose for one file: format, dataset name, mapping; and its preview."""

    path: str
    format: str | None = None
    name: str = ""
    preview: Preview | None = None
    error: str | None = None
    roles: dict[str, Any] | None = None
    params: dict[str, Any] = field(default_factory=dict)
    """The importer's options the user changed (e.g. a CSV delimiter)."""


def read_preview(
    path: str, fmt: str | None, params: dict[str, Any] | None = None
) -> tuple[str, str | None, Preview | None, str | None]:
    """The preview of ``path``, or the reason it cannot be read (never raises a user error)."""
    try:
        found = preview(path, format=fmt, importer_params=params or None, rows=PREVIEW_ROWS)
        return path, fmt, found, None
    except VendiscopeError as exc:
        return path, fmt, None, str(exc)


def detected_layout(choice: FileChoice) -> str:
    found = choice.preview.mapping if choice.preview is not None else None
    if found is not None and found.roles == choice.roles:
        return found.detected
    return "manual"


class SourcePreview(QWidget):
    """Shows a :class:`~vendiscope.core.io.sources.Preview`; the user edits the mapping here."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.preview: Preview | None = None
        self.mapping_editor = MappingEditor()
        self.detected_label = rich_label()  # our bold; the importer and layout are escaped
        self.detected_label.setObjectName("hint")
        self.detected_label.setWordWrap(True)
        mapping_box = QGroupBox("Field mapping")
        box_layout = QVBoxLayout(mapping_box)
        box_layout.addWidget(self.detected_label)
        box_layout.addWidget(self.mapping_editor)
        box_layout.addStretch(1)

        self.raw_model, self.mapped_model = RowsModel(self), RowsModel(self)
        self.tabs = QTabWidget()
        self.tabs.addTab(_table(self.raw_model), "Source rows")
        self.tabs.addTab(_table(self.mapped_model), "Records as mapped")
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(mapping_box)
        splitter.addWidget(self.tabs)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([300, 660])
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(splitter)

    def clear(self) -> None:
        self.preview = None
        self.raw_model.set_rows([], [])
        self.mapped_model.set_rows([], [])
        self.mapping_editor.set_source([], None)
        self.detected_label.setText("")

    def show_preview(self, found: Preview, edited: dict[str, Any] | None = None) -> None:
        """Show ``found``; ``edited`` restores roles the user changed earlier."""
        self.preview = found
        columns, rows = raw_table(found.rows)
        self.raw_model.set_rows(columns, rows)
        self.mapping_editor.set_source(source_columns(found.rows), found.mapping)
        if edited is not None:
            for role in self.mapping_editor.combos:
                spec = edited.get(role)
                if spec is None or isinstance(spec, str):
                    self.mapping_editor.set_role(role, spec)
        detected = found.mapping.detected if found.mapping else "nothing"
        unit = found.info.progress_unit
        size = ""
        if found.info.total:
            size = f", {format_amount(found.info.total, unit)}" + (
                "" if unit == "B" else f" {unit}"
            )
        self.detected_label.setText(
            f"Format: <b>{markup(found.importer)}</b>{markup(size)}. "
            f"Detected layout: <b>{markup(detected)}</b>. "
            "Correct any role below; type a dotted path (meta.domain) to reach nested fields."
        )

    def check(self, label: str) -> tuple[dict[str, Any] | None, str, bool]:
        """Apply the edited mapping to the rows: ``(roles or None, message, is_error)``."""
        found = self.preview
        if found is None:
            return None, "", False
        try:
            mapping = self.mapping_editor.mapping()
        except ValueError as exc:
            self.mapped_model.set_rows([], [])
            return None, f"Mapping: {exc}", True
        roles, rows, errors = mapped_table(found.rows, mapping)
        self.mapped_model.set_rows(roles, rows, errors)
        bad = [e for e in errors if e]
        if found.bad_rows:
            first = found.bad_rows[0]
            message = (
                f"{label}, line {first.number}: {first.message} "
                "(tick “Skip bad rows” to import the rest)"
            )
            return dict(mapping.roles), message, True
        if bad:
            return (
                dict(mapping.roles),
                f"{len(bad)} of the first {len(rows)} rows do not fit: {bad[0]}",
                True,
            )
        return (
            dict(mapping.roles),
            f"The first {len(rows)} rows map cleanly: {mapping.describe()}",
            False,
        )


def _table(model: RowsModel) -> QTableView:
    view = QTableView()
    view.setModel(model)
    view.setAlternatingRowColors(True)
    view.setWordWrap(False)
    view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    view.horizontalHeader().setDefaultSectionSize(180)
    view.horizontalHeader().setStretchLastSection(True)
    view.verticalHeader().setDefaultSectionSize(22)
    return view
