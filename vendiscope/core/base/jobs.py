"""Progress reporting and cancellation shared by every long-running job.

A job is a plain function that takes a :class:`Progress` and a :class:`CancelToken`.
The CLI adapts ``Progress`` to a progress bar, the GUI to Qt signals, tests use
:class:`NullProgress` or :class:`RecordingProgress`. :class:`RateMeter` turns the updates
into a rate and a time left from the first completed step on. :func:`this_process` and
:func:`process_state` tell whether the process that started a job still runs (how an
interrupted vector set is told from a running one).
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable


class Cancelled(Exception):
    """Raised inside a job when its :class:`CancelToken` was cancelled."""


class CancelToken:
    """A thread-safe flag a job polls between steps (and inside them, where it can).

    :meth:`on_cancel` runs a callback the moment the token is cancelled (e.g. to tell a
    child process at once instead of polling).
    """

    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._callbacks: list[Callable[[], None]] = []

    def cancel(self) -> None:
        with self._lock:
            if self._event.is_set():
                return
            self._event.set()
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def raise_if_cancelled(self) -> None:
        if self._event.is_set():
            raise Cancelled("the job was cancelled")

    def wait(self, timeout: float | None = None) -> bool:
        """Block until cancelled (True) or ``timeout`` seconds passed (False)."""
        return self._event.wait(timeout)

    def on_cancel(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call ``callback`` when the token is cancelled (now, if it already is).

        Returns a function that unregisters it.
        """
        with self._lock:
            if not self._event.is_set():
                self._callbacks.append(callback)
                return lambda: self._forget(callback)
        callback()
        return lambda: None

    def _forget(self, callback: Callable[[], None]) -> None:
        with self._lock:
            if callback in self._callbacks:
                self._callbacks.remove(callback)


@runtime_checkable
class Progress(Protocol):
    """Receives progress from a job. ``total`` may be ``None`` when unknown."""

    def start(self, description: str, total: float | None = None, unit: str = "it") -> None: ...

    def update(self, completed: float, total: float | None = None) -> None: ...

    def finish(self) -> None: ...


class PartProgress:
    """Progress of one part of a job (a chunk, one of several selections), reported to the
    job's progress as its overall count from ``offset`` on; the part's own description and
    total are the job's business, not shown.

    A worker counts what it computes (e.g. the distinct new texts of a chunk, fewer than its
    rows when some are reused); with ``rows`` given, its ``completed / total`` is scaled to
    the part's rows, so the job's progress moves evenly across the part.
    """

    def __init__(self, outer: Progress, offset: int, rows: int | None = None) -> None:
        self._outer = outer
        self._offset = offset
        self._rows = rows

    def start(self, description: str, total: float | None = None, unit: str = "it") -> None:
        pass

    def update(self, completed: float, total: float | None = None) -> None:
        if self._rows is not None and total:
            completed = self._rows * min(completed, total) // total
        self._outer.update(self._offset + completed)

    def finish(self) -> None:
        pass


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


