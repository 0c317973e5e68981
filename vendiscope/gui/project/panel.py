"""The project panel: a tree of datasets and their vector sets, runs and subsets.

Before a project is open it says how to open one; an open project without datasets says
how to import one (with an Import button); otherwise it shows the tree, long names elided
in the middle and in full in their tooltips.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QModelIndex, QPoint, QSize, Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QHeaderView,
    QMenu,
    QPushButton,
    QStackedLayout,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from vendiscope.gui.project.model import ProjectTreeModel
from vendiscope.gui.project.nodes import Node
from vendiscope.gui.widgets.icons import icon
from vendiscope.gui.widgets.text import markup, plain_label, plain_tip, rich_label
from vendiscope.gui.windows.document import ProjectDocument

NO_DATASETS = (
    "This project has no datasets yet. Import one (JSONL, JSON, CSV, Parquet, a Hugging "
    "Face folder, a folder of .txt files):<ul style='margin-left: -24px'>"
    "<li>File &gt; Import data… (Ctrl+I) or the button below,</li>"
    "<li>drag a data file onto this window,</li>"
    "<li>or on the command line:<br><code>vendiscope import {project} FILE</code></li></ul>"
)
PANEL_WIDTH = 320
"""The width the panel asks for: room for a vector set's name two levels deep."""


class ProjectPanel(QWidget):
    """Shows the project tree; tells the window which dataset is selected or activated.

    ``context_actions`` is a callable ``(node) -> list[QAction]`` that the window supplies,
    so the menu of a node offers the same actions as the menu bar.
    """

    dataset_selected = Signal(str)
    node_activated = Signal(object)  # Node, on double-click or Enter
    import_requested = Signal()  # the Import button of an empty project

    def __init__(self, document: ProjectDocument, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.document = document
        self.model = ProjectTreeModel(document, self)
        self.context_actions: Callable[[Node], list[QAction | None]] = lambda node: []
        self.resume_action: Callable[[Node], QAction | None] | None = None
        """Makes a node's "Resume" action (the window sets its pipeline's); None: no resuming."""
        self.tree = QTreeView()
        self.tree.setObjectName("projectTree")
        self.tree.setModel(self.model)
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(False)
        self.tree.setAnimated(False)
        self.tree.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # both ends of a long name
        self.tree.setIndentation(14)
        self.tree.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.tree.customContextMenuRequested.connect(self._menu)
        self.tree.activated.connect(self._activated)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.selectionModel().currentChanged.connect(self._current_changed)
        self._expanded: set[str] = set()
        self._current_key: str | None = None
        self._seen_project = False
        self.model.about_to_rebuild.connect(self._remember)
        self.model.rebuilt.connect(self._restore)
        document.opened.connect(self._forget)
        self.placeholder = plain_label("No project open.\n\nCreate or open one from the File menu.")
        self.placeholder.setObjectName("hint")
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setWordWrap(True)
        self.empty = self._empty_page()
        self.stack = QStackedLayout()
        self.stack.addWidget(self.placeholder)
        self.stack.addWidget(self.empty)
        self.stack.addWidget(self.tree)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(self.stack)
        document.opened.connect(lambda _loc: self._show_page())
        document.closed.connect(self._show_page)
        self.model.rebuilt.connect(self._show_page)

    def _empty_page(self) -> QWidget:
        page = QWidget()
        page.setObjectName("emptyProject")
        self.empty_label = rich_label()  # our markup; the project's name is escaped
        self.empty_label.setObjectName("hint")
        self.empty_label.setWordWrap(True)
        self.empty_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.import_button = QPushButton(icon("import"), "Import data…")
        self.import_button.setObjectName("importButton")
        self.import_button.setToolTip("Choose data files to import into this project (Ctrl+I)")
        self.import_button.clicked.connect(self.import_requested)
        layout = QVBoxLayout(page)
        layout.setContentsMargins(12, 16, 12, 12)
        layout.addWidget(self.empty_label)
        layout.addSpacing(8)
        layout.addWidget(self.import_button, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addStretch(1)
        return page

    def _show_page(self) -> None:
        if not self.document.is_open:
            self.stack.setCurrentWidget(self.placeholder)
        elif self.document.failure is None and not self.document.datasets():
            project = Path(self.document.location or "PROJECT").name
            self.empty_label.setText(NO_DATASETS.format(project=markup(project)))
            self.empty_label.setToolTip(plain_tip(self.document.location))
            self.stack.setCurrentWidget(self.empty)
        else:
            self.stack.setCurrentWidget(self.tree)

    def sizeHint(self) -> QSize:
        return QSize(PANEL_WIDTH, super().sizeHint().height())

    # ------------------------------------------------------------------ refresh
    def _forget(self) -> None:
        self._seen_project = False
        self._expanded = set()
        self._current_key = None

    def _remember(self) -> None:
        if not self._seen_project:
            return
        expanded = [i for i in self.model.all_indexes() if self.tree.isExpanded(i)]
        self._expanded = self.model.keys_of(expanded)
        current = self.tree.currentIndex()
        keys = self.model.keys_of([current.siblingAtColumn(0)]) if current.isValid() else set()
        self._current_key = next(iter(keys), None)

    def _restore(self) -> None:
        if not self._seen_project:  # a newly opened project: datasets expanded, first selected
            self._seen_project = self.model.rowCount() > 0
            for row in range(self.model.rowCount()):
                self.tree.expand(self.model.index(row, 0))
            if self.model.rowCount():
                self.tree.setCurrentIndex(self.model.index(0, 0))
            return
        for index in self.model.indexes_with_keys(self._expanded):
            self.tree.expand(index)
        found = self.model.indexes_with_keys({self._current_key}) if self._current_key else []
        if found:
            self.tree.setCurrentIndex(found[0])
        elif self.model.rowCount():
            self.tree.setCurrentIndex(self.model.index(0, 0))

    # ------------------------------------------------------------------ selection
    def current_node(self) -> Node | None:
        return self.model.node(self.tree.currentIndex())

    def current_dataset(self) -> str | None:
        node = self.current_node()
        return node.dataset if node is not None else None

    def select_dataset(self, name: str) -> None:
        index = self.model.find_dataset(name)
        if index.isValid():
            self.tree.setCurrentIndex(index)

    def _current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        node = self.model.node(current)
        if node is not None and node.dataset:
            self.dataset_selected.emit(node.dataset)

    def _activated(self, index: QModelIndex) -> None:
        node = self.model.node(index)
        if node is not None:
            self.node_activated.emit(node)

    def _menu(self, point: QPoint) -> None:
        index = self.tree.indexAt(point)
        node = self.model.node(index)
        if node is None:
            return
        self.tree.setCurrentIndex(index)  # the menu's actions act on the clicked dataset
        actions: list[QAction | None] = [*self.context_actions(node), *self.resume_actions(node)]
        if not actions:
            return
        menu = QMenu(self)
        for action in actions:
            if action is None:
                menu.addSeparator()
            else:
                menu.addAction(action)
        menu.exec(self.tree.viewport().mapToGlobal(point))

    def resume_actions(self, node: Node) -> list[QAction]:
        """ "Resume" on an interrupted vector set (the window's pipeline submits the job)."""
        action = self.resume_action(node) if self.resume_action is not None else None
        return [action] if action is not None else []
