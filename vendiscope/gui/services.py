"""What a view or a launcher may ask of the window it belongs to.

Views (the dashboard, the map, the selection workbench, the run monitors) and the job
launchers receive a :class:`WindowServices` instead of the main window itself, and call its
members directly. A view made without a window (a test, a standalone widget) receives None
and does without. :class:`~vendiscope.gui.windows.main_window.MainWindow` implements it;
``tests/gui/test_window_services.py`` checks that it does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from vendiscope.core.plugin_host.registry import PluginRegistry
    from vendiscope.gui.jobs.manager import Job, JobManager
    from vendiscope.gui.records.link import RecordLink
    from vendiscope.gui.windows.document import ProjectDocument
    from vendiscope.gui.windows.file_commands import FileCommands


@runtime_checkable
class WindowServices(Protocol):
    """The window's services to its views and job launchers."""

    document: ProjectDocument
    """The open project (or none)."""
    jobs: JobManager
    """The window's job queue: views submit their jobs to it and find the live ones."""
    files: FileCommands
    """Import and export, with their dialogs."""
    record_link: RecordLink
    """Tells every view which record was selected in one of them."""

    def current_dataset(self) -> str | None:
        """The dataset selected in the project panel, if a project is open."""
        ...

    def open_view(self, kind: str, dataset: str | None = None) -> QWidget | None:
        """Open (or bring forward) the ``kind`` view of ``dataset`` (default: the current)."""
        ...

    def run_action(self, name: str, dataset: str) -> Job | None:
        """Ask for pipeline step ``name`` on ``dataset`` (its options dialog, then the job)."""
        ...

    def plugin_registry(self) -> PluginRegistry:
        """The plugin registry the window's views use."""
        ...

    def show_status(self, message: str, timeout_ms: int = 0) -> None:
        """Show ``message`` in the status bar (for ``timeout_ms``; 0: until replaced)."""
        ...
