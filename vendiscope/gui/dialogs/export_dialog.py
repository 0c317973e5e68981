"""The export dialog: a dataset (or one of its subsets) to a file, with its manifest.

The destination starts filled in: a file named after the dataset (or subset) beside the
project, its suffix following the format; it follows the dataset, subset and format chosen
until the user types or browses to another.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from vendiscope.gui.widgets.text import plain_label
from vendiscope.gui.windows.document import ProjectDocument

FORMATS = (
    ("By file name", None),
    ("JSON Lines (.jsonl)", "jsonl"),
    ("CSV (.csv)", "csv"),
    ("Parquet (.parquet)", "parquet"),
    ("Hugging Face datasets folder", "hf-disk"),
)
SUFFIXES = {None: ".jsonl", "jsonl": ".jsonl", "csv": ".csv", "parquet": ".parquet",
            "hf-disk": ""}  # fmt: skip
"""The suggested file's suffix per format (a Hugging Face datasets folder has none)."""


class ExportDialog(QDialog):
    """Returns the keyword arguments of :func:`vendiscope.gui.jobs.tasks.export`."""

    def __init__(
        self,
        document: ProjectDocument,
        dataset: str | None = None,
        parent: QWidget | None = None,
        *,
        subset: str | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Export")
        self.setMinimumWidth(560)
        self.document = document
        self.suggested = ""  # the destination filled in, until the user changes it
        intro = plain_label(
            "Rows are written in their original schema; a manifest with the provenance "
            "(source, subset, the run that selected it, versions, hashes) is written beside them."
        )
        intro.setWordWrap(True)
        intro.setObjectName("hint")
        self.dataset = QComboBox()
        for info in document.datasets():
            self.dataset.addItem(f"{info.name} ({info.row_count:,} records)", info.name)
        if dataset is not None:
            self.dataset.setCurrentIndex(max(0, self.dataset.findData(dataset)))
        self.dataset.currentIndexChanged.connect(self._fill_subsets)
        self.subset = QComboBox()
        self.subset.currentIndexChanged.connect(self._suggest)
        self.destination = QLineEdit()
        self.destination.setPlaceholderText("the file to write, e.g. out.jsonl")
        self.destination.textChanged.connect(self._validate)
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        where = QHBoxLayout()
        where.addWidget(self.destination, 1)
        where.addWidget(browse)
        self.format = QComboBox()
        for label, value in FORMATS:
            self.format.addItem(label, value)
        self.format.currentIndexChanged.connect(self._suggest)
        self.force = QCheckBox("Overwrite an existing file")
        form = QFormLayout()
        form.addRow("Dataset:", self.dataset)
        form.addRow("Records:", self.subset)
        form.addRow("Destination:", where)
        form.addRow("Format:", self.format)
        form.addRow("", self.force)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Export")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(self.buttons)
        self._fill_subsets()
        if subset is not None:
            self.subset.setCurrentIndex(max(0, self.subset.findData(subset)))
        self._suggest()
        self._validate()

    def _fill_subsets(self) -> None:
        self.subset.blockSignals(True)
        self.subset.clear()
        self.subset.addItem("All records", None)
        name = self.dataset.currentData()
        if name is not None and self.document.is_open:
            for subset in self.document.project.subsets(name):
                self.subset.addItem(f"Subset {subset.name} ({subset.size:,})", subset.name)
        self.subset.blockSignals(False)
        self._suggest()

    def suggestion(self) -> str:
        """The file the chosen records go to by default: named after them, beside the
        project, with the chosen format's suffix (``""`` without a dataset)."""
        name = self.subset.currentData() or self.dataset.currentData()
        location = self.document.location if self.document.is_open else None
        if not name or not location:
            return ""
        suffix = SUFFIXES.get(self.format.currentData(), ".jsonl")
        return str(Path(location).parent / f"{name}{suffix}")

    def _suggest(self) -> None:
        """Fill the destination in, unless the user chose one of their own."""
        if not hasattr(self, "format"):
            return  # still being built
        current = self.destination.text().strip()
        if current and current != self.suggested:
            return
        self.suggested = self.suggestion()
        self.destination.setText(self.suggested)

    def _browse(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self,
            "Export to",
            self.destination.text(),
            "JSON Lines (*.jsonl);;CSV (*.csv);;Parquet (*.parquet);;All files (*)",
        )
        if path:
            self.destination.setText(path)

    def _validate(self) -> None:
        ok = bool(self.destination.text().strip()) and self.dataset.count() > 0
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(ok)

    def options(self) -> dict[str, Any]:
        return {
            "dataset": self.dataset.currentData(),
            "destination": self.destination.text().strip(),
            "subset": self.subset.currentData(),
            "format": self.format.currentData(),
            "force": self.force.isChecked(),
        }
