"""A :class:`~vendiscope.core.base.jobs.Progress` on stderr: a rich bar on a terminal, lines
otherwise.

On a terminal it draws a live bar with the count, the rate and the time left. Without one
(output redirected to a log file, a CI job, ``nohup``) a live bar prints nothing at all, so
it prints plain lines instead: one when the job starts, one as soon as the first step is
measured, then one every :data:`PLAIN_INTERVAL_S` seconds or :data:`PLAIN_STEP` of the work
(whichever comes first, at most one per :data:`PLAIN_MIN_GAP_S`), and one at the end::

    Features of demo (gradients/fast): 120/300 records (40%), 1.9 records/s, eta 0:01:35

The rate and the time left come from :class:`~vendiscope.core.base.jobs.RateMeter`: from the
first completed step on (rich's own time-remaining column waits for a 30-second window of
updates, which a job reporting once per batch of half a minute never fills).

Where stderr is neither a terminal nor a file or pipe (an in-memory stream: a test runner
capturing output) nothing is printed. ``VENDISCOPE_PROGRESS=bar|lines|off`` chooses.
"""

from __future__ import annotations

import os
import threading
import time

from rich.console import Console
from rich.progress import (
    BarColumn,
    DownloadColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)
from rich.text import Text

from vendiscope.cli._output import errors
from vendiscope.core.base.jobs import RateMeter, format_eta, format_rate

ENV_PROGRESS = "VENDISCOPE_PROGRESS"
MODES = ("bar", "lines", "off")
PLAIN_INTERVAL_S = 10.0
PLAIN_STEP = 0.05
PLAIN_MIN_GAP_S = 1.0


class _MeterColumn(ProgressColumn):
    """The rate or the time left, from the task's :class:`RateMeter` (field ``meter``)."""

    def __init__(self, what: str, unit: str) -> None:
        super().__init__()
        self.what = what
        self.unit = unit

    def render(self, task: Task) -> Text:
        meter: RateMeter | None = task.fields.get("meter")
        if meter is None:
            return Text("")
        if self.what == "rate":
            return Text(format_rate(meter.rate, self.unit), style="progress.data.speed")
        left = meter.eta(now=time.monotonic())
        return Text(f"eta {format_eta(left)}", style="progress.remaining")


def progress_mode(console: Console) -> str:
    """``bar`` on a terminal, ``lines`` on a file or pipe, else ``off`` (or what
    :data:`ENV_PROGRESS` says)."""
    forced = os.environ.get(ENV_PROGRESS, "").strip().lower()
    if forced in MODES:
        return forced
    if console.is_terminal:
        return "bar"
    try:
        console.file.fileno()
    except (AttributeError, OSError, ValueError):
        return "off"
    return "lines"


