"""The plugins window: installed plugins, what each contributes, and those that failed to load."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QSplitter,
    QStyle,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from vendiscope.core.plugins.manifest import API_VERSION
from vendiscope.core.plugins.registry import PluginFailure, PluginRegistry, default_registry
from vendiscope.gui.style import monospace_font

DETAILS_ROLE = Qt.ItemDataRole.UserRole + 1


class PluginsWindow(QDialog):
    """Lists a :class:`PluginRegistry`: plugins with versions and contributions, then failures."""

    def __init__(self, registry: PluginRegistry | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.registry = registry or default_registry()
        self.setWindowTitle("Plugins")
        self.resize(820, 560)
        intro = QLabel(
            f"Plugins are found through the <code>vendiscope.plugins</code> entry point "
            f"(plugin API {API_VERSION}). A plugin that fails to load is listed here and never "
            "stops Vendiscope."
        )
        intro.setWordWrap(True)
        intro.setObjectName("hint")
        self.tree = QTreeWidget()
        self.tree.setObjectName("pluginsTree")
        self.tree.setColumnCount(4)
        self.tree.setHeaderLabels(["Plugin / contribution", "Kind", "Version / target", "Notes"])
        self.tree.setAlternatingRowColors(True)
        self.tree.setUniformRowHeights(True)
        header = self.tree.header()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        self.tree.currentItemChanged.connect(self._show_details)
        self.details = QPlainTextEdit()
        self.details.setReadOnly(True)
        self.details.setFont(monospace_font())
        self.details.setPlaceholderText("Select a failure to read its traceback.")
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self.tree)
        splitter.addWidget(self.details)
        splitter.setSizes([380, 140])
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(splitter, 1)
        layout.addWidget(buttons)
        self.populate()

    def populate(self) -> None:
        self.tree.clear()
        for plugin in self.registry.plugins:
            top = QTreeWidgetItem(
                [
                    plugin.name,
                    "plugin",
                    plugin.version,
                    f"API {plugin.api_version} · {plugin.origin}",
                ]
            )
            font = top.font(0)
            font.setBold(True)
            top.setFont(0, font)
            top.setToolTip(3, plugin.origin)
            for contribution in plugin.contributions:
                child = QTreeWidgetItem(
                    [
                        contribution.label,
                        contribution.kind,
                        contribution.target,
                        contribution.description or contribution.name,
                    ]
                )
                child.setToolTip(0, f"{contribution.kind} '{contribution.name}'")
                child.setToolTip(3, contribution.description or contribution.name)
                top.addChild(child)
            self.tree.addTopLevelItem(top)
        failures = self.registry.failures
        if failures:
            group = QTreeWidgetItem([f"Failed to load ({len(failures)})", "", "", ""])
            group.setIcon(0, self.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxWarning))
            font = group.font(0)
            font.setBold(True)
            group.setFont(0, font)
            for failure in failures:
                group.addChild(self._failure_item(failure))
            self.tree.insertTopLevelItem(0, group)  # problems first
        for index in range(self.tree.topLevelItemCount()):
            self.tree.topLevelItem(index).setExpanded(True)
        self.tree.header().resizeSection(2, 260)

    def _failure_item(self, failure: PluginFailure) -> QTreeWidgetItem:
        name = failure.plugin + (f" ({failure.contribution})" if failure.contribution else "")
        item = QTreeWidgetItem([name, "failure", "", failure.message])
        item.setIcon(0, self.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxCritical))
        item.setToolTip(3, failure.message)
        item.setData(0, DETAILS_ROLE, failure.details or failure.message)
        return item

    def _show_details(self, current: QTreeWidgetItem | None, _previous: object) -> None:
        details = current.data(0, DETAILS_ROLE) if current is not None else None
        self.details.setPlainText(details or "")

    def failure_texts(self) -> list[str]:
        """The failures as listed (for tests and bug reports)."""
        return [f"{f.plugin}: {f.message}" for f in self.registry.failures]
