"""Views from plugins: the Views menu, and a tab per chosen view that draws its chart.

Every view plugin (``registry.contributions("view")``) is listed in the Views menu. Choosing
one asks for its parameters (a form from its ParamSpec: parameters declared ``FromProject``
list the dataset's subsets and vector sets; a target dataset only for views that declare
``needs_target``) when it has any, builds its chart description on a worker thread
(:func:`vendiscope.gui.jobs.tasks.build_view`) and shows it through the one
:class:`~vendiscope.gui.view_host.chart_renderer.ChartRenderer`. A view that fails — a missing
analysis, parameters that do not fit, a bug in a plugin, a chart that breaks the schema —
shows what happened and what to do in the tab (with the traceback one click away), never
takes the window down.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from vendiscope.core.base.errors import PluginError, PluginRuntimeError, VendiscopeError
from vendiscope.core.plugin_host.params import FromProject
from vendiscope.core.vectors.missing import MissingVectors
from vendiscope.core.view_data.missing import NotComputed
from vendiscope.gui.dialogs.error_dialog import ErrorDialog, describe_error
from vendiscope.gui.jobs import tasks
from vendiscope.gui.jobs.background import Loader
from vendiscope.gui.widgets.icons import icon
from vendiscope.gui.widgets.param_form import ParamDialog
from vendiscope.gui.widgets.style import error_palette
from vendiscope.gui.widgets.text import plain_label, plain_tip

COMMAND_STEPS = {
    "map": "map",
    "clusters": "clusters",
    "near-dups": "near-duplicates",
    "embed": "embed",
    "gradients": "featurize",
    "score": "score-gvendi",
}
"""The pipeline step that computes a missing analysis, by the command a NotComputed names."""
VECTOR_STEPS = {"embedding": "embed", "gradient": "featurize"}
"""The pipeline step that computes the vectors a MissingVectors error names."""
BUILTIN_PLUGIN = "vendiscope-builtins"
SET_KINDS = {
    "embedding": "embeddings",
    "gradient": "gradient features",
    "score": "per-record score",
    "projection": "2-D map",
    "cluster": "clustering",
}


@dataclass(frozen=True)
class Problem:
    """Why a view could not be drawn, in words: a title, the message and what to do."""

    title: str
    message: str
    advice: str
    step: str | None = None  # the pipeline step that computes what is missing
    dataset: str | None = None  # where that step runs (default: the view's dataset)
    fix_text: str = ""
    parameters: bool = False  # offer Parameters… (the values or the target are the cause)


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
        self.problem: Problem | None = None
        self.chart: dict[str, Any] | None = None
        self.builds = 0

        heading = plain_label(title)
        heading.setObjectName("pageTitle")
        self.subtitle = plain_label()
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

        from vendiscope.gui.view_host.chart_renderer import (
            ChartRenderer,
        )  # pyqtgraph: not at start-up

        self.renderer = ChartRenderer()
        self.renderer.point_activated.connect(self._point_activated)
        self.loading = plain_label("Building the chart…")
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
        self.error_title = plain_label("This view could not be drawn")
        self.error_title.setObjectName("sectionTitle")
        self.error_title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.error_title.setWordWrap(True)
        self.error_label = plain_label()
        self.error_label.setObjectName("viewError")
        self.error_label.setWordWrap(True)
        self.error_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.error_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        error_palette(self.error_label)
        self.advice_label = plain_label()
        self.advice_label.setObjectName("viewAdvice")
        self.advice_label.setWordWrap(True)
        self.advice_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.fix_button = QPushButton()
        self.fix_button.clicked.connect(self._fix)
        self.retry_params = QPushButton(icon("params"), "Parameters…")
        self.retry_params.setObjectName("errorParameters")
        self.retry_params.clicked.connect(self.edit_parameters)
        self.details_button = QPushButton("Details…")
        self.details_button.clicked.connect(self.show_details)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.fix_button)
        buttons.addWidget(self.retry_params)
        buttons.addWidget(self.details_button)
        buttons.addStretch(1)
        texts = QVBoxLayout()
        for label in (self.error_title, self.error_label, self.advice_label):
            texts.addWidget(label)
        centred = QHBoxLayout()
        centred.addStretch(1)
        centred.addLayout(texts, 8)
        centred.addStretch(1)
        layout.addLayout(centred)
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
        missing = self.controller.missing_target(self.name, self.dataset, self.target)
        if missing is not None:
            self.error, self.error_details = None, ""
            self.chart = None
            self._show_problem(missing)
            return
        if self.chart is None:
            self.pages.setCurrentWidget(self.loading)
        self.loader.run(
            tasks.build_view, window.document.location, self.dataset, self.name, self.params,
            target=self.target, registry=self.controller.registry,
        )  # fmt: skip

    def _describe(self) -> None:
        labels = self.controller.labels(self.name)
        parts = [f"{labels.get(k, k)}: {_shown(v)}" for k, v in self.params.items()]
        if self.target:
            parts.insert(0, f"Target dataset: {self.target}")
        text = " · ".join(parts) if parts else "Default parameters"
        self.subtitle.setText(f"{self.dataset} · {text}")

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
        self._show_problem(self.controller.explain(self.name, error))

    def _show_problem(self, problem: Problem) -> None:
        self.problem = problem
        self.error_title.setText(problem.title)
        self.error_label.setText(problem.message)
        self.advice_label.setText(problem.advice)
        self.advice_label.setVisible(bool(problem.advice))
        self.fix_button.setVisible(problem.step is not None)
        self.fix_button.setProperty("step", problem.step)
        self.fix_button.setProperty("dataset", problem.dataset or self.dataset)
        self.fix_button.setText(problem.fix_text)
        self.retry_params.setVisible(problem.parameters)
        self.details_button.setVisible(self.error is not None)
        self.pages.setCurrentWidget(self.error_page)

    def _fix(self) -> None:
        step = self.fix_button.property("step")
        if step:
            dataset = self.fix_button.property("dataset") or self.dataset
            self.controller.window.run_action(step, dataset)

    def show_details(self) -> None:
        if self.error is not None:
            title = self.problem.title if self.problem is not None else "The view failed"
            dialog = ErrorDialog(title, self.error, self.error_details, self)
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
            self._write_image(Path(path))

    def _write_image(self, path: Path) -> None:
        """Through the same checks as every output: never over a project or a database (the
        file dialog has asked about replacing anything else), whole or absent."""
        from vendiscope.core.base.atomic import atomic_path, check_destination
        from vendiscope.core.base.errors import VendiscopeError

        try:
            check_destination(path, force=True)
            with atomic_path(path) as temporary:
                if not self.renderer.grab().save(str(temporary), "PNG"):
                    raise OSError(f"{path}: the image could not be written")
        except (VendiscopeError, OSError) as error:
            ErrorDialog("Cannot save the chart", error, parent=self).open()

    def _point_activated(self, position: int) -> None:
        self.controller.window.record_link.select(self.dataset, position, self)


class PluginViews(QObject):
    """The Views menu of a window and the chart tabs it opens."""

    def __init__(self, window: Any, registry: Any = None) -> None:
        super().__init__(window)
        self.window = window
        self._registry = registry

    @property
    def registry(self) -> Any:
        if self._registry is None:
            from vendiscope.core.plugin_host.registry import default_registry

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
            action.setToolTip(plain_tip(tip))
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

    def view_class(self, name: str) -> type | None:
        """The view's class, or None when it cannot be loaded (its tab then says why)."""
        try:
            return self.registry.load("view", name)
        except VendiscopeError:
            return None

    def needs_target(self, name: str) -> bool:
        """Whether view ``name`` declares that it compares the dataset with a target."""
        return bool(getattr(self.view_class(name), "needs_target", False))

    def labels(self, name: str) -> dict[str, str]:
        """The form label of each parameter of view ``name``."""
        try:
            return {spec.name: spec.label for spec in self.registry.describe("view", name)}
        except VendiscopeError:
            return {}

    def asks(self, name: str, dataset: str) -> bool:
        """Whether view ``name`` has anything to ask: parameters, or a target dataset."""
        try:
            specs = self.registry.describe("view", name)
        except VendiscopeError:
            return False
        return bool(specs) or self.needs_target(name)

    def other_datasets(self, dataset: str) -> list[str]:
        return [d.name for d in self.window.document.datasets() if d.name != dataset]

    def missing_target(self, name: str, dataset: str, target: str | None) -> Problem | None:
        """The problem of a view that needs a target dataset and has none (else None)."""
        if not self.needs_target(name) or target:
            return None
        title = self._title(name)
        if not self.other_datasets(dataset):
            return Problem(
                f"The view “{title}” needs a second dataset",
                f"This view compares {dataset} with a target dataset (a benchmark or a "
                "held-out set), and the project has no other dataset.",
                "Import the target with File > Import…, then choose it under Parameters…",
                parameters=True,
            )
        return Problem(
            f"The view “{title}” needs a target dataset",
            f"This view compares {dataset} with a target dataset (a benchmark or a held-out set).",
            "Choose the target under Parameters…",
            parameters=True,
        )

    def project_choices(self, dataset: str, target: str | None, source: FromProject) -> list:
        """What the open project offers for a ``FromProject`` parameter: (text, name) pairs."""
        document = self.window.document
        whose = target if source.dataset == "target" else dataset
        if not document.is_open or not whose or document.dataset(whose) is None:
            return []
        project = document.project
        if source.what == "dataset":
            return [(d.name, d.name) for d in document.datasets() if d.name != dataset]
        if source.what == "subset":
            return [(f"{s.name}  ({s.size:,} records)", s.name) for s in project.subsets(whose)]
        from vendiscope.core.store import vectors

        sets = vectors.complete_sets(project, whose)
        return [(_set_text(s), s.name) for s in sets if not source.kinds or s.kind in source.kinds]

    def ask_parameters(
        self, name: str, dataset: str, current: dict[str, Any], target: str | None
    ) -> tuple[dict[str, Any], str | None] | None:
        """The parameters (and target dataset) for view ``name``; None when cancelled.

        A view without parameters is not asked (unless it needs a target dataset); a view
        that cannot even be loaded is opened anyway, so its tab shows the error.
        """
        try:
            specs = self.registry.describe("view", name)
        except VendiscopeError:
            return dict(current), target
        needs_target = self.needs_target(name)
        if not specs and not needs_target:
            return dict(current), target
        combo: QComboBox | None = None
        leading = []
        if needs_target:
            combo, label, hint = self._target_field(dataset, target)
            leading.append((label, combo, hint))
        title = self._title(name)
        chosen = {"target": combo.currentData() if combo is not None else None}

        def check() -> str | None:
            if combo is not None and combo.currentData() is None:
                if not self.other_datasets(dataset):
                    return (
                        "This view compares two datasets and the project has only one: import "
                        "the target first (File > Import…)."
                    )
                return "Choose the target dataset."
            return None

        dialog = ParamDialog(
            f"{title}: {dataset}",
            self._intro(name, dataset),
            specs,
            self.window,
            choices=lambda source: self.project_choices(dataset, chosen["target"], source),
            check=check,
            leading=leading,
        )
        dialog.setObjectName("viewParamsDialog")
        if combo is not None:

            def target_changed() -> None:
                chosen["target"] = combo.currentData()
                dialog.form.refresh_choices()
                dialog.validate()

            combo.currentIndexChanged.connect(target_changed)
        for key, value in current.items():
            if key in dialog.form.fields:
                dialog.form.set_value(key, value)
        if dialog.exec() != ParamDialog.DialogCode.Accepted:
            return None
        return dialog.values(), (combo.currentData() if combo is not None else None)

    def _intro(self, name: str, dataset: str) -> str:
        try:
            description = self.registry.get("view", name).description
        except VendiscopeError:
            description = ""
        lead = f"{description.rstrip('.')}." if description else f"The {self._title(name)} view."
        return f"{lead} Shown for {dataset}."

    def _target_field(self, dataset: str, target: str | None) -> tuple[QComboBox, QLabel, QLabel]:
        """The target dataset's combo box, its label and its help (the first row of the form)."""
        combo = QComboBox()
        combo.setObjectName("targetDataset")
        others = self.other_datasets(dataset)
        if not others:
            combo.addItem("(the project has no other dataset)", None)
            combo.setEnabled(False)
        else:
            combo.addItem("(choose a dataset)", None)
            for other in others:
                combo.addItem(other, other)
            index = combo.findData(target) if target else (1 if len(others) == 1 else 0)
            combo.setCurrentIndex(max(0, index))
        help_text = (
            f"The benchmark or held-out set compared with {dataset}, imported into the same "
            "project."
        )
        combo.setToolTip(plain_tip(help_text))
        hint = plain_label(help_text)
        hint.setObjectName("hint")
        hint.setWordWrap(True)
        label = plain_label("Target dataset *:")
        label.setToolTip(plain_tip(help_text))
        label.setBuddy(combo)
        return combo, label, hint

    # ------------------------------------------------------------------ failures
    def explain(self, name: str, error: BaseException) -> Problem:
        """Why view ``name`` failed, in words, and what the user can do about it."""
        title = self._title(name)
        text = describe_error(error)
        plugin, version = self._plugin_of(name)
        if isinstance(error, NotComputed) and (step := _step_for(error)) is not None:
            what = error.what or "what this view draws"
            return Problem(
                f"The view “{title}” needs {what}",
                f"{what[:1].upper()}{what[1:]}: not computed yet.",
                "Compute it with the button below (it runs as a job in the Jobs panel); the "
                "view is drawn again when it finishes.",
                step=step,
                fix_text=f"Compute {what}…",
                dataset=error.dataset,
            )
        if isinstance(error, PluginRuntimeError) and self._rejected_input(name, error):
            reason = error.reason or ""
            return Problem(
                f"The view “{title}” cannot be drawn with these settings",
                reason[:1].upper() + reason[1:],
                "Change the parameters (Parameters…), or compute what the message names.",
                parameters=True,
            )
        if isinstance(error, PluginRuntimeError):
            who = (
                "the Vendiscope developers"
                if plugin == BUILTIN_PLUGIN
                else f"the author of the plugin '{plugin}'"
            )
            return Problem(
                f"The view “{title}” failed when run (plugin {plugin}{version})",
                text,
                f"This is a fault in the plugin, not in your data. Details… has the technical "
                f"report: send it to {who}, or update the plugin. The other views keep "
                "working; Plugins > Installed plugins… lists the failure.",
                parameters=self.asks(name, ""),
            )
        if isinstance(error, PluginError):
            return Problem(
                f"The view “{title}” could not be loaded (plugin {plugin}{version})",
                text,
                f"The plugin '{plugin}' is installed but this view's code could not be loaded: "
                "reinstall or update the plugin, then restart Vendiscope. Plugins > Installed "
                "plugins… lists the problem.",
            )
        if isinstance(error, MissingVectors) and error.kind in VECTOR_STEPS:
            whose = error.dataset
            what = "embeddings" if error.kind == "embedding" else "gradient features"
            return Problem(
                f"The view “{title}” needs the {what} of {whose}",
                f"{whose} has no {what} yet.",
                "Compute them with the button below (a job in the Jobs panel); the view is "
                "drawn again when it finishes.",
                step=VECTOR_STEPS[error.kind],
                fix_text=f"Compute the {what} of {whose}…",
                dataset=whose,
            )
        if isinstance(error, VendiscopeError):
            return Problem(
                f"The view “{title}” cannot be drawn with these settings",
                text,
                "Change the parameters (Parameters…), or compute what the message names.",
                parameters=self.asks(name, ""),
            )
        return Problem(
            f"The view “{title}” could not be drawn",
            text,
            "Details… has the technical report. Refresh tries again.",
            parameters=self.asks(name, ""),
        )

    def _plugin_of(self, name: str) -> tuple[str, str]:
        """The plugin contributing view ``name`` and its version (" 1.2", or "")."""
        try:
            plugin = self.registry.get("view", name).plugin
        except VendiscopeError:
            return "unknown", ""
        found = next((p for p in self.registry.plugins if p.name == plugin), None)
        if found is None or found.version in ("", "0"):
            return plugin, ""
        return plugin, f" {found.version}"

    def _rejected_input(self, name: str, error: PluginRuntimeError) -> bool:
        """A ValueError of the view (how it refuses its input), not a fault of the plugin."""
        return error.reason is not None and (error.kind, error.name) == ("view", name)


def _set_text(info: Any) -> str:
    """A vector set as a list shows it: its name, what it holds and where it comes from."""
    what = SET_KINDS.get(info.kind, info.kind)
    source = (info.params or {}).get("vector_set")
    if info.kind in ("embedding", "gradient", "feature"):
        return f"{info.name}  ({what}, {info.dim:,} dimensions)"
    if info.kind == "projection":
        method = str((info.params or {}).get("method") or "").upper()
        return f"{info.name}  ({method + ' ' if method else ''}map of {source or 'a vector set'})"
    return f"{info.name}  ({what}{f' of {source}' if source else ''})"


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, int):
        return f"{value:,}"
    return "none" if value is None else str(value)


def _step_for(error: NotComputed) -> str | None:
    """The pipeline step that computes what a NotComputed error says is missing."""
    if error.step == "score" and error.option("--metric") == "vendi":
        return "score-vendi"
    return COMMAND_STEPS.get(error.step or "")
