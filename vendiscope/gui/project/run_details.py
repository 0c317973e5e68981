"""A run's record: what ran, with which parameters and versions, how it ended."""

from __future__ import annotations

import json

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from vendiscope.core.store.models import RunInfo
from vendiscope.gui.project.nodes import run_label
from vendiscope.gui.widgets.style import monospace_font
from vendiscope.gui.widgets.text import markup, rich_label


def run_text(run: RunInfo) -> str:
    """The run as readable JSON (long lists shortened)."""

    def shorten(value: object) -> object:
        if isinstance(value, list) and len(value) > 20:
            return [*value[:20], f"… {len(value) - 20} more"]
        if isinstance(value, dict):
            return {k: shorten(v) for k, v in value.items()}
        return value

    data = {
        "id": run.id,
        "key": run.key,
        "kind": run.kind,
        "plugin": run.plugin,
        "status": run.status,
        "seed": run.seed,
        "started_at": run.started_at.isoformat(),
        "finished_at": run.finished_at.isoformat() if run.finished_at else None,
        "params": shorten(run.params),
        "result": shorten(run.result),
        "error": run.error,
        "versions": run.versions,
    }
    return json.dumps(data, indent=2, ensure_ascii=False, default=str)


class RunDetailsDialog(QDialog):
    def __init__(self, run: RunInfo, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Run {run_label(run)}")
        self.resize(640, 520)
        heading = rich_label(f"<b>{markup(run_label(run))}</b> — {markup(run.status)}")
        text = QPlainTextEdit(run_text(run))
        text.setReadOnly(True)
        text.setFont(monospace_font())
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(heading)
        layout.addWidget(text, 1)
        layout.addWidget(buttons)
