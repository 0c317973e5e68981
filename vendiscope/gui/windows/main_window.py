"""The main window: menus and toolbar, the project panel, the central views, jobs, status bar."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QSize, Qt, QTimer
from PySide6.QtGui import (
    QCloseEvent,
    QDragEnterEvent,
    QDropEvent,
    QGuiApplication,
)
from PySide6.QtWidgets import (
    QDockWidget,
    QMainWindow,
    QMessageBox,
    QStackedWidget,
    QWidget,
)

# Importing the view modules registers their view types.
from vendiscope.gui.dashboard import page as _dashboard  # noqa: F401
from vendiscope.gui.dialogs.error_dialog import ErrorDialog
from vendiscope.gui.jobs.manager import Job, JobManager, JobState
from vendiscope.gui.jobs.panel import JobsPanel, describe_progress
from vendiscope.gui.jobs.pipeline import PipelineActions
from vendiscope.gui.jobs.process import JOBS_IN_CHILD_PROCESS
from vendiscope.gui.map import view as _map_view  # noqa: F401
from vendiscope.gui.project.nodes import Node
from vendiscope.gui.project.panel import ProjectPanel
from vendiscope.gui.records import view as _records_view  # noqa: F401
from vendiscope.gui.records.link import RecordLink
from vendiscope.gui.selection import workbench as _selection_workbench  # noqa: F401
from vendiscope.gui.view_host.plugin_views import PluginViews
from vendiscope.gui.widgets.icons import app_icon
from vendiscope.gui.widgets.text import ask, plain_label, plain_tip
from vendiscope.gui.windows.document import ProjectDocument
from vendiscope.gui.windows.file_commands import FileCommands
from vendiscope.gui.windows.settings import SETTINGS_VERSION, AppSettings
from vendiscope.gui.windows.start_page import NoViewsPage, StartPage
from vendiscope.gui.windows.store_guard import StoreGuard
from vendiscope.gui.windows.tabs import ViewTabs
from vendiscope.gui.windows.window_actions import WindowActions

if TYPE_CHECKING:
    from vendiscope.core.plugin_host.registry import PluginRegistry

DEFAULT_SIZE = QSize(1280, 760)
CLOSE_WAIT_MS = 120_000


class MainWindow(QMainWindow):
    """One window over one (or no) open project.

    It serves its views as a :class:`~vendiscope.gui.services.WindowServices`.
    """

    def __init__(
        self,
        settings: AppSettings | None = None,
        *,
        demo_path: Path | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Vendiscope")
        self.setWindowIcon(app_icon())
        self.setAcceptDrops(True)
        self.setDockNestingEnabled(True)
        self.settings = settings or AppSettings()
        self.document = ProjectDocument(self)
        self.jobs = JobManager(self, run_in_child_process=JOBS_IN_CHILD_PROCESS)
        self.store_guard = StoreGuard(self.document, self)
        self.jobs.gate = self._refuse_when_failed
        self.files = FileCommands(self, demo_path)
        self.record_link = RecordLink(self)
        self.plugin_views = PluginViews(self)

        self.project_panel = ProjectPanel(self.document)
        self.project_dock = self._dock("Project", "projectDock", self.project_panel)
        self.jobs_panel = JobsPanel(self.jobs)
        self.jobs_dock = self._dock("Jobs", "jobsDock", self.jobs_panel)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.project_dock)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.jobs_dock)
        self.splitDockWidget(self.project_dock, self.jobs_dock, Qt.Orientation.Vertical)
        self.resizeDocks([self.project_dock], [300], Qt.Orientation.Horizontal)
        self.resizeDocks([self.project_dock, self.jobs_dock], [460, 220], Qt.Orientation.Vertical)

        self.start_page = StartPage()
        self.tabs = ViewTabs(self.document, self)
        self.empty_tabs = NoViewsPage()
        self.empty_tabs.import_requested.connect(self.files.import_data)
        self.central = QStackedWidget()
        for widget in (self.start_page, self.tabs, self.empty_tabs):
            self.central.addWidget(widget)
        self.setCentralWidget(self.central)

        self.pipeline = PipelineActions(self.document, self.jobs, self.current_dataset, self)
        self.project_panel.import_requested.connect(self.files.import_data)
        self.project_panel.resume_action = self.pipeline.resume_action
        self.actions_ = WindowActions(self)
        self.toolbar = self.actions_.build_toolbar(self)
        self.addToolBar(self.toolbar)
        self.actions_.build_menus(self)
        self.project_label = plain_label()
        self.jobs_label = plain_label()
        self.statusBar().addPermanentWidget(self.jobs_label)
        self.statusBar().addPermanentWidget(self.project_label)
        self._connect()
        self._restore_layout()
        self._project_state_changed()

    def _dock(self, title: str, name: str, widget: QWidget) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(widget)
        dock.setFeatures(
            QDockWidget.DockWidgetFeature.DockWidgetClosable
            | QDockWidget.DockWidgetFeature.DockWidgetMovable
        )
        return dock

    def _connect(self) -> None:
        start = self.start_page
        start.new_requested.connect(self.files.new_project)
        start.open_requested.connect(self.files.open_project)
        start.demo_requested.connect(self.files.open_demo)
        start.recent_requested.connect(self.files.open_location)
        self.document.opened.connect(self._project_opened)
        self.document.closed.connect(self._project_state_changed)
        self.document.closed.connect(self.record_link.forget)
        self.document.changed.connect(self._project_changed)
        self.document.failed.connect(self._project_failed)
        self.project_panel.dataset_selected.connect(lambda _d: self.pipeline.update_enabled())
        self.project_panel.node_activated.connect(self.activate_node)
        self.project_panel.context_actions = self.node_actions
        self.tabs.dataset_changed.connect(self.project_panel.select_dataset)
        self.tabs.currentChanged.connect(lambda _i: self._update_central())
        self.jobs.job_added.connect(self._job_added)
        self.jobs.job_finished.connect(self._job_finished)
        self.jobs_panel.details_requested.connect(self.show_job_error)

    # ------------------------------------------------------------------ project
    def current_dataset(self) -> str | None:
        return self.project_panel.current_dataset() if self.document.is_open else None

    def close_project(self) -> None:
        if self.jobs.active() and not self._confirm_stop_jobs("Close the project"):
            return
        self.document.close()

    def _project_opened(self, location: str) -> None:
        self.jobs.project = location  # each job started now is of this project
        self.jobs_panel.project_opened(location)
        self._project_state_changed()

    def _project_state_changed(self) -> None:
        is_open = self.document.is_open
        location = self.document.location
        read_only = self.document.project.read_only if is_open else None
        shown = f"{Path(location).name}{' (read-only)' if read_only else ''}" if location else ""
        self.setWindowTitle(f"{shown} — Vendiscope" if location else "Vendiscope")
        self.project_label.setText(
            f"{location} — read-only: {read_only}" if read_only else location or "No project open"
        )
        self.project_label.setToolTip(plain_tip(location))
        self.start_page.set_recent(self.settings.recent_projects())
        self.actions_.update_enabled(is_open)
        self.pipeline.update_enabled()
        self._update_central()

    def _project_failed(self, why: str) -> None:
        self.project_label.setText(f"{self.document.location} — not written (the file failed)")
        self.project_label.setToolTip(plain_tip(why))
        self.pipeline.update_enabled()
        self._update_central()

    def _refuse_when_failed(self, job: Job) -> BaseException | None:
        """The job manager's gate: no job touches a project whose file failed."""
        if job.kind == "demo" or self.document.failure is None:
            return None
        from vendiscope.core.base.errors import ProjectError

        job.setProperty("refused", True)
        return ProjectError(self.document.failure)

    def _project_changed(self) -> None:
        names = {d.name for d in self.document.datasets()}
        for view in self.tabs.views():
            if view.property("dataset") not in names:
                self.tabs.close_dataset(view.property("dataset"))
        self.pipeline.update_enabled()
        self._update_central()
        count = len(names)
        if self.document.failure is None:
            self.statusBar().showMessage(
                f"{count} dataset{'s' if count != 1 else ''}" if self.document.is_open else "", 4000
            )

    def _update_central(self) -> None:
        if not self.document.is_open:
            self.central.setCurrentWidget(self.start_page)
        elif self.tabs.count():
            self.central.setCurrentWidget(self.tabs)
        else:
            if self.document.failure is not None:
                self.empty_tabs.show_failure(self.document.failure)
            else:
                self.empty_tabs.update_for(self.document.location, len(self.document.datasets()))
            self.central.setCurrentWidget(self.empty_tabs)

    # ------------------------------------------------------------------ views
    def open_view(self, kind: str, dataset: str | None = None) -> QWidget | None:
        dataset = dataset or self.current_dataset()
        if dataset is None:
            self.statusBar().showMessage("Select a dataset first", 4000)
            return None
        widget = self.tabs.open_view(kind, dataset)
        self._update_central()
        return widget

    def run_action(self, name: str, dataset: str) -> Job | None:
        """Run a pipeline step on ``dataset`` (the dashboard's compute buttons call this)."""
        return self.pipeline.run(name, dataset)

    def plugin_registry(self) -> PluginRegistry:
        """The plugin registry the window's views and workbench use."""
        return self.plugin_views.registry

    def show_status(self, message: str, timeout_ms: int = 0) -> None:
        """Show ``message`` in the status bar (for ``timeout_ms``; 0: until replaced)."""
        self.statusBar().showMessage(message, timeout_ms)

    def show_story(self, dataset: str) -> None:
        """Open the views that tell a dataset's story (the demo at first launch): records,
        the dashboard, the map and the selection workbench, the dashboard in front."""
        for kind in ("records", "dashboard", "map", "selection"):
            self.open_view(kind, dataset)
        dashboard = self.tabs.find_view("dashboard", dataset)
        if dashboard is not None:
            self.tabs.setCurrentWidget(dashboard)

    def find_records(self) -> None:
        view = self.open_view("records")
        if view is not None:
            view.focus_filter()

    def activate_node(self, node: Node) -> None:
        kind = getattr(node.payload, "kind", None)
        if node.kind == "dataset" and node.dataset:
            self.open_view("records", node.dataset)
        elif node.kind == "vector_set" and kind == "projection" and node.dataset:
            self.open_view("map", node.dataset)
        elif node.kind == "run" and kind == "selection" and node.dataset:
            view = self.open_view("selection", node.dataset)
            if view is not None:
                view.focus_run(node.payload.id)
        elif node.kind == "run":
            self.show_run_details(node)
        elif node.kind == "subset" and node.dataset:
            self.show_subset_on_map(node.dataset, node.payload.name)

    def show_run_details(self, node: Node) -> None:
        from vendiscope.gui.project.run_details import RunDetailsDialog

        RunDetailsDialog(node.payload, self).exec()

    def show_subset_on_map(self, dataset: str, subset: str) -> None:
        view = self.open_view("map", dataset)
        if view is not None:
            view.set_colour("subset", subset)

    def node_actions(self, node: Node) -> list:
        from PySide6.QtGui import QAction

        if node.kind == "dataset":
            steps = list(self.pipeline.actions.values())
            a = self.actions_
            views = [a.records, a.dashboard, a.map_view, a.selection_view]
            signals = [a.compute_signals, a.clean_up]
            return [*views, None, *steps, *signals, None, a.export]
        if node.kind == "run":
            details = QAction("Show run details…", self)
            details.triggered.connect(lambda: self.show_run_details(node))
            if getattr(node.payload, "kind", None) == "selection":
                workbench = QAction("Open in the selection workbench", self)
                workbench.triggered.connect(lambda: self.activate_node(node))
                return [workbench, details]
            return [details]
        if node.kind == "subset" and node.dataset:
            on_map = QAction("Show on the map", self)
            on_map.triggered.connect(lambda: self.activate_node(node))
            export = QAction("Export…", self)
            name = node.payload.name
            export.triggered.connect(lambda: self.files.export_data(node.dataset, name))
            return [on_map, export]
        return []

    # ------------------------------------------------------------------ jobs
    def _job_added(self, job: Job) -> None:
        self.jobs_dock.show()
        job.changed.connect(self._update_jobs_label)
        self._update_jobs_label()

    def _update_jobs_label(self) -> None:
        active = self.jobs.active()
        running = self.jobs.running()
        if not active:
            self.jobs_label.setText("")
        elif running is not None:
            fraction = running.status.fraction
            percent = f" {fraction:.0%}" if fraction is not None else ""
            more = f" (+{len(active) - 1} queued)" if len(active) > 1 else ""
            self.jobs_label.setText(f"{running.title}{percent}{more}")
            self.jobs_label.setToolTip(plain_tip(describe_progress(running)))

    def _job_finished(self, job: Job) -> None:
        self._update_jobs_label()
        # A failed store is reported for the job that met it, before the views re-read.
        store_failed = (
            job.state == JobState.FAILED
            and not job.property("refused")
            and self.store_guard.report(job.error or job.error_details, f"running “{job.title}”")
        )
        if self.document.is_open:
            self.document.refresh()
        if job.state == JobState.DONE and job.result is not None:
            self.statusBar().showMessage(getattr(job.result, "message", "Done"), 10_000)
        elif job.state == JobState.CANCELLED:
            self.statusBar().showMessage(f"{job.title}: cancelled", 10_000)
        elif store_failed:
            job.setProperty("error_shown", True)  # the store dialog said it all
        elif job.state == JobState.FAILED:
            QTimer.singleShot(0, lambda: self._report_failure(job))

    def _report_failure(self, job: Job) -> None:
        if not job.property("error_shown"):
            job.setProperty("error_shown", True)
            self.show_job_error(job)

    def show_job_error(self, job: Job) -> None:
        if job.error is None:
            return
        dialog = ErrorDialog(f"{job.title} failed", job.error, job.error_details, self)
        dialog.setObjectName("jobErrorDialog")
        dialog.open()

    # ------------------------------------------------------------------ dialogs
    def show_plugins(self) -> None:
        from vendiscope.gui.windows.plugins_window import PluginsWindow

        PluginsWindow(parent=self).exec()

    def show_about(self) -> None:
        from vendiscope.gui.windows.about import AboutDialog

        AboutDialog(self).exec()

    def show_about_qt(self) -> None:
        QMessageBox.aboutQt(self, "About Qt")

    # ------------------------------------------------------------------ window
    def toggle_full_screen(self) -> None:
        self.showNormal() if self.isFullScreen() else self.showFullScreen()

    def reset_layout(self) -> None:
        for dock in (self.project_dock, self.jobs_dock):
            dock.setFloating(False)
            dock.show()
        self.toolbar.show()
        self.resizeDocks([self.project_dock], [300], Qt.Orientation.Horizontal)

    def _restore_layout(self) -> None:
        geometry = self.settings.window_geometry()
        if geometry is None or not self.restoreGeometry(geometry):
            screen = QGuiApplication.primaryScreen()
            size = DEFAULT_SIZE
            if screen is not None:
                available = screen.availableGeometry().size()
                size = size.boundedTo(QSize(available.width() - 40, available.height() - 40))
            self.resize(size)
        state = self.settings.window_state()
        if state is not None:
            self.restoreState(state, SETTINGS_VERSION)

    def save_layout(self) -> None:
        self.settings.save_window(self.saveGeometry(), self.saveState(SETTINGS_VERSION))
        self.settings.sync()

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls() and all(u.isLocalFile() for u in event.mimeData().urls()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        paths = [url.toLocalFile() for url in event.mimeData().urls() if url.isLocalFile()]
        if paths:
            event.acceptProposedAction()
            QTimer.singleShot(0, lambda: self.files.dropped(paths))

    def _confirm_stop_jobs(self, what: str) -> bool:
        """Ask before stopping running jobs; if the user agrees, cancel them and wait."""
        active = self.jobs.active()
        names = "\n".join(f"• {job.title}" for job in active[:5])
        answer = ask(  # job titles quote dataset and file names: plain text
            self,
            what,
            f"{len(active)} job{'s are' if len(active) != 1 else ' is'} still running:\n"
            f"{names}\n\nCancel {'them' if len(active) != 1 else 'it'} and continue? "
            "Finished work is kept; an interrupted embedding resumes next time.",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
        if answer != QMessageBox.StandardButton.Yes:
            return False
        self.statusBar().showMessage("Stopping jobs…")
        self.jobs.cancel_all()
        return self.jobs.wait(CLOSE_WAIT_MS)

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.jobs.active() and not self._confirm_stop_jobs("Quit Vendiscope"):
            event.ignore()
            return
        self.save_layout()
        self.document.close()
        event.accept()
