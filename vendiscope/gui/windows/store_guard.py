"""Store failures anywhere in the app become one dialog and a project that is no longer written.

A damaged or vanished project file shows up as an exception in whatever touched it first: a
view refreshing, a background read, a job. Each of those reports here (:func:`report`), and
so does anything that escapes a slot (:func:`install_excepthook`). The guard tells the user
which file failed, during what, and what to do — once per failure — and, when writing more
could lose data, marks the document failed so that the job manager starts no more jobs on it.
"""

from __future__ import annotations

import sys
import traceback
import weakref
from types import TracebackType
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, QTimer, Signal

from vendiscope.core.store.health import StoreFailure, store_failure

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget


class GuardedDocument(Protocol):
    """What the guard uses of the window's document (a ``ProjectDocument``).

    Typed by this protocol, this module needs nothing of ``document``, which imports it.
    """

    @property
    def is_open(self) -> bool: ...

    @property
    def location(self) -> str | None: ...

    def mark_failed(self, failure: StoreFailure, operation: str) -> None: ...


# Where in the GUI a failure surfaced, in the user's words (module name -> operation).
OPERATIONS = {
    "project_panel": "showing the project panel",
    "project_model": "showing the project panel",
    "project_nodes": "showing the project panel",
    "dashboard": "showing the diversity dashboard",
    "dashboard_data": "showing the diversity dashboard",
    "map_view": "drawing the map",
    "map_data": "drawing the map",
    "records_model": "reading records",
    "records_view": "reading records",
    "record_queries": "reading records",
    "export_dialog": "preparing an export",
    "selection_workbench": "showing the selection workbench",
    "selection_data": "showing the selection workbench",
    "plugin_views": "building a view",
    "file_commands": "opening the project",
}

_guards: list[weakref.ReferenceType[StoreGuard]] = []


class StoreGuard(QObject):
    """Watches one window's document; shows each store failure once."""

    failed = Signal(str, object)  # the operation, the StoreFailure

    def __init__(self, document: GuardedDocument, window: QWidget) -> None:
        super().__init__(window)
        self.document = document
        self.window = window
        self.shown: list[tuple[str, StoreFailure]] = []
        self._dialog_open = False
        _guards.append(weakref.ref(self))

    def report(self, error: BaseException | str, operation: str) -> bool:
        """Handle ``error`` if it is a store failure; True when it was one."""
        failure = store_failure(error if isinstance(error, BaseException) else Exception(error))
        if failure is None or not self.document.is_open:
            return False
        if failure.stops_writing:
            self.document.mark_failed(failure, operation)
        self.failed.emit(operation, failure)
        if not self._dialog_open:  # one dialog at a time: a broken file fails every view
            self._dialog_open = True
            QTimer.singleShot(0, lambda: self._show(operation, failure))
        return True

    def _show(self, operation: str, failure: StoreFailure) -> None:
        from vendiscope.gui.dialogs.error_dialog import ErrorDialog

        location = self.document.location or "the project"
        self.shown.append((operation, failure))
        message = (
            f"The project file {location} failed while {operation}.\n"
            f"SQLite reported: {failure.message}.\n\n{failure.advice(location)}"
        )
        dialog = ErrorDialog("The project file failed", message, parent=self.window)
        dialog.setObjectName("storeFailureDialog")
        dialog.finished.connect(self._closed)
        dialog.open()

    def _closed(self) -> None:
        self._dialog_open = False


def report(error: BaseException | str, operation: str) -> bool:
    """Give ``error`` to the open windows' guards; True when one of them handled it."""
    handled = False
    for ref in list(_guards):
        guard = ref()
        if guard is None:
            _guards.remove(ref)
            continue
        handled = guard.report(error, operation) or handled
    return handled


def operation_of(tb: TracebackType | None) -> str:
    """The user's words for where ``tb`` passed through the GUI last."""
    operation = "reading the project"
    for frame, _line in traceback.walk_tb(tb):
        module = frame.f_globals.get("__name__", "")
        if module.startswith("vendiscope.gui."):
            operation = OPERATIONS.get(module.rpartition(".")[2], operation)
    return operation


def install_excepthook() -> None:
    """Route store failures that escape a slot to the guards; print anything else as before."""
    previous = sys.excepthook

    def hook(kind: type[BaseException], error: BaseException, tb: TracebackType | None) -> None:
        if not report(error, operation_of(tb)):
            previous(kind, error, tb)

    sys.excepthook = hook
