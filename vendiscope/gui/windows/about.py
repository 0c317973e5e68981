"""The About dialog: what Vendiscope is, and the versions a bug report needs.

Versions of heavy libraries (torch, faiss, transformers) come from ``importlib.metadata``,
or from the module when it is already imported; nothing heavy is imported to show them.
"""

from __future__ import annotations

import platform
import sys
from importlib.metadata import PackageNotFoundError, version

from PySide6 import __version__ as pyside_version
from PySide6.QtCore import Qt, qVersion
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from vendiscope import __version__
from vendiscope.gui.widgets.icons import app_icon
from vendiscope.gui.widgets.text import plain_label, rich_label

OPTIONAL = (
    ("torch", "torch", "torch"),
    ("faiss", "faiss-cpu", "faiss"),
    ("faiss (GPU)", "faiss-gpu-cu12", None),
    ("transformers", "transformers", "transformers"),
    ("sentence-transformers", "sentence-transformers", "sentence_transformers"),
    ("superqt", "superqt", "superqt"),
    ("pyqtgraph", "pyqtgraph", "pyqtgraph"),
    ("SQLAlchemy", "sqlalchemy", "sqlalchemy"),
    ("numpy", "numpy", "numpy"),
)


def versions() -> list[tuple[str, str]]:
    """``(name, version)`` pairs; ``not installed`` where a package is missing."""
    found = [
        ("Vendiscope", __version__),
        ("Python", platform.python_version()),
        ("Qt", qVersion()),
        ("PySide6", pyside_version),
        ("Platform", platform.platform()),
    ]
    for label, distribution, module in OPTIONAL:
        loaded = sys.modules.get(module) if module else None
        value = getattr(loaded, "__version__", None) if loaded is not None else None
        if value is None:
            try:
                value = version(distribution)
            except PackageNotFoundError:
                if distribution == "faiss-gpu-cu12":
                    continue
                value = "not installed"
        found.append((label, str(value)))
    return found


class AboutDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("About Vendiscope")
        self.setMinimumWidth(520)
        logo = plain_label()
        logo.setPixmap(app_icon().pixmap(72, 72))
        logo.setAlignment(Qt.AlignmentFlag.AlignTop)
        title = plain_label(f"Vendiscope {__version__}")
        title.setObjectName("pageTitle")
        blurb = rich_label(  # our own markup (line breaks), no data
            "How diverse is your training data, really? Vendiscope measures G-Vendi — the Vendi "
            "score of proxy-model gradients, which predicts out-of-distribution generalisation "
            "(Jung et al. 2025) — finds redundancy and gaps, and exports curated subsets with "
            "their provenance.<br><br>Apache-2.0. The bundled demo dataset is CC0-1.0."
        )
        blurb.setWordWrap(True)
        text = QVBoxLayout()
        text.addWidget(title)
        text.addWidget(blurb)
        top = QHBoxLayout()
        top.addWidget(logo)
        top.addLayout(text, 1)

        self.table = QTreeWidget()
        self.table.setRootIsDecorated(False)
        self.table.setHeaderLabels(["Component", "Version"])
        self.table.setAlternatingRowColors(True)
        for name, value in versions():
            self.table.addTopLevelItem(QTreeWidgetItem([name, value]))
        self.table.resizeColumnToContents(0)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        copy = buttons.addButton("Copy versions", QDialogButtonBox.ButtonRole.ActionRole)
        copy.clicked.connect(self.copy_versions)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.table, 1)
        layout.addWidget(buttons)

    def copy_versions(self) -> None:
        QGuiApplication.clipboard().setText("\n".join(f"{n}: {v}" for n, v in versions()))
