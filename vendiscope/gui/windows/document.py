"""The project open in the window: one reader connection on the GUI thread, change signals.

Views take the :class:`ProjectDocument` in their constructor and listen to ``changed``
(napari style): when a job finishes, the window calls :meth:`refresh` and every view
re-reads what it shows. Jobs never use this object's connection; they open their own
(:mod:`vendiscope.gui.jobs.tasks`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from vendiscope.core.store.models import DatasetInfo

if TYPE_CHECKING:
    from vendiscope.core.store.health import StoreFailure
    from vendiscope.core.store.project import Project


class ProjectDocument(QObject):
    """The currently open project, or none."""

    opened = Signal(str)
    closed = Signal()
    changed = Signal()
    failed = Signal(str)  # why nothing more is written to this project

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._project: Project | None = None
        self.failure: str | None = None

    @property
    def is_open(self) -> bool:
        return self._project is not None

    @property
    def project(self) -> Project:
        if self._project is None:
            raise RuntimeError("no project is open")
        return self._project

    @property
    def location(self) -> str | None:
        return self._project.location if self._project is not None else None

    def open(self, location: str, *, create: bool = False) -> None:
        """Open (or create) a project; raises ProjectError with a readable message."""
        from vendiscope.core.store.project import Project  # SQLAlchemy loads here, not at start-up

        project = Project.create(location) if create else Project.open(location)
        self.close()
        self._project = project
        self.failure = None
        self.opened.emit(project.location)
        self.changed.emit()

    def close(self) -> None:
        if self._project is None:
            return
        project, self._project = self._project, None
        self.closed.emit()
        project.close()

    def mark_failed(self, failure: StoreFailure, operation: str) -> None:
        """The file failed in a way that writing more could make worse: write no more."""
        if self.failure is None:
            self.failure = (
                f"Vendiscope stopped writing to {self.location} after it failed while "
                f"{operation} ({failure.message}). Close the project and check it with "
                f"`vendiscope doctor {self.location}`."
            )
            self.failed.emit(self.failure)

    @property
    def writable(self) -> bool:
        return self._project is not None and self.failure is None

    def refresh(self) -> None:
        """Tell every view to re-read the project (after a job changed it)."""
        if self._project is not None:
            self.changed.emit()

    def datasets(self) -> list[DatasetInfo]:
        """The open project's datasets; none when there is no project or its file failed."""
        if self._project is None:
            return []
        try:
            return self._project.datasets()
        except Exception as error:
            from vendiscope.gui.windows import store_guard

            if not store_guard.report(error, "reading the project"):
                raise
            return []

    def dataset(self, name: str) -> DatasetInfo | None:
        return next((d for d in self.datasets() if d.name == name), None)
