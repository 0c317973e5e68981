"""Progress reporting and cancellation shared by every long-running job.

A job is a plain function that takes a :class:`Progress` and a :class:`CancelToken`.
The CLI adapts ``Progress`` to a progress bar, the GUI to Qt signals, tests use
:class:`NullProgress` or :class:`RecordingProgress`.
"""

from __future__ import annotations

import threading
from typing import Protocol, runtime_checkable


class Cancelled(Exception):
    """Raised inside a job when its :class:`CancelToken` was cancelled."""


class CancelToken:
    """A thread-safe flag a job polls between steps."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def raise_if_cancelled(self) -> None:
        if self._event.is_set():
            raise Cancelled("the job was cancelled")


@runtime_checkable
class Progress(Protocol):
    """Receives progress from a job. ``total`` may be ``None`` when unknown."""

    def start(self, description: str, total: float | None = None, unit: str = "it") -> None: ...

    def update(self, completed: float, total: float | None = None) -> None: ...

    def finish(self) -> None: ...


class NullProgress:
    """A progress reporter that ignores everything."""

    def start(self, description: str, total: float | None = None, unit: str = "it") -> None:
        pass

    def update(self, completed: float, total: float | None = None) -> None:
        pass

    def finish(self) -> None:
        pass


class RecordingProgress:
    """Keeps every update; useful in tests and for headless logging."""

    def __init__(self) -> None:
        self.descriptions: list[str] = []
        self.updates: list[tuple[float, float | None]] = []
        self.finished = 0
        self.total: float | None = None

    def start(self, description: str, total: float | None = None, unit: str = "it") -> None:
        self.descriptions.append(description)
        self.total = total

    def update(self, completed: float, total: float | None = None) -> None:
        if total is not None:
            self.total = total
        self.updates.append((completed, self.total))

    def finish(self) -> None:
        self.finished += 1
