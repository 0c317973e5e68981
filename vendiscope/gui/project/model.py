"""The project tree as a Qt item model: a QStandardItemModel adapter over :mod:`project_nodes`.

The model listens to the :class:`~vendiscope.gui.windows.document.ProjectDocument` and rebuilds
itself from :func:`~vendiscope.gui.project.nodes.project_nodes` when the project changes.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QObject, Qt, Signal
from PySide6.QtGui import QStandardItem, QStandardItemModel

from vendiscope.gui.project.nodes import Node, project_nodes
from vendiscope.gui.widgets.icons import icon
from vendiscope.gui.widgets.text import plain_tip
from vendiscope.gui.windows import store_guard
from vendiscope.gui.windows.document import ProjectDocument

NODE_ROLE = Qt.ItemDataRole.UserRole + 1
KEY_ROLE = Qt.ItemDataRole.UserRole + 2


class ProjectTreeModel(QStandardItemModel):
    """Datasets and, under each, vector sets, runs and subsets (two columns: name, detail)."""

    about_to_rebuild = Signal()
    rebuilt = Signal()

    def __init__(self, document: ProjectDocument, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.document = document
        self.setHorizontalHeaderLabels(["Name", "Details"])
        document.changed.connect(self.rebuild)
        document.closed.connect(self.clear_nodes)

    def clear_nodes(self) -> None:
        self.removeRows(0, self.rowCount())

    def rebuild(self) -> None:
        """Re-read the project (keys let the view restore which nodes were expanded)."""
        self.about_to_rebuild.emit()
        self.clear_nodes()
        if self.document.is_open:
            root = self.invisibleRootItem()
            for node in self._nodes():
                root.appendRow(self._row(node, ""))
        self.rebuilt.emit()

    def _nodes(self) -> list[Node]:
        """The tree, or one row saying why it cannot be read (never a blank panel)."""
        try:
            return project_nodes(self.document.project)
        except Exception as error:
            if not store_guard.report(error, "showing the project panel"):
                raise
            return [
                Node(
                    "failure",
                    "failure",
                    "File unreadable",
                    "see the message",
                    f"{self.document.location}: {error}",
                )
            ]

    def _row(self, node: Node, parent_key: str) -> list[QStandardItem]:
        key = f"{parent_key}/{node.key}"
        name = QStandardItem(node.label)
        name.setEditable(False)
        name.setData(node, NODE_ROLE)
        name.setData(key, KEY_ROLE)
        if node.icon:
            name.setIcon(icon(node.icon))
        if node.tooltip:
            name.setToolTip(plain_tip(node.tooltip))
        if node.kind == "dataset":
            font = name.font()
            font.setBold(True)
            name.setFont(font)
        detail = QStandardItem(node.detail)
        detail.setEditable(False)
        detail.setData(node, NODE_ROLE)
        detail.setToolTip(plain_tip(node.tooltip))
        for child in node.children:
            name.appendRow(self._row(child, key))
        return [name, detail]

    # ------------------------------------------------------------------ lookup
    def node(self, index: QModelIndex) -> Node | None:
        if not index.isValid():
            return None
        return index.siblingAtColumn(0).data(NODE_ROLE)

    def find_dataset(self, name: str) -> QModelIndex:
        for row in range(self.rowCount()):
            index = self.index(row, 0)
            node = self.node(index)
            if node is not None and node.kind == "dataset" and node.dataset == name:
                return index
        return QModelIndex()

    def keys_of(self, indexes: list[QModelIndex]) -> set[str]:
        return {index.data(KEY_ROLE) for index in indexes if index.isValid()}

    def all_indexes(self) -> list[QModelIndex]:
        """Every first-column index, depth first."""
        found: list[QModelIndex] = []

        def walk(parent: QModelIndex) -> None:
            for row in range(self.rowCount(parent)):
                index = self.index(row, 0, parent)
                found.append(index)
                walk(index)

        walk(QModelIndex())
        return found

    def indexes_with_keys(self, keys: set[str]) -> list[QModelIndex]:
        return [index for index in self.all_indexes() if index.data(KEY_ROLE) in keys]
