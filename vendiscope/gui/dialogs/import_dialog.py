"""The import dialog: pick files, preview them, check the detected mapping, import as jobs.

The preview (core :func:`~vendiscope.core.io.importing.preview`) is read in the background; the
import itself runs as a job (it appears in the jobs panel too). The dialog stays open while
its imports run, so an importer error (file, line, field) is shown right here, next to the
mapping that caused it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from vendiscope.core.io.sources import default_name
from vendiscope.core.plugin_host.registry import PluginRegistry, default_registry
from vendiscope.gui.dialogs.error_dialog import describe_error
from vendiscope.gui.dialogs.import_preview import (
    FileChoice,
    SourcePreview,
    detected_layout,
    read_preview,
)
from vendiscope.gui.jobs import tasks
from vendiscope.gui.jobs.background import Loader
from vendiscope.gui.jobs.manager import Job, JobState
from vendiscope.gui.widgets.style import error_palette
from vendiscope.gui.widgets.text import plain_label, plain_tip
from vendiscope.gui.windows.document import ProjectDocument

if TYPE_CHECKING:
    from vendiscope.core.io.sources import Preview

FILE_FILTER = (
    "Data files (*.jsonl *.ndjson *.jsonl.gz *.json *.csv *.tsv *.tab *.parquet *.pq);;"
    "All files (*)"
)


class ImportDialog(QDialog):
    """Import one or more files. ``submit(title, func, *args, **kwargs) -> Job`` runs a job."""

    def __init__(
        self,
        document: ProjectDocument,
        submit: Callable[..., Job],
        files: list[str] | tuple[str, ...] = (),
        registry: PluginRegistry | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Import data")
        self.resize(980, 640)
        self.document = document
        self.submit = submit
        self.registry = registry or default_registry()
        self.choices: list[FileChoice] = []
        self.jobs: list[Job] = []
        self.loader = Loader(self)
        self.loader.loaded.connect(self._preview_loaded)
        self.loader.failed.connect(self._preview_failed)
        self._build()
        self.add_files(list(files))
        self._update_buttons()

    # ------------------------------------------------------------------ layout
    def _build(self) -> None:
        self.file_combo = QComboBox()
        self.file_combo.setMinimumWidth(360)
        self.file_combo.currentIndexChanged.connect(self._file_changed)
        add_files = QPushButton("Add files…")
        add_files.clicked.connect(self.choose_files)
        add_folder = QPushButton("Add folder…")
        add_folder.setToolTip("A Hugging Face datasets folder or a folder of .txt files")
        add_folder.clicked.connect(self.choose_folder)
        self.remove_button = QPushButton("Remove")
        self.remove_button.clicked.connect(self.remove_current)
        file_row = QHBoxLayout()
        file_row.addWidget(self.file_combo, 1)
        file_row.addWidget(add_files)
        file_row.addWidget(add_folder)
        file_row.addWidget(self.remove_button)

        self.format_combo = QComboBox()
        self.format_combo.addItem("Automatic (from the file name)", None)
        for contribution in self.registry.contributions("importer"):
            self.format_combo.addItem(
                f"{contribution.label} ({contribution.name})", contribution.name
            )
        self.format_combo.currentIndexChanged.connect(self._format_changed)
        self.options_button = QPushButton("Options…")
        self.options_button.setToolTip("The importer's options (e.g. a CSV delimiter)")
        self.options_button.clicked.connect(self.edit_options)
        format_row = QHBoxLayout()
        format_row.addWidget(self.format_combo, 1)
        format_row.addWidget(self.options_button)
        self.name_edit = QLineEdit()
        self.name_edit.setPlaceholderText("dataset name")
        self.name_edit.textEdited.connect(self._name_edited)
        self.skip_bad = QCheckBox("Skip bad rows (write them to a report beside the file)")
        form = QFormLayout()
        form.addRow("File:", file_row)
        form.addRow("Format:", format_row)
        form.addRow("Dataset name:", self.name_edit)
        form.addRow("", self.skip_bad)

        self.preview_panel = SourcePreview()
        self.preview_panel.mapping_editor.changed.connect(self._mapping_changed)
        self.mapping_editor = self.preview_panel.mapping_editor
        self.raw_model = self.preview_panel.raw_model
        self.mapped_model = self.preview_panel.mapped_model

        self.message = plain_label()
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.progress = QProgressBar()
        self.progress.hide()
        self.buttons = QDialogButtonBox()
        self.import_button = self.buttons.addButton(
            "Import", QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.import_button.setDefault(True)
        self.background_button = self.buttons.addButton(
            "Continue in background", QDialogButtonBox.ButtonRole.ActionRole
        )
        self.background_button.hide()
        self.close_button = self.buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        self.import_button.clicked.connect(self.start_import)
        self.background_button.clicked.connect(self.accept)
        self.close_button.clicked.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.preview_panel, 1)
        layout.addWidget(self.message)
        layout.addWidget(self.progress)
        layout.addWidget(self.buttons)

    # ------------------------------------------------------------------ files
    def choose_files(self) -> None:
        files, _ = QFileDialog.getOpenFileNames(self, "Import data files", "", FILE_FILTER)
        self.add_files(files)

    def choose_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Import a folder")
        if folder:
            self.add_files([folder])

    def add_files(self, files: list[str]) -> None:
        known = {c.path for c in self.choices}
        for path in files:
            path = str(Path(path).resolve())
            if path in known:
                continue
            choice = FileChoice(path, name=self._unique_name(default_name(Path(path))))
            self.choices.append(choice)
            self.file_combo.addItem(Path(path).name, path)
            self.file_combo.setItemData(
                self.file_combo.count() - 1, plain_tip(path), Qt.ItemDataRole.ToolTipRole
            )
        if files:
            self.file_combo.setCurrentIndex(self.file_combo.count() - 1)
        self._update_buttons()

    def remove_current(self) -> None:
        index = self.file_combo.currentIndex()
        if index >= 0:
            del self.choices[index]
            self.file_combo.removeItem(index)
        if not self.choices:
            self._show_choice(None)
        self._update_buttons()

    def current(self) -> FileChoice | None:
        index = self.file_combo.currentIndex()
        return self.choices[index] if 0 <= index < len(self.choices) else None

    def _unique_name(self, name: str) -> str:
        taken = {d.name for d in self.document.datasets()} | {c.name for c in self.choices}
        candidate, n = name, 2
        while candidate in taken:
            candidate, n = f"{name}-{n}", n + 1
        return candidate

    def _file_changed(self, _index: int) -> None:
        self._show_choice(self.current())

    def _show_choice(self, choice: FileChoice | None) -> None:
        self.name_edit.setText(choice.name if choice else "")
        self.format_combo.blockSignals(True)
        self.format_combo.setCurrentIndex(
            max(0, self.format_combo.findData(choice.format)) if choice else 0
        )
        self.format_combo.blockSignals(False)
        if choice is None:
            self.preview_panel.clear()
            self._say("Choose a file or folder to import (or drop one on the main window).")
        elif choice.preview is None and choice.error is None:
            self._load_preview(choice)
        else:
            self._apply_preview(choice)

    def _format_changed(self, _index: int) -> None:
        choice = self.current()
        if choice is not None:
            choice.format = self.format_combo.currentData()
            choice.params = {}
            choice.preview, choice.error, choice.roles = None, None, None
            self._load_preview(choice)

    def importer_name(self, choice: FileChoice) -> str | None:
        """The importer that reads ``choice``: the chosen format, else the detected one."""
        if choice.format is not None:
            return choice.format
        return choice.preview.importer if choice.preview is not None else None

    def edit_options(self) -> None:
        """Ask for the importer's options (a form from its parameters); re-read the preview."""
        from vendiscope.gui.widgets.param_form import ParamDialog

        choice = self.current()
        name = self.importer_name(choice) if choice is not None else None
        if choice is None or name is None:
            self._say("Choose a file (and let its preview load) first.", error=True)
            return
        specs = self.registry.describe("importer", name)
        dialog = ParamDialog(
            f"Options of the {name} importer", f"How {Path(choice.path).name} is read.", specs,
            self, ok_text="Apply",
        )  # fmt: skip
        for key, value in choice.params.items():
            dialog.form.set_value(key, value)
        if dialog.exec() == ParamDialog.DialogCode.Accepted:
            self.apply_options(dialog.values())

    def apply_options(self, params: dict[str, Any]) -> None:
        """Read the current file again with these importer options."""
        choice = self.current()
        if choice is None:
            return
        choice.params = dict(params)
        choice.preview, choice.error, choice.roles = None, None, None
        self._load_preview(choice)

    def _name_edited(self, text: str) -> None:
        choice = self.current()
        if choice is not None:
            choice.name = text.strip()
        self._update_buttons()

    # ------------------------------------------------------------------ preview
    def _load_preview(self, choice: FileChoice) -> None:
        self._say(f"Reading the first rows of {Path(choice.path).name}…")
        self.loader.run(read_preview, choice.path, choice.format, dict(choice.params))

    def _preview_loaded(self, result: tuple[str, str | None, Preview | None, str | None]) -> None:
        path, fmt, found, error = result
        for choice in self.choices:
            if choice.path == path and choice.format == fmt:
                choice.preview, choice.error = found, error
                if choice is self.current():
                    self._apply_preview(choice)
        self._update_buttons()

    def _preview_failed(self, error: BaseException, _details: str) -> None:
        self._say(describe_error(error), error=True)  # not expected: read_preview catches

    def _apply_preview(self, choice: FileChoice) -> None:
        if choice.error is not None or choice.preview is None:
            self.preview_panel.clear()
            self._say(choice.error or "", error=True)
            return
        self.preview_panel.show_preview(choice.preview, choice.roles)
        self._mapping_changed()

    def _mapping_changed(self) -> None:
        choice = self.current()
        if choice is None or choice.preview is None:
            return
        choice.roles, message, error = self.preview_panel.check(Path(choice.path).name)
        self._say(message, error=error)
        self._update_buttons()

    # ------------------------------------------------------------------ import
    def problems(self) -> list[str]:
        """Why Import is not possible yet (empty when it is)."""
        found = []
        names = [c.name for c in self.choices]
        existing = {d.name for d in self.document.datasets()}
        if not self.document.is_open:
            found.append("Open or create a project first.")
        if not self.choices:
            found.append("Choose a file to import.")
        for choice in self.choices:
            label = Path(choice.path).name
            if choice.error:
                found.append(f"{label}: {choice.error}")
            elif choice.preview is None:
                found.append(f"{label}: still reading the preview")
            if not choice.name:
                found.append(f"{label}: the dataset needs a name")
            elif choice.name in existing or names.count(choice.name) > 1:
                found.append(f"{label}: a dataset named '{choice.name}' already exists")
            if choice.preview is not None and choice.roles is None:
                found.append(f"{label}: the field mapping is not valid")
        return found

    def start_import(self) -> None:
        problems = self.problems()
        if problems:
            self._say(problems[0], error=True)
            return
        location = self.document.location
        self.jobs = []
        for choice in self.choices:
            mapping = {"roles": choice.roles, "detected": detected_layout(choice)}
            job = self.submit(
                f"Import {Path(choice.path).name}",
                tasks.import_file,
                location,
                choice.path,
                name=choice.name,
                format=choice.format,
                mapping=mapping,
                importer_params=dict(choice.params) or None,
                skip_bad=self.skip_bad.isChecked(),
                kind="import",
                dataset=choice.name,
                in_thread=True,
            )
            job.setProperty("import_path", choice.path)
            job.changed.connect(self._job_changed)
            job.finished.connect(self._job_finished)
            self.jobs.append(job)
        self._set_busy(True)

    def _job_changed(self) -> None:
        running = next((j for j in self.jobs if not j.state.finished), None)
        if running is None:
            return
        fraction = running.status.fraction
        if fraction is None:
            self.progress.setRange(0, 0)
        else:
            self.progress.setRange(0, 1000)
            self.progress.setValue(round(fraction * 1000))
        self._say(f"{running.title}…")

    def _job_finished(self, job: Job) -> None:
        if job.state == JobState.DONE:
            path = job.property("import_path")
            self.choices = [c for c in self.choices if c.path != path]
            index = self.file_combo.findData(path)
            if index >= 0:
                self.file_combo.removeItem(index)
        elif job.state == JobState.FAILED and job.error is not None:
            job.setProperty("error_shown", True)
            self._say(describe_error(job.error), error=True)
        if any(not j.state.finished for j in self.jobs):
            return
        self._set_busy(False)
        failed = [j for j in self.jobs if j.state != JobState.DONE]
        if not failed and self.isVisible():
            self.accept()

    def _set_busy(self, busy: bool) -> None:
        for widget in (
            self.file_combo,
            self.format_combo,
            self.options_button,
            self.name_edit,
            self.mapping_editor,
            self.skip_bad,
            self.import_button,
            self.remove_button,
        ):
            widget.setEnabled(not busy)
        self.progress.setVisible(busy)
        self.background_button.setVisible(busy)
        self.close_button.setText("Cancel import" if busy else "Close")
        if busy:
            self.close_button.clicked.disconnect()
            self.close_button.clicked.connect(self._cancel_jobs)
        else:
            self.close_button.clicked.disconnect()
            self.close_button.clicked.connect(self.reject)
            self._update_buttons()

    def _cancel_jobs(self) -> None:
        for job in self.jobs:
            job.cancel()

    def _update_buttons(self) -> None:
        self.import_button.setEnabled(not self.problems() and not self.jobs_running())
        self.remove_button.setEnabled(bool(self.choices))

    def jobs_running(self) -> bool:
        return any(not j.state.finished for j in self.jobs)

    def _say(self, text: str, *, error: bool = False) -> None:
        self.message.setText(text)
        self.message.setPalette(self.palette())
        if error:
            error_palette(self.message)