class RateMeter:
    """Rate and time left of a job, usable from its first completed step.

    The rate is the average since the job's first update over the last ``window_s`` seconds
    (the whole run until it is that long), so a job whose steps take minutes gets an ETA
    after its first step, and a long job follows changes of speed. An update that comes
    within :attr:`SETTLE_S` of the first one (a resumed job reporting where it starts) moves
    the starting point instead of counting as work done.
    """

    SETTLE_S = 0.5

    def __init__(self, window_s: float = 120.0) -> None:
        self.window_s = window_s
        self.total: float | None = None
        self._samples: list[tuple[float, float]] = []
        self._origin: float | None = None

    def reset(self, total: float | None = None, now: float | None = None) -> None:
        """Start measuring a new phase (optionally at ``completed = 0`` at ``now``)."""
        self.total = total
        self._samples = [] if now is None else [(now, 0.0)]
        self._origin = now

    def add(self, completed: float, total: float | None = None, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        if total is not None:
            self.total = total
        samples = self._samples
        if samples and completed < samples[-1][1]:
            samples.clear()  # a new phase counts from zero again
        if not samples:
            self._origin = now
        elif len(samples) == 1 and self._origin is not None and now - self._origin < self.SETTLE_S:
            samples[0] = (now, float(completed))  # where the job starts, not work done
            return
        if samples and samples[-1][1] == completed:
            return  # no step finished: keep the time of the last one that did
        samples.append((now, float(completed)))
        cutoff = now - self.window_s
        while len(samples) > 2 and samples[1][0] <= cutoff:
            samples.pop(0)

    @property
    def completed(self) -> float:
        return self._samples[-1][1] if self._samples else 0.0

    @property
    def rate(self) -> float | None:
        """Units per second, or None before the first step after the start finished."""
        if len(self._samples) < 2:
            return None
        (t0, c0), (t1, c1) = self._samples[0], self._samples[-1]
        if t1 - t0 <= 0 or c1 <= c0:
            return None
        return (c1 - c0) / (t1 - t0)

    def eta(
        self,
        completed: float | None = None,
        total: float | None = None,
        now: float | None = None,
    ) -> float | None:
        """Seconds left at the current rate; with ``now``, counted down from the last update.

        The countdown stops at the time the steps after the one in progress need: it does
        not reach zero while steps remain.
        """
        rate = self.rate
        completed = self.completed if completed is None else completed
        total = self.total if total is None else total
        if rate is None or not total or completed >= total:
            return None
        left = (total - completed) / rate
        if now is not None and self._samples:
            (_, first), (last_time, last) = self._samples[0], self._samples[-1]
            step = (last - first) / (len(self._samples) - 1)  # work per update, on average
            floor = max(0.0, total - completed - step) / rate
            left = max(floor, left - (now - last_time))
        return left


def representative_order(n: int) -> list[int]:
    """The indices ``0..n-1`` in an order whose every prefix spreads evenly over the range.

    The middle first, then the middles of both halves, and so on. Running batches sorted by
    length in this order (instead of longest first) makes the rate measured after the first
    few batches, and so the time left, hold for the whole job; the batches themselves, and
    what they compute, do not change.
    """
    order: list[int] = []
    spans = [(0, n)]
    while spans:
        following = []
        for low, high in spans:
            if low < high:
                middle = (low + high - 1) // 2  # the lower middle: a short last one later
                order.append(middle)
                following += [(low, middle), (middle + 1, high)]
        spans = following
    return order


def format_rate(rate: float | None, unit: str) -> str:
    """``1.9 records/s`` (bytes scaled: ``2.5 MB/s``); empty when unknown."""
    if rate is None:
        return ""
    if unit == "B":
        for suffix in ("B", "kB", "MB", "GB"):
            if rate < 1000 or suffix == "GB":
                return f"{rate:,.1f} {suffix}/s"
            rate /= 1000
    digits = 2 if rate < 1 else 1 if rate < 100 else 0
    return f"{rate:,.{digits}f} {unit}/s"


def format_eta(seconds: float | None) -> str:
    """``0:01:35`` (``-:--:--`` when unknown)."""
    if seconds is None:
        return "-:--:--"
    whole = round(seconds)
    hours, rest = divmod(whole, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}"


# ----------------------------------------------------------------------------- owners
@dataclass(frozen=True)
class ProcessState:
    """Whether the process that started a job runs: ``alive`` True/False, or None (unknown)."""

    alive: bool | None
    host: str
    pid: int | None


def _create_time(pid: int) -> float | None:
    import psutil

    try:
        process = psutil.Process(pid)
        if process.status() == psutil.STATUS_ZOMBIE:
            return None
        return process.create_time()
    except (psutil.NoSuchProcess, psutil.ZombieProcess):
        return None
    except psutil.AccessDenied:
        return -1.0  # exists, owned by someone else: cannot tell its start time


def this_process() -> dict[str, Any]:
    """Who runs this job: ``{"pid", "host", "created"}`` (the process's start time).

    Recorded with a run when it starts; :func:`process_state` reads it back. The start time
    tells a live process from a new one that reused the pid (after a reboot, say).
    """
    pid = os.getpid()
    return {"pid": pid, "host": socket.gethostname(), "created": _create_time(pid)}


def process_state(owner: dict[str, Any] | None) -> ProcessState:
    """Whether the process ``owner`` (from :func:`this_process`) still runs.

    Only a process on this host can be checked; on another host the answer is unknown.
    """
    if not owner or not isinstance(owner.get("pid"), int):
        return ProcessState(False, str((owner or {}).get("host") or ""), None)
    host, pid = str(owner.get("host") or ""), int(owner["pid"])
    if host != socket.gethostname():
        return ProcessState(None, host, pid)
    created = _create_time(pid)
    if created is None:
        return ProcessState(False, host, pid)
    recorded = owner.get("created")
    if created >= 0 and isinstance(recorded, (int, float)) and abs(created - recorded) > 1.0:
        return ProcessState(False, host, pid)  # the pid now belongs to another process
    return ProcessState(True, host, pid)
