"""Views from plugins: the Views menu, and a tab per chosen view that draws its chart.

Every view plugin (``registry.contributions("view")``) is listed in the Views menu. Choosing
one asks for its parameters (a form from its ParamSpec) when it has any, builds its chart
description on a worker thread (:func:`vendiscope.gui.tasks.build_view`) and shows it through
the one :class:`~vendiscope.gui.chart_renderer.ChartRenderer`. A view that fails — a missing
analysis, a bug in a plugin, a chart that breaks the schema — shows its message in the tab
(with the traceback one click away), never takes the window down.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from vendiscope.core.errors import VendiscopeError
from vendiscope.gui import tasks
from vendiscope.gui.background import Loader
from vendiscope.gui.error_dialog import ErrorDialog, describe_error
from vendiscope.gui.icons import icon
from vendiscope.gui.param_form import ParamDialog
from vendiscope.gui.style import error_palette

COMMAND_STEPS = {
    "map": "map",
    "clusters": "clusters",
    "near-dups": "near-duplicates",
    "embed": "embed",
    "gradients": "featurize",
    "score": "score-gvendi",
}
"""What a missing analysis needs, from the command a NotComputed error names."""


class ChartTab(QWidget):
    """The chart of one view plugin on one dataset; rebuilds on demand and when data change."""

    def __init__(
        self,
        controller: PluginViews,
        name: str,
        dataset: str,
        title: str,
        params: dict[str, Any] | None = None,
        target: str | None = None,
    ) -> None:
        super().__init__()
        self.controller = controller
        self.name = name
        self.dataset = dataset
        self.view_title = title
        self.params = dict(params or {})
        self.target = target
        self.error: BaseException | None = None
        self.error_details = ""
        self.chart: dict[str, Any] | None = None
        self.builds = 0

        heading = QLabel(title)
        heading.setObjectName("pageTitle")
        self.subtitle = QLabel()
        self.subtitle.setObjectName("hint")
        self.subtitle.setWordWrap(True)
        self.params_button = QPushButton(icon("params"), "Parameters…")
        self.params_button.clicked.connect(self.edit_parameters)
        self.params_button.setVisible(controller.asks(name, dataset))
        refresh = QPushButton(icon("refresh"), "Refresh")
        refresh.clicked.connect(self.build)
        self.save_button = QPushButton(icon("save"), "Save image…")
        self.save_button.clicked.connect(self.save_image)
        head = QHBoxLayout()
        titles = QVBoxLayout()
        titles.addWidget(heading)
        titles.addWidget(self.subtitle)
        head.addLayout(titles, 1)
        for button in (self.params_button, refresh, self.save_button):
            head.addWidget(button, 0, Qt.AlignmentFlag.AlignTop)

        from vendiscope.gui.chart_renderer import ChartRenderer  # pyqtgraph: not at start-up

        self.renderer = ChartRenderer()
        self.renderer.point_activated.connect(self._point_activated)
        self.loading = QLabel("Building the chart…")
        self.loading.setObjectName("hint")
        self.loading.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.error_page = self._error_page()
        self.pages = QStackedWidget()
        for page in (self.loading, self.renderer, self.error_page):
            self.pages.addWidget(page)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 8, 12, 8)
        layout.addLayout(head)
        layout.addWidget(self.pages, 1)
        self.loader = Loader(self)
        self.loader.loaded.connect(self._loaded)
        self.loader.failed.connect(self._failed)
        controller.window.document.changed.connect(self.build)

    def _error_page(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        layout.addStretch(1)
        self.error_title = QLabel("This view could not be drawn")
        self.error_title.setObjectName("sectionTitle")
        self.error_title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.error_label = QLabel()
        self.error_label.setObjectName("viewError")
        self.error_label.setWordWrap(True)
        self.error_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.error_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        error_palette(self.error_label)
        self.fix_button = QPushButton()
        self.fix_button.clicked.connect(self._fix)
        details = QPushButton("Details…")
        details.clicked.connect(self.show_details)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.fix_button)
        buttons.addWidget(details)
        buttons.addStretch(1)
        layout.addWidget(self.error_title)
        layout.addWidget(self.error_label)
        layout.addLayout(buttons)
        layout.addStretch(2)
        return page

    # ------------------------------------------------------------------ building
    def build(self) -> None:
        window = self.controller.window
        if not window.document.is_open or window.document.dataset(self.dataset) is None:
            return
        self.builds += 1
        self._describe()
        if self.chart is None:
            self.pages.setCurrentWidget(self.loading)
        self.loader.run(
            tasks.build_view, window.document.location, self.dataset, self.name, self.params,
            target=self.target, registry=self.controller.registry,
        )  # fmt: skip

    def _describe(self) -> None:
        parts = [f"view '{self.name}'"]
        parts += [f"{k} = {v}" for k, v in self.params.items()]
        if self.target:
            parts.append(f"target = {self.target}")
        self.subtitle.setText(" · ".join(parts))

    def _loaded(self, chart: dict[str, Any]) -> None:
        try:
            self.renderer.set_chart(chart)
        except Exception as exc:  # a chart the renderer cannot draw is an error, not a crash
            import traceback

            self._failed(exc, traceback.format_exc())
            return
        self.chart = chart
        self.error = None
        self.pages.setCurrentWidget(self.renderer)

    def _failed(self, error: BaseException, details: str) -> None:
        self.error, self.error_details = error, details
        self.chart = None
        self.error_label.setText(describe_error(error))
        step = _step_for(error)
        self.fix_button.setVisible(step is not None)
        if step is not None:
            self.fix_button.setText(f"Compute {getattr(error, 'what', 'it')}…")
            self.fix_button.setProperty("step", step)
        self.pages.setCurrentWidget(self.error_page)

    def _fix(self) -> None:
        runner = getattr(self.controller.window, "run_action", None)
        step = self.fix_button.property("step")
        if runner is not None and step:
            runner(step, self.dataset)

    def show_details(self) -> None:
        if self.error is not None:
            dialog = ErrorDialog(f"View '{self.name}' failed", self.error, self.error_details, self)
            dialog.setObjectName("viewErrorDialog")
            dialog.open()

    def edit_parameters(self) -> None:
        values = self.controller.ask_parameters(self.name, self.dataset, self.params, self.target)
        if values is not None:
            self.params, self.target = values
            self.build()

    def save_image(self) -> None:
        default = str(Path.home() / f"{self.name}-{self.dataset}.png")
        path, _ = QFileDialog.getSaveFileName(self, "Save the chart", default, "PNG (*.png)")
        if path:
            self.renderer.grab().save(path)

    def _point_activated(self, position: int) -> None:
        link = getattr(self.controller.window, "record_link", None)
        if link is not None:
            link.select(self.dataset, position, self)


class PluginViews(QObject):
    """The Views menu of a window and the chart tabs it opens."""

    def __init__(self, window: Any, registry: Any = None) -> None:
        super().__init__(window)
        self.window = window
        self._registry = registry

    @property
    def registry(self) -> Any:
        if self._registry is None:
            from vendiscope.core.plugins.registry import default_registry

            self._registry = default_registry()
        return self._registry

    def set_registry(self, registry: Any) -> None:
        """Use another plugin registry (tests; after a plugin folder changed)."""
        self._registry = registry

    def contributions(self) -> list[Any]:
        return self.registry.contributions("view")

    def fill_menu(self, menu: QMenu) -> None:
        """One action per view plugin (called each time the menu opens)."""
        menu.clear()
        enabled = self.window.document.is_open and self.window.current_dataset() is not None
        for contribution in self.contributions():
            action = QAction(icon("chart"), contribution.title or contribution.name, menu)
            tip = contribution.description or f"The '{contribution.name}' view"
            action.setStatusTip(f"{tip} (plugin {contribution.plugin})")
            action.setToolTip(tip)
            action.setData(contribution.name)
            action.setEnabled(enabled)
            action.triggered.connect(lambda _c=False, n=contribution.name: self.open(n))
            menu.addAction(action)
        if not menu.actions():
            menu.addAction("No view plugins installed").setEnabled(False)
        elif not enabled:
            menu.addSeparator()
            menu.addAction("Select a dataset to show a view").setEnabled(False)

    def open(
        self,
        name: str,
        dataset: str | None = None,
        *,
        params: dict[str, Any] | None = None,
        target: str | None = None,
        ask: bool = True,
    ) -> ChartTab | None:
        """Show view ``name`` of ``dataset`` in its tab (asking its parameters first)."""
        window = self.window
        dataset = dataset or window.current_dataset()
        if dataset is None or not window.document.is_open:
            return None
        if ask and params is None:
            values = self.ask_parameters(name, dataset, {}, target)
            if values is None:
                return None
            params, target = values
        kind = f"plugin:{name}"
        tab = window.tabs.find_view(kind, dataset)
        if tab is None:
            title = self._title(name)
            tab = ChartTab(self, name, dataset, title, params, target)
            window.tabs.add_view(tab, kind, dataset, f"{title} (view)", "chart")
            window._update_central()
        else:
            tab.params, tab.target = dict(params or {}), target
            window.tabs.setCurrentWidget(tab)
        tab.build()
        return tab

    def _title(self, name: str) -> str:
        try:
            found = self.registry.get("view", name)
        except VendiscopeError:
            return name
        return found.title or name

    def asks(self, name: str, dataset: str) -> bool:
        """Whether view ``name`` has anything to ask: parameters, or a target dataset."""
        try:
            specs = self.registry.describe("view", name)
        except VendiscopeError:
            return False
        return bool(specs) or len(self.window.document.datasets()) > 1

    def ask_parameters(
        self, name: str, dataset: str, current: dict[str, Any], target: str | None
    ) -> tuple[dict[str, Any], str | None] | None:
        """The parameters (and target dataset) for view ``name``; None when cancelled.

        A view without parameters is not asked (unless there is a target to choose); a view
        that cannot even be loaded is opened anyway, so its tab shows the error.
        """
        try:
            specs = self.registry.describe("view", name)
        except VendiscopeError:
            return dict(current), target
        others = [d.name for d in self.window.document.datasets() if d.name != dataset]
        if not specs and not others:
            return dict(current), target
        combo = None
        extra = None
        if others:
            combo = QComboBox()
            combo.setObjectName("targetDataset")
            combo.addItem("(none)", None)
            for other in others:
                combo.addItem(other, other)
            combo.setCurrentIndex(max(0, combo.findData(target)))
            combo.setToolTip("For views that compare the dataset with another (e.g. coverage)")
            extra = QWidget()
            form = QFormLayout(extra)
            form.setContentsMargins(0, 0, 0, 0)
            form.addRow("Target dataset:", combo)
        title = self._title(name)
        dialog = ParamDialog(
            f"{title}: {dataset}",
            f"Parameters of the '{name}' view. Hover a field for its meaning.",
            specs,
            self.window,
            extra=extra,
        )
        dialog.setObjectName("viewParamsDialog")
        for key, value in current.items():
            if key in dialog.form.fields:
                dialog.form.set_value(key, value)
        if dialog.exec() != ParamDialog.DialogCode.Accepted:
            return None
        return dialog.values(), (combo.currentData() if combo is not None else None)


def _step_for(error: BaseException) -> str | None:
    """The pipeline step that computes what a NotComputed error says is missing."""
    command = getattr(error, "command", None)
    if not command:
        return None
    try:
        words = shlex.split(command.split("`")[0])
    except ValueError:
        return None
    if len(words) < 2:
        return None
    if words[1] == "score" and "vendi" in words[words.index("--metric") + 1 :][:1]:
        return "score-vendi"
    return COMMAND_STEPS.get(words[1])
