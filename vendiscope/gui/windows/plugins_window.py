"""The plugins window: installed plugins, what each contributes, and what failed.

Failures are grouped by what went wrong: **Failed to load** (a plugin whose manifest cannot
be read, that needs a newer plugin API or clashes with another, or a contribution whose code
cannot be imported) and **Failed when run** (a contribution that loaded but raised, or
returned something malformed, while Vendiscope was using it, e.g. a view building its chart).
Each contribution says its state; selecting a row shows the details (and a traceback).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QPlainTextEdit,
    QSplitter,
    QStyle,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from vendiscope.core.plugin_host.manifest import API_VERSION, Contribution
from vendiscope.core.plugin_host.registry import (
    AVAILABLE,
    LOAD_FAILED,
    LOADED,
    RUN_FAILED,
    ContributionStatus,
    PluginFailure,
    PluginRegistry,
    default_registry,
)
from vendiscope.gui.widgets.style import monospace_font
from vendiscope.gui.widgets.text import plain_label, plain_tip

DETAILS_ROLE = Qt.ItemDataRole.UserRole + 1
STATE_WORDS = {
    AVAILABLE: "ready",
    LOADED: "loaded",
    LOAD_FAILED: "failed to load",
    RUN_FAILED: "failed when run",
}
LOAD_GROUP = "Failed to load"
RUN_GROUP = "Failed when run"


def is_run_failure(failure: PluginFailure) -> bool:
    """A failure while a loaded contribution was used (not while finding or importing it)."""
    return failure.stage == "run"


def failure_note(failure: PluginFailure) -> str:
    """The failure in one line, saying when it happened: "Failed when run: ..."."""
    when = RUN_GROUP if is_run_failure(failure) else LOAD_GROUP
    return f"{when}: {failure.message}"


def failure_summary(failure: PluginFailure) -> str:
    """The failure's message without the contribution and plugin it starts by naming."""
    message = failure.message
    if failure.kind and failure.contribution:
        lead = f"{failure.kind} '{failure.contribution}' "
        if message.startswith(lead):
            message = message[len(lead) :]
            message = message.removeprefix(f"(plugin '{failure.plugin}') ")
    return message


