"""The window's actions (with standard shortcuts), its menu bar and its toolbar.

Actions are created once and shared: the menu, the toolbar and context menus show the same
QAction, so a disabled step is disabled everywhere.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, QSize, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDockWidget, QMenu, QMenuBar, QToolBar, QWidget

from vendiscope.gui.study import monitor as _study_monitor  # noqa: F401 - its view
from vendiscope.gui.synthesis import monitor as _synthesis_monitor  # noqa: F401 - its view
from vendiscope.gui.widgets.icons import icon
from vendiscope.gui.windows.tabs import VIEW_TYPES

if TYPE_CHECKING:
    from vendiscope.gui.jobs.manager import JobManager
    from vendiscope.gui.jobs.pipeline import PipelineActions
    from vendiscope.gui.view_host.plugin_views import PluginViews
    from vendiscope.gui.windows.document import ProjectDocument
    from vendiscope.gui.windows.file_commands import FileCommands
    from vendiscope.gui.windows.settings import AppSettings

StandardKey = QKeySequence.StandardKey


class ActionsWindow(Protocol):
    """What the actions, menus and toolbar use of their window (the main window is one).

    The window is also the Qt parent of the actions (a ``QMainWindow``). Typed by this
    protocol, this module needs nothing of ``main_window``, which imports it.
    """

    files: FileCommands
    document: ProjectDocument
    jobs: JobManager
    settings: AppSettings
    pipeline: PipelineActions
    plugin_views: PluginViews
    project_dock: QDockWidget
    jobs_dock: QDockWidget
    toolbar: QToolBar

    def menuBar(self) -> QMenuBar: ...

    def close(self) -> bool: ...

    def close_project(self) -> None: ...

    def open_view(self, kind: str, dataset: str | None = None) -> QWidget | None: ...

    def find_records(self) -> None: ...

    def toggle_full_screen(self) -> None: ...

    def reset_layout(self) -> None: ...

    def show_plugins(self) -> None: ...

    def show_about(self) -> None: ...

    def show_about_qt(self) -> None: ...


def make_action(
    parent: QObject,
    text: str,
    slot: Callable[[], object],
    *,
    shortcut: QKeySequence.StandardKey | str | None = None,
    icon_name: str | None = None,
    tip: str = "",
    icon_text: str | None = None,
) -> QAction:
    action = QAction(text, parent)
    if icon_name:
        action.setIcon(icon(icon_name))
    if isinstance(shortcut, QKeySequence.StandardKey):
        action.setShortcuts(shortcut)
    elif shortcut:
        action.setShortcut(QKeySequence(shortcut))
    if tip:
        action.setStatusTip(tip)
        action.setToolTip(tip)
    if icon_text:
        action.setIconText(icon_text)
    action.triggered.connect(lambda _checked=False: slot())
    return action


def _show_user_guide(window: QWidget) -> None:
    """The bundled guide in a window of the app (it needs no browser or desktop launcher)."""
    from vendiscope.gui.windows.user_guide import show_user_guide

    show_user_guide(window)


def _fill_gaps(window: ActionsWindow) -> None:
    """The "Fill gaps…" dialog for the selected dataset, then its job and monitor."""
    from vendiscope.gui.synthesis.launch import fill_gaps

    fill_gaps(window)


def _new_study(window: ActionsWindow) -> None:
    """The "Study…" dialog for the selected dataset (the pool), then its job and monitor."""
    from vendiscope.gui.study.launch import new_study

    new_study(window)


def _compute_signals(window: ActionsWindow) -> None:
    """The "Compute signals…" dialog for the selected dataset, then its job."""
    from vendiscope.gui.signals.launch import compute_signals

    compute_signals(window)


def _clean_up(window: ActionsWindow) -> None:
    """The "Clean up…" checklist for the selected dataset, then the subset it saves."""
    from vendiscope.gui.signals.launch import clean_up

    clean_up(window)


class WindowActions:
    """Every action of the main window, and the menus and toolbar built from them."""

    def __init__(self, window: ActionsWindow) -> None:
        w = window
        files = w.files
        self.new = make_action(
            w,
            "&New project…",
            files.new_project,
            shortcut=StandardKey.New,
            icon_name="new",
            tip="Create an empty project file",
            icon_text="New",
        )
        self.open = make_action(
            w,
            "&Open project…",
            files.open_project,
            shortcut=StandardKey.Open,
            icon_name="open",
            tip="Open a project file (*.vscope)",
            icon_text="Open",
        )
        self.demo = make_action(
            w,
            "Open &demo project",
            files.open_demo,
            icon_name="demo",
            tip="The bundled demo dataset (built on first use)",
        )
        self.import_ = make_action(
            w,
            "&Import data…",
            files.import_data,
            shortcut="Ctrl+I",
            icon_name="import",
            tip="Import JSONL, JSON, CSV, Parquet, Hugging Face folders, .txt folders",
            icon_text="Import",
        )
        self.export = make_action(
            w,
            "&Export…",
            files.export_data,
            shortcut="Ctrl+E",
            icon_name="export",
            tip="Export a dataset or subset with its provenance manifest",
        )
        self.close_project = make_action(
            w, "&Close project", w.close_project, shortcut=StandardKey.Close
        )
        self.quit = make_action(w, "&Quit", w.close, shortcut=StandardKey.Quit)
        self.quit.setMenuRole(QAction.MenuRole.QuitRole)

        self.records = make_action(
            w,
            "&Records",
            lambda: w.open_view("records"),
            shortcut="Ctrl+1",
            icon_name="records",
            tip="Browse the records of the selected dataset",
        )
        self.dashboard = make_action(
            w,
            "&Diversity dashboard",
            lambda: w.open_view("dashboard"),
            shortcut="Ctrl+2",
            icon_name="dashboard",
            tip="G-Vendi, duplicates and sources of the selected dataset",
            icon_text="Diversity",
        )
        self.map_view = make_action(
            w,
            "&Map",
            lambda: w.open_view("map"),
            shortcut="Ctrl+3",
            icon_name="map",
            tip="The 2-D map of the selected dataset: hover, select, colour by cluster or score",
        )
        self.selection_view = make_action(
            w,
            "&Selection workbench",
            lambda: w.open_view("selection"),
            shortcut="Ctrl+4",
            icon_name="select",
            tip="Select a diverse subset under a budget and compare methods with random",
            icon_text="Selection",
        )
        self.find = make_action(
            w,
            "&Find records…",
            w.find_records,
            shortcut=StandardKey.Find,
            icon_name="search",
            tip="Filter the records of the dataset",
        )
        self.refresh = make_action(
            w,
            "Re&fresh",
            w.document.refresh,
            shortcut=StandardKey.Refresh,
            icon_name="refresh",
            tip="Re-read the project",
        )
        self.full_screen = make_action(
            w, "F&ull screen", w.toggle_full_screen, shortcut=StandardKey.FullScreen
        )
        self.reset_layout = make_action(w, "Reset &layout", w.reset_layout)
        self.cancel_jobs = make_action(
            w,
            "&Cancel all jobs",
            w.jobs.cancel_all,
            icon_name="cancel",
            tip="Stop every queued or running job",
        )
        self.plugins = make_action(
            w,
            "&Installed plugins…",
            w.show_plugins,
            icon_name="plugins",
            tip="Plugins, their contributions, and any that failed",
        )
        self.guide = make_action(
            w,
            "&User guide",
            lambda: _show_user_guide(w),
            shortcut=StandardKey.HelpContents,
            tip="Read the user guide and the desktop app's guide in a window",
        )
        self.fill_gaps = make_action(
            w,
            "&Fill gaps…",
            lambda: _fill_gaps(w),
            icon_name="clusters",
            tip="Generate new examples for the sparse clusters, kept only where they add diversity",
        )
        self.study = make_action(
            w,
            "&Study…",
            lambda: _new_study(w),
            icon_name="chart",
            tip="Train a small model on many subsets of the dataset and read which diversity "
            "score predicts how much a subset helps on held-out data",
        )
        self.compute_signals = make_action(
            w,
            "Compute s&ignals…",
            lambda: _compute_signals(w),
            icon_name="score",
            tip="Per-record checks: quality heuristics, personal data, language, near-copies",
        )
        self.clean_up = make_action(
            w,
            "C&lean up…",
            lambda: _clean_up(w),
            icon_name="subset",
            tip="Save the records that no chosen flag raises as a subset (nothing is deleted)",
        )
        self.about = make_action(w, "&About Vendiscope", w.show_about, icon_name="info")
        self.about.setMenuRole(QAction.MenuRole.AboutRole)
        self.about_qt = make_action(w, "About &Qt", w.show_about_qt)
        self.about_qt.setMenuRole(QAction.MenuRole.AboutQtRole)

        self.project_actions = [
            self.import_,
            self.export,
            self.close_project,
            self.records,
            self.dashboard,
            self.map_view,
            self.selection_view,
            self.fill_gaps,
            self.study,
            self.compute_signals,
            self.clean_up,
            self.find,
            self.refresh,
        ]

    # ------------------------------------------------------------------ menus
    def build_menus(self, window: ActionsWindow) -> None:
        bar = window.menuBar()
        file_menu = bar.addMenu("&File")
        file_menu.addActions([self.new, self.open, self.demo])
        self.recent_menu = file_menu.addMenu("Open &recent")
        self.recent_menu.aboutToShow.connect(lambda: self._fill_recent(window))
        file_menu.addSeparator()
        file_menu.addActions([self.import_, self.export])
        file_menu.addSeparator()
        file_menu.addAction(self.close_project)
        file_menu.addSeparator()
        file_menu.addAction(self.quit)

        view = bar.addMenu("&View")
        view.addAction(window.project_dock.toggleViewAction())
        view.addAction(window.jobs_dock.toggleViewAction())
        view.addAction(window.toolbar.toggleViewAction())
        view.addSeparator()
        view.addActions([self.records, self.dashboard, self.map_view, self.selection_view])
        for kind, view_type in VIEW_TYPES.items():  # views registered by later features
            if kind not in ("records", "dashboard", "map", "selection"):
                view.addAction(
                    make_action(
                        window,
                        view_type.title,
                        lambda k=kind: window.open_view(k),
                        icon_name=view_type.icon or None,
                        tip=view_type.description,
                    )
                )
        view.addAction(self.find)
        view.addSeparator()
        view.addActions([self.refresh, self.full_screen, self.reset_layout])

        self.views_menu = bar.addMenu("Vie&ws")
        self.views_menu.setObjectName("viewsMenu")
        self.views_menu.setToolTipsVisible(True)
        self.views_menu.aboutToShow.connect(lambda: window.plugin_views.fill_menu(self.views_menu))
        self.views_menu.addAction("Select a dataset to show a view").setEnabled(False)

        jobs = bar.addMenu("&Jobs")
        jobs.addActions(list(window.pipeline.actions.values()))
        jobs.addActions([self.compute_signals, self.clean_up])
        jobs.addAction(self.fill_gaps)
        jobs.addAction(self.study)
        jobs.addSeparator()
        jobs.addAction(self.cancel_jobs)

        plugins = bar.addMenu("&Plugins")
        plugins.addAction(self.plugins)

        help_menu = bar.addMenu("&Help")
        help_menu.addActions([self.guide, self.about, self.about_qt])

    def _fill_recent(self, window: ActionsWindow) -> None:
        menu: QMenu = self.recent_menu
        menu.clear()
        recent = window.settings.recent_projects()
        for number, location in enumerate(recent, start=1):
            prefix = f"&{number} " if number < 10 else ""
            action = menu.addAction(f"{prefix}{location}")
            action.triggered.connect(lambda _c=False, loc=location: window.files.open_location(loc))
        if not recent:
            menu.addAction("No recent projects").setEnabled(False)
        menu.addSeparator()
        clear = menu.addAction("Clear the list")
        clear.setEnabled(bool(recent))
        clear.triggered.connect(window.settings.clear_recent_projects)

    # ------------------------------------------------------------------ toolbar
    def build_toolbar(self, window: ActionsWindow) -> QToolBar:
        toolbar = QToolBar("Toolbar", window)
        toolbar.setObjectName("mainToolbar")
        toolbar.setIconSize(QSize(20, 20))
        toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        toolbar.setMovable(False)
        toolbar.addActions([self.new, self.open, self.import_])
        toolbar.addSeparator()
        toolbar.addActions([self.records, self.dashboard, self.map_view, self.selection_view])
        toolbar.addSeparator()
        steps = window.pipeline.actions
        for name, short in (
            ("embed", "Embed"),
            ("featurize", "Gradients"),
            ("score-gvendi", "G-Vendi"),
            ("near-duplicates", "Near-dups"),
        ):
            steps[name].setIconText(short)
            toolbar.addAction(steps[name])
        return toolbar

    def update_enabled(self, project_open: bool) -> None:
        for action in self.project_actions:
            action.setEnabled(project_open)
