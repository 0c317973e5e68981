"""The central tab area and the registry of views that can open in it.

A view type is registered once with :func:`register_view`: a kind (``records``,
``dashboard``, ``map``, ``selection``), a title, an icon, and a factory
``(document, dataset, window) -> QWidget`` (``window``: the
:class:`~vendiscope.gui.services.WindowServices` the view may ask for jobs and other views,
or None). :meth:`ViewTabs.open_view` opens a view for a dataset or brings its existing tab
forward, so each (kind, dataset) has at most one tab.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QTabWidget, QWidget

from vendiscope.gui.widgets.icons import icon
from vendiscope.gui.widgets.text import plain_tip
from vendiscope.gui.windows.document import ProjectDocument

if TYPE_CHECKING:
    from vendiscope.gui.services import WindowServices

ViewFactory = Callable[[ProjectDocument, str, "WindowServices | None"], QWidget]


@dataclass(frozen=True)
class ViewType:
    kind: str
    title: str
    icon: str
    factory: ViewFactory
    description: str = ""


VIEW_TYPES: dict[str, ViewType] = {}


def register_view(
    kind: str, title: str, factory: ViewFactory, *, icon: str = "", description: str = ""
) -> None:
    """Make a view openable in the central area (and listed in the View menu)."""
    VIEW_TYPES[kind] = ViewType(kind, title, icon, factory, description)


class ViewTabs(QTabWidget):
    """Closable, movable tabs of dataset views; emits the dataset of the current tab."""

    dataset_changed = Signal(str)

    def __init__(self, document: ProjectDocument, window: WindowServices | None = None) -> None:
        super().__init__()
        self.document = document
        self.window_ = window
        self.setTabsClosable(True)
        self.setMovable(True)
        self.setDocumentMode(True)
        self.tabCloseRequested.connect(self.close_tab)
        self.currentChanged.connect(self._current_changed)
        document.closed.connect(self.close_all)

    def open_view(self, kind: str, dataset: str) -> QWidget:
        """Open the ``kind`` view of ``dataset``, or focus it if it is already open."""
        existing = self.find_view(kind, dataset)
        if existing is not None:
            self.setCurrentWidget(existing)
            return existing
        view_type = VIEW_TYPES[kind]
        widget = view_type.factory(self.document, dataset, self.window_)
        return self.add_view(widget, kind, dataset, view_type.title, view_type.icon)

    def add_view(
        self, widget: QWidget, kind: str, dataset: str, title: str, icon_name: str = ""
    ) -> QWidget:
        """Show ``widget`` as the ``kind`` tab of ``dataset`` (views made outside the registry,
        such as the charts of view plugins)."""
        widget.setProperty("view_kind", kind)
        widget.setProperty("dataset", dataset)
        index = self.addTab(widget, icon(icon_name) if icon_name else QIcon(), "")
        self.setTabText(index, f"{title}: {dataset}")
        self.setTabToolTip(index, plain_tip(f"{title} of dataset '{dataset}'"))
        self.setCurrentIndex(index)
        return widget

    def find_view(self, kind: str, dataset: str) -> QWidget | None:
        for index in range(self.count()):
            widget = self.widget(index)
            if widget.property("view_kind") == kind and widget.property("dataset") == dataset:
                return widget
        return None

    def views(self) -> list[QWidget]:
        return [self.widget(i) for i in range(self.count())]

    def current_dataset(self) -> str | None:
        widget = self.currentWidget()
        return widget.property("dataset") if widget is not None else None

    def close_tab(self, index: int) -> None:
        widget = self.widget(index)
        self.removeTab(index)
        if widget is not None:
            widget.deleteLater()

    def close_all(self) -> None:
        while self.count():
            self.close_tab(0)

    def close_dataset(self, dataset: str) -> None:
        for index in reversed(range(self.count())):
            if self.widget(index).property("dataset") == dataset:
                self.close_tab(index)

    def _current_changed(self, index: int) -> None:
        dataset = self.current_dataset()
        if dataset:
            self.dataset_changed.emit(dataset)
