"""Quick read-only work off the GUI thread: previews, searches, summaries.

Unlike :mod:`vendiscope.gui.jobs.manager` (user-visible jobs that write to the project, run one at
a time), a :class:`Loader` runs short reads that a view needs, and keeps only the answer to
its latest request: when the user types faster than a search answers, stale answers are
dropped. Functions that read a project take its location and open their own connection
(:func:`vendiscope.gui.jobs.tasks.opened`).
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal, Slot


class Loader(QObject):
    """Runs functions on the thread pool; emits the result of the latest one only.

    Make it a child of the view that uses it: when the view goes away, so do late answers.
    """

    loaded = Signal(object)
    failed = Signal(object, str)  # the exception and its traceback
    busy_changed = Signal(bool)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._ticket = 0
        self._busy = False

    @property
    def busy(self) -> bool:
        return self._busy

    def run(self, func: Callable[..., Any], *args: Any, **kwargs: Any) -> int:
        """Start ``func(*args, **kwargs)`` in a worker thread; older requests are superseded."""
        from superqt.utils import create_worker  # superqt imports much of Qt: not at start-up

        self._ticket += 1
        # superqt keeps a reference to a started worker until it finishes.
        worker = create_worker(
            _call, self._ticket, func, args, kwargs, _start_thread=False, _ignore_errors=True
        )
        worker.returned.connect(self._deliver)
        self._set_busy(True)
        worker.start()
        return self._ticket

    def cancel(self) -> None:
        """Forget any request in flight (its answer will be dropped)."""
        self._ticket += 1
        self._set_busy(False)

    @Slot(object)
    def _deliver(self, outcome: tuple[int, bool, Any, str]) -> None:
        ticket, ok, value, details = outcome
        if ticket != self._ticket:
            return
        self._set_busy(False)
        if ok:
            self.loaded.emit(value)
        else:
            from vendiscope.gui.windows import store_guard

            store_guard.report(value, "reading the project")
            self.failed.emit(value, details)

    def _set_busy(self, busy: bool) -> None:
        if busy != self._busy:
            self._busy = busy
            self.busy_changed.emit(busy)


def _call(
    ticket: int, func: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[int, bool, Any, str]:
    """Run ``func``; return ``(ticket, ok, result or exception, traceback)``; never raises."""
    try:
        return ticket, True, func(*args, **kwargs), ""
    except Exception as exc:
        return ticket, False, exc, traceback.format_exc()
