"""A :class:`vendiscope.core.jobs.Progress` drawn as a rich progress bar with rate and ETA."""

from __future__ import annotations

from rich.progress import (
    BarColumn,
    DownloadColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
    TransferSpeedColumn,
)

from vendiscope.cli._output import errors


class RichProgress:
    """Progress on stderr, so that stdout stays clean for data (``--json``)."""

    def __init__(self) -> None:
        self._bar: Progress | None = None
        self._task: TaskID | None = None

    def start(self, description: str, total: float | None = None, unit: str = "it") -> None:
        self.finish()
        columns = [TextColumn("{task.description}"), BarColumn()]
        if unit == "B":
            columns += [DownloadColumn(), TransferSpeedColumn()]
        else:
            columns += [MofNCompleteColumn(), TextColumn(f"{unit}")]
        columns += [TimeElapsedColumn(), TextColumn("eta"), TimeRemainingColumn()]
        self._bar = Progress(*columns, console=errors, transient=True)
        self._bar.start()
        self._task = self._bar.add_task(description, total=total)

    def update(self, completed: float, total: float | None = None) -> None:
        if self._bar is not None and self._task is not None:
            if total is not None:
                self._bar.update(self._task, completed=completed, total=total)
            else:
                self._bar.update(self._task, completed=completed)

    def finish(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
            self._task = None