class PluginsWindow(QDialog):
    """Lists a :class:`PluginRegistry`: plugins with versions and contributions, then failures."""

    def __init__(self, registry: PluginRegistry | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.registry = registry or default_registry()
        self.setWindowTitle("Plugins")
        self.resize(980, 600)
        intro = plain_label(
            "Everything Vendiscope can import, export, compute and draw comes from plugins, "
            f"its own included (plugin API {API_VERSION}). A plugin that fails, when it loads "
            "or when it runs, is listed here and never stops Vendiscope."
        )
        intro.setWordWrap(True)
        intro.setObjectName("hint")
        self.tree = QTreeWidget()
        self.tree.setObjectName("pluginsTree")
        self.tree.setColumnCount(4)
        self.tree.setHeaderLabels(["Plugin / contribution", "Kind", "Version / state", "Notes"])
        self.tree.setAlternatingRowColors(True)
        self.tree.setUniformRowHeights(True)
        header = self.tree.header()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.tree.currentItemChanged.connect(self._show_details)
        self.details = QPlainTextEdit()
        self.details.setObjectName("pluginDetails")
        self.details.setReadOnly(True)
        self.details.setFont(monospace_font())
        self.details.setPlaceholderText("Select a plugin, a contribution or a failure.")
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self.tree)
        splitter.addWidget(self.details)
        splitter.setSizes([390, 150])
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(splitter, 1)
        layout.addWidget(buttons)
        self.populate()

    def populate(self) -> None:
        self.tree.clear()
        statuses = self._statuses()
        for plugin in self.registry.plugins:
            top = QTreeWidgetItem(
                [plugin.name, "plugin", plugin.version, f"plugin API {plugin.api_version}"]
            )
            font = top.font(0)
            font.setBold(True)
            top.setFont(0, font)
            top.setToolTip(3, plain_tip(plugin.origin))
            top.setData(
                0,
                DETAILS_ROLE,
                f"{plugin.name} {plugin.version} (plugin API {plugin.api_version})\n"
                f"from {plugin.origin}\n{len(plugin.contributions)} contribution(s)",
            )
            for contribution in plugin.contributions:
                status = statuses.get((contribution.kind, contribution.name))
                top.addChild(self._contribution_item(contribution, status))
            self.tree.addTopLevelItem(top)
        failures = self.registry.failures
        groups = [
            (RUN_GROUP, [f for f in failures if is_run_failure(f)]),
            (LOAD_GROUP, [f for f in failures if not is_run_failure(f)]),
        ]
        for title, found in groups:  # problems first: load failures, then run failures
            if not found:
                continue
            group = QTreeWidgetItem([f"{title} ({len(found)})", "", "", ""])
            group.setIcon(0, self.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxWarning))
            font = group.font(0)
            font.setBold(True)
            group.setFont(0, font)
            for failure in found:
                group.addChild(self._failure_item(failure))
            self.tree.insertTopLevelItem(0, group)
            group.setFirstColumnSpanned(True)
            for index in range(group.childCount()):
                group.child(index).setFirstColumnSpanned(True)
        for index in range(self.tree.topLevelItemCount()):
            self.tree.topLevelItem(index).setExpanded(True)
        widest = max(
            (
                self.tree.fontMetrics().horizontalAdvance(top.child(i).text(0)) + 48
                for top in (self.tree.topLevelItem(j) for j in range(self.tree.topLevelItemCount()))
                if top.text(1) == "plugin"
                for i in range(top.childCount())
            ),
            default=200,
        )
        self.tree.header().resizeSection(0, min(widest, 330))

    def _statuses(self) -> dict[tuple[str, str], ContributionStatus]:
        found = {}
        for status in self.registry.statuses():
            found[(status.contribution.kind, status.contribution.name)] = status
        return found

    def _contribution_item(
        self, c: Contribution, status: ContributionStatus | None
    ) -> QTreeWidgetItem:
        state = STATE_WORDS.get(status.state, status.state) if status is not None else ""
        note = c.description or c.name
        if status is not None and status.failures:
            note = failure_note(status.failures[-1])
        item = QTreeWidgetItem([c.label, c.kind, state, note])
        item.setToolTip(0, plain_tip(f"{c.kind} '{c.name}' ({c.target})"))
        item.setToolTip(3, plain_tip(note))
        if status is not None and not status.ok:
            item.setIcon(2, self.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxWarning))
        lines = [
            f"{c.label}: {c.kind} '{c.name}' of plugin {c.plugin}",
            c.description or "",
            f"state: {state}",
            f"code: {c.target}",
        ]
        for failure in status.failures if status is not None else ():
            lines += ["", failure_note(failure), failure.details or ""]
        item.setData(0, DETAILS_ROLE, "\n".join(lines))
        return item

    def _failure_item(self, failure: PluginFailure) -> QTreeWidgetItem:
        """One failure on one line across the columns: what, whose, and what went wrong."""
        name = failure.plugin + (f" ({failure.contribution})" if failure.contribution else "")
        kind = failure.kind or "plugin"
        note = failure_note(failure)
        item = QTreeWidgetItem([f"{kind} {name}: {failure_summary(failure)}", kind, "", note])
        item.setIcon(0, self.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxCritical))
        item.setToolTip(0, plain_tip(note))
        item.setToolTip(3, plain_tip(note))
        item.setData(0, DETAILS_ROLE, f"{note}\n\n{failure.details}" if failure.details else note)
        return item

    def _show_details(self, current: QTreeWidgetItem | None, _previous: object) -> None:
        details = current.data(0, DETAILS_ROLE) if current is not None else None
        self.details.setPlainText(details or "")

    def failure_texts(self) -> list[str]:
        """The failures as listed (for tests and bug reports)."""
        return [f"{f.plugin}: {failure_note(f)}" for f in self.registry.failures]
