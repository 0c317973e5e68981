"""File menu commands: new, open, demo, recent, import, export (and dropped files)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QDialog, QFileDialog, QMessageBox

from vendiscope.core.base.errors import VendiscopeError
from vendiscope.gui.dialogs.error_dialog import ErrorDialog
from vendiscope.gui.dialogs.export_dialog import ExportDialog
from vendiscope.gui.dialogs.import_dialog import ImportDialog
from vendiscope.gui.jobs import tasks
from vendiscope.gui.jobs.manager import Job, JobState
from vendiscope.gui.widgets.text import ask

if TYPE_CHECKING:
    from vendiscope.gui.jobs.manager import JobManager
    from vendiscope.gui.windows.document import ProjectDocument
    from vendiscope.gui.windows.settings import AppSettings

PROJECT_FILTER = "Vendiscope projects (*.vscope);;All files (*)"
SUFFIX = ".vscope"


class FileWindow(Protocol):
    """What the file commands use of their window (the main window is one).

    The window is also the Qt parent of the commands and of their dialogs (a ``QWidget``).
    Typed by this protocol, this module needs nothing of ``main_window``, which imports it.
    """

    document: ProjectDocument
    settings: AppSettings
    jobs: JobManager

    def current_dataset(self) -> str | None: ...

    def show_story(self, dataset: str) -> None: ...


class FileCommands(QObject):
    """Opens and creates projects, and starts imports and exports, for one window."""

    def __init__(self, window: FileWindow, demo_path: Path | None = None) -> None:
        super().__init__(window)
        self.window = window
        self.demo_path = demo_path
        self.import_dialog: ImportDialog | None = None

    # ------------------------------------------------------------------ projects
    def new_project(self) -> bool:
        path, _ = QFileDialog.getSaveFileName(
            self.window, "New project", str(Path.home() / f"audit{SUFFIX}"), PROJECT_FILTER
        )
        if not path:
            return False
        if not path.endswith(SUFFIX):
            path += SUFFIX
        if Path(path).exists():
            # the file dialog already asked whether to replace it: a project is never replaced
            ErrorDialog(
                "Cannot create the project",
                f"{path} already exists; open it instead, or choose another name.",
                parent=self.window,
            ).exec()
            return False
        return self.open_location(path, create=True)

    def open_project(self) -> bool:
        path, _ = QFileDialog.getOpenFileName(
            self.window, "Open project", str(Path.home()), PROJECT_FILTER
        )
        return self.open_location(path) if path else False

    def open_location(self, location: str, *, create: bool = False) -> bool:
        """Open (or create) the project at ``location``; a failure is shown, never raised."""
        try:
            self.window.document.open(location, create=create)
        except VendiscopeError as exc:
            ErrorDialog("Cannot open the project", exc, parent=self.window).exec()
            return False
        self.window.settings.add_recent_project(self.window.document.location or location)
        return True

    def open_demo(self) -> Job | None:
        """Open the demo project, building it first (as a job) if it does not exist yet.

        The demo opens on its story: records, dashboard, map and selection workbench.
        """
        from vendiscope.core.io.demo import default_demo_project

        path = self.demo_path or default_demo_project()
        if path.exists():
            self._open_story(str(path))
            return None
        job = self.window.jobs.submit(
            "Build the demo project", tasks.build_demo, str(path), kind="demo", in_thread=True
        )
        job.finished.connect(self._demo_built)
        return job

    def _demo_built(self, job: Job) -> None:
        if job.state == JobState.DONE:
            self._open_story(job.result.data["location"])

    def _open_story(self, location: str) -> None:
        from vendiscope.core.io.demo import DEMO_DATASET

        if self.open_location(location) and self.window.document.dataset(DEMO_DATASET):
            self.window.show_story(DEMO_DATASET)

    # ------------------------------------------------------------------ import / export
    def import_data(self, files: list[str] | None = None) -> ImportDialog | None:
        """Open the import dialog (with ``files`` preselected); needs an open project."""
        if not self.window.document.is_open:
            answer = ask(
                self.window,
                "Import data",
                "Data is imported into a project. Create a new project for it now?",
                QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            )
            if answer != QMessageBox.StandardButton.Yes or not self.new_project():
                return None
        if files is None:
            from vendiscope.gui.dialogs.import_dialog import FILE_FILTER

            files, _ = QFileDialog.getOpenFileNames(
                self.window, "Import data files", str(Path.home()), FILE_FILTER
            )
            if not files:
                return None
        if self.import_dialog is not None and self.import_dialog.isVisible():
            self.import_dialog.add_files(files)
            self.import_dialog.raise_()
            return self.import_dialog
        self.import_dialog = ImportDialog(
            self.window.document, self.window.jobs.submit, files, parent=self.window
        )
        self.import_dialog.open()
        return self.import_dialog

    def export_data(self, dataset: str | None = None, subset: str | None = None) -> Job | None:
        """The export dialog (``dataset`` and ``subset`` preselected), then the export job."""
        window = self.window
        if not window.document.is_open:
            return None
        dialog = ExportDialog(
            window.document, dataset or window.current_dataset(), window, subset=subset
        )
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return None
        options = dialog.options()
        dataset = options.pop("dataset")
        destination = options.pop("destination")
        return window.jobs.submit(
            f"Export {dataset} to {Path(destination).name}",
            tasks.export,
            window.document.location,
            dataset,
            destination,
            kind="export",
            dataset=dataset,
            in_thread=True,
            **options,
        )

    def dropped(self, paths: list[str]) -> None:
        """Files dropped on the window: a project opens, data files go to the import dialog."""
        projects = [p for p in paths if p.endswith(SUFFIX)]
        if projects:
            self.open_location(projects[0])
            return
        self.import_data(paths)
