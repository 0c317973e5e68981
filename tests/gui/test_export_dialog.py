"""The export dialog starts with a real destination, which Export can use at once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QDialogButtonBox

from tests.gui.conftest import screenshot
from vendiscope.gui.dialogs.export_dialog import ExportDialog
from vendiscope.gui.windows.document import ProjectDocument


def test_the_destination_starts_filled_in_and_follows_the_choices(
    qtbot: Any, small_project: Path
) -> None:
    from vendiscope.core.store import subsets
    from vendiscope.core.store.project import Project

    with Project.open(small_project) as project:
        subsets.from_positions(project, "tiny", "picked", [1, 2, 3])
    document = ProjectDocument()
    document.open(str(small_project))
    try:
        dialog = ExportDialog(document, "tiny")
        qtbot.addWidget(dialog)
        dialog.show()
        export = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
        folder = small_project.parent
        assert dialog.destination.text() == str(folder / "tiny.jsonl")  # a value, not a hint
        assert export.isEnabled()
        screenshot(dialog, "export-dialog")
        dialog.subset.setCurrentIndex(dialog.subset.findData("picked"))
        assert dialog.destination.text() == str(folder / "picked.jsonl")
        dialog.format.setCurrentIndex(dialog.format.findData("csv"))
        assert dialog.destination.text() == str(folder / "picked.csv")
        dialog.destination.setText("/elsewhere/mine.jsonl")  # the user's own choice stays
        dialog.format.setCurrentIndex(dialog.format.findData("parquet"))
        assert dialog.destination.text() == "/elsewhere/mine.jsonl"
        dialog.destination.clear()  # cleared: a hint, and nothing to export to
        assert not export.isEnabled() and "e.g." in dialog.destination.placeholderText()
        assert dialog.options()["subset"] == "picked"
    finally:
        document.close()
