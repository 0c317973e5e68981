"""Core progress calls turned into throttled Qt signals, plus rate and time-left estimates.

A core job calls :class:`QtProgress` from its worker thread, as often as it likes. The
adapter keeps only the latest state and delivers it to the GUI thread at most every
:data:`MIN_INTERVAL_S` seconds (leading and trailing edge: the first update shows at once,
the last one is never lost), so a job that reports a million tiny steps never floods the
event loop.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from PySide6.QtCore import QObject, QTimer, Signal, Slot

from vendiscope.core.base.jobs import RateMeter

MIN_INTERVAL_S = 0.05
"""At most 20 progress signals per second per job."""

RATE_WINDOW_S = 60.0


@dataclass(frozen=True)
class ProgressState:
    """What a job last reported."""

    description: str = ""
    completed: float = 0.0
    total: float | None = None
    unit: str = "it"

    @property
    def fraction(self) -> float | None:
        if not self.total:
            return None
        return max(0.0, min(1.0, self.completed / self.total))


class RateEstimator(RateMeter):
    """Rate and time left, from the first completed step on (see :class:`RateMeter`).

    A job that reports once per batch of half a minute has a rate (and a time left) as soon
    as its first batch is done; a resumed job's first update (where it starts) is not
    counted as work done.
    """

    def __init__(self, window_s: float = RATE_WINDOW_S) -> None:
        super().__init__(window_s)

    def add(  # type: ignore[override]  # takes the Qt-side sample, not the base's
        self, completed: float, now: float | None = None, total: float | None = None
    ) -> None:
        super().add(completed, total, now=now)


class QtProgress(QObject):
    """A :class:`vendiscope.core.base.jobs.Progress` whose updates arrive as Qt signals.

    Create it in the GUI thread; call ``start``/``update``/``finish`` from any thread.
    """

    changed = Signal(object)  # ProgressState, in the GUI thread, throttled
    _poke = Signal()

    def __init__(self, parent: QObject | None = None, interval_s: float = MIN_INTERVAL_S) -> None:
        super().__init__(parent)
        self.interval_s = interval_s
        self._lock = threading.Lock()
        self._state = ProgressState()
        self._pending = False
        self._last_emit = 0.0
        self.emitted = 0
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._deliver)
        self._poke.connect(self._on_poke)

    @property
    def state(self) -> ProgressState:
        with self._lock:
            return self._state

    # ------------------------------------------------------------------ Progress protocol
    def start(self, description: str, total: float | None = None, unit: str = "it") -> None:
        self._set(ProgressState(description, 0.0, total, unit))

    def update(self, completed: float, total: float | None = None) -> None:
        with self._lock:
            current = self._state
        self._set(
            ProgressState(
                current.description,
                float(completed),
                total if total is not None else current.total,
                current.unit,
            )
        )

    def finish(self) -> None:
        with self._lock:
            current = self._state
        if current.total:
            self._set(
                ProgressState(current.description, current.total, current.total, current.unit)
            )

    # ------------------------------------------------------------------ delivery
    def _set(self, state: ProgressState) -> None:
        with self._lock:
            self._state = state
            if self._pending:
                return  # a delivery is already on its way; it will carry this state
            self._pending = True
        self._poke.emit()  # queued to the GUI thread when called from a worker

    @Slot()
    def _on_poke(self) -> None:
        wait = self._last_emit + self.interval_s - time.monotonic()
        if wait <= 0:
            self._deliver()
        elif not self._timer.isActive():
            self._timer.start(max(1, round(wait * 1000)))

    @Slot()
    def _deliver(self) -> None:
        with self._lock:
            state = self._state
            self._pending = False
        self._last_emit = time.monotonic()
        self.emitted += 1
        self.changed.emit(state)


# ----------------------------------------------------------------------------- formatting
def format_amount(value: float, unit: str) -> str:
    if unit == "B":
        return format_bytes(value)
    if value >= 100 or float(value).is_integer():
        return f"{value:,.0f}"
    return f"{value:,.1f}"


def format_bytes(value: float) -> str:
    for suffix in ("B", "kB", "MB", "GB"):
        if abs(value) < 1000 or suffix == "GB":
            return f"{value:,.0f} {suffix}" if suffix == "B" else f"{value:,.1f} {suffix}"
        value /= 1000
    return f"{value:,.1f} TB"  # pragma: no cover


def format_rate(rate: float | None, unit: str) -> str:
    if rate is None:
        return ""
    if unit == "B":
        return f"{format_bytes(rate)}/s"
    label = "" if unit == "it" else f" {unit}"
    return f"{rate:,.1f}{label}/s" if rate < 10 else f"{rate:,.0f}{label}/s"


def format_duration(seconds: float | None) -> str:
    if seconds is None:
        return ""
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"