class RichProgress:
    """Progress on stderr, so that stdout stays clean for data (``--json``).

    ``plain`` forces plain lines (True) or the live bar (False); by default
    :func:`progress_mode` chooses.
    """

    def __init__(
        self,
        console: Console | None = None,
        *,
        plain: bool | None = None,
        interval_s: float = PLAIN_INTERVAL_S,
    ) -> None:
        self._console = console or errors
        mode = progress_mode(self._console) if plain is None else ("lines" if plain else "bar")
        self._off = mode == "off"
        self._plain = mode != "bar"
        self._interval_s = interval_s
        self._bar: Progress | None = None
        self._task: TaskID | None = None
        self._lock = threading.Lock()
        self._meter = RateMeter()
        self._description = ""
        self._unit = "it"
        self._active = False
        self._started = 0.0
        self._printed_at = 0.0
        self._printed_completed = 0.0
        self._measured = False
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None

    def start(self, description: str, total: float | None = None, unit: str = "it") -> None:
        self.finish()
        now = time.monotonic()
        with self._lock:
            self._description, self._unit = description, unit
            self._meter.reset(total, now=now)
            self._active, self._started, self._measured = True, now, False
            self._printed_at, self._printed_completed = now, 0.0
        if self._off:
            return
        if self._plain:
            size = f" ({_amount(total, unit)}{_label(unit)})" if total else ""
            self._print(f"{description}: started{size}")
            self._stop = threading.Event()
            self._ticker = threading.Thread(target=self._tick, name="progress-lines", daemon=True)
            self._ticker.start()
            return
        columns: list[ProgressColumn] = [TextColumn("{task.description}"), BarColumn()]
        if unit == "B":
            columns += [DownloadColumn()]
        else:
            columns += [MofNCompleteColumn(), TextColumn(f"{unit}")]
        columns += [
            _MeterColumn("rate", unit),
            TimeElapsedColumn(),
            _MeterColumn("eta", unit),
        ]
        self._bar = Progress(*columns, console=self._console, transient=True)
        self._bar.start()
        self._task = self._bar.add_task(description, total=total, meter=self._meter)

    def update(self, completed: float, total: float | None = None) -> None:
        now = time.monotonic()
        with self._lock:
            if not self._active:
                return
            self._meter.add(completed, total, now=now)
        if self._plain:
            self._maybe_print(now)
            return
        if self._bar is not None and self._task is not None:
            if total is not None:
                self._bar.update(self._task, completed=completed, total=total)
            else:
                self._bar.update(self._task, completed=completed)

    def finish(self) -> None:
        with self._lock:
            active, self._active = self._active, False
        if self._plain:
            self._stop.set()
            if self._ticker is not None:
                self._ticker.join(timeout=5)
                self._ticker = None
            if active:
                self._print(self._line(time.monotonic(), final=True))
            return
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
            self._task = None

    # ------------------------------------------------------------------ plain lines
    def _tick(self) -> None:
        while not self._stop.wait(min(1.0, self._interval_s)):
            self._maybe_print(time.monotonic())

    def _maybe_print(self, now: float) -> None:
        with self._lock:
            if not self._active:
                return
            meter = self._meter
            if meter.total and meter.completed >= meter.total:
                return  # the closing line says it
            since = now - self._printed_at
            first = not self._measured and meter.rate is not None
            step = bool(meter.total) and (
                meter.completed - self._printed_completed >= PLAIN_STEP * (meter.total or 1)
            )
            due = since >= self._interval_s or first or (step and since >= PLAIN_MIN_GAP_S)
            if not due:
                return
            self._measured = self._measured or meter.rate is not None
            self._printed_at, self._printed_completed = now, meter.completed
            line = self._line(now)
        self._print(line)

    def _line(self, now: float, final: bool = False) -> str:
        meter, unit = self._meter, self._unit
        completed, total = meter.completed, meter.total
        if total:
            amount = f"{_amount(completed, unit)}/{_amount(total, unit)}{_label(unit)}"
            amount += f" ({min(completed / total, 1.0):.0%})"
        else:
            amount = f"{_amount(completed, unit)}{_label(unit)}"
        rate = format_rate(meter.rate, unit)
        if not total and not completed:  # a step of unknown length that counts nothing
            took = format_eta(now - self._started)
            return f"{self._description}: " + (f"done in {took}" if final else f"{took} elapsed")
        if final:
            took = format_eta(now - self._started)
            return f"{self._description}: {amount} in {took}" + (f", {rate}" if rate else "")
        if rate:
            left = meter.eta(now=now)
            eta = f", eta {format_eta(left)}" if left is not None and total else ""
            return f"{self._description}: {amount}, {rate}{eta}"
        waited = format_eta(now - self._started)
        return f"{self._description}: {amount}, {waited} elapsed, eta after the first step"

    def _print(self, line: str) -> None:
        if self._off:
            return
        self._console.print(line, markup=False, highlight=False, soft_wrap=True)
        self._console.file.flush()


def _amount(value: float | None, unit: str) -> str:
    if value is None:
        return "?"
    if unit == "B":
        for suffix in ("B", "kB", "MB"):
            if value < 1000:
                return f"{value:,.0f} {suffix}" if suffix == "B" else f"{value:,.1f} {suffix}"
            value /= 1000
        return f"{value:,.1f} GB"
    return f"{value:,.0f}"


def _label(unit: str) -> str:
    return "" if unit in ("B", "it") else f" {unit}"
