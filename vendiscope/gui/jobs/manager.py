"""Jobs: core functions run on worker threads, one at a time, with progress and cancel.

A job is a plain function called as ``func(*args, progress=..., cancel=..., **kwargs)`` (see
:mod:`vendiscope.gui.jobs.tasks`): it opens its own
:class:`~vendiscope.core.store.project.Project` in the worker thread, so no SQLite connection
ever crosses threads. Jobs that write to the project run one after another (SQLite has one
writer); the rest wait in the queue.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from enum import Enum
from typing import Any

from PySide6.QtCore import QEventLoop, QObject, QTimer, Signal

from vendiscope.core.base.jobs import Cancelled, CancelToken
from vendiscope.gui.jobs.progress import ProgressState, QtProgress, RateEstimator


class JobState(str, Enum):
    QUEUED = "queued"
    RUNNING = "running"
    CANCELLING = "cancelling"
    DONE = "done"
    FAILED = "failed"
    CANCELLED = "cancelled"

    @property
    def finished(self) -> bool:
        return self in (JobState.DONE, JobState.FAILED, JobState.CANCELLED)


class Job(QObject):
    """One submitted job: its state, progress, rate, result or error."""

    changed = Signal()
    finished = Signal(object)  # the Job, when it is done, failed or cancelled

    def __init__(
        self,
        title: str,
        func: Callable[..., Any],
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        *,
        kind: str = "job",
        dataset: str | None = None,
        in_child_process: bool = False,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.title = title
        self.in_child_process = in_child_process
        self.kind = kind
        self.dataset = dataset
        self.project: str | None = None  # the location of the project it was started in
        self.state = JobState.QUEUED
        self.result: Any = None
        self.error: BaseException | None = None
        self.error_details = ""
        self.cancel_token = CancelToken()
        self.progress = QtProgress(self)
        self.rates = RateEstimator()
        self._func, self._args, self._kwargs = func, args, kwargs
        self._worker: Any = None
        self.progress.changed.connect(self._on_progress)

    # ------------------------------------------------------------------ state
    @property
    def status(self) -> ProgressState:
        return self.progress.state

    @property
    def rate(self) -> float | None:
        return self.rates.rate

    @property
    def eta(self) -> float | None:
        state = self.progress.state
        return self.rates.eta(state.completed, state.total)

    def cancel(self) -> None:
        """Ask the job to stop at its next check (a queued job never starts)."""
        if self.state.finished:
            return
        self.cancel_token.cancel()
        if self.state == JobState.QUEUED:
            self._skip()
            return
        if self.state == JobState.RUNNING:
            self.state = JobState.CANCELLING
        self.changed.emit()

    # ------------------------------------------------------------------ running
    def _start(self) -> None:
        from superqt.utils import create_worker  # superqt imports much of Qt: not at start-up

        self.state = JobState.RUNNING
        self.changed.emit()
        if self.in_child_process:
            from vendiscope.gui.jobs.process import run_in_process

            call, args = run_in_process, (self._func, self._args, self._kwargs)
            kwargs: dict[str, Any] = {}
        else:
            call, args, kwargs = self._func, self._args, self._kwargs
        self._worker = create_worker(
            call,
            *args,
            progress=self.progress,
            cancel=self.cancel_token,
            _start_thread=False,
            _ignore_errors=True,  # errors are shown by the window, not re-raised
            **kwargs,
        )
        self._worker.returned.connect(self._on_returned)
        self._worker.errored.connect(self._on_errored)
        self._worker.finished.connect(self._on_finished)
        self._worker.start()

    def _on_progress(self, state: ProgressState) -> None:
        self.rates.add(state.completed)
        self.changed.emit()

    def _on_returned(self, result: Any) -> None:
        self.result = result
        self.state = JobState.DONE

    def _on_errored(self, error: BaseException) -> None:
        self.error = error
        child = getattr(error, "child_traceback", None)  # from a job's own process
        self.error_details = child or "".join(traceback.format_exception(error))
        cancelled = isinstance(error, Cancelled) or self.cancel_token.cancelled
        self.state = JobState.CANCELLED if cancelled else JobState.FAILED

    def _on_finished(self) -> None:
        if not self.state.finished:  # returned after a late cancel: it did complete
            self.state = JobState.DONE
        self._worker = None
        self.changed.emit()
        self.finished.emit(self)

    def _refuse(self, error: BaseException) -> None:
        """Fail a queued job without starting it (the project no longer takes writes)."""
        self.error = error
        self.state = JobState.FAILED
        self.changed.emit()
        self.finished.emit(self)

    def _skip(self) -> None:
        """Finish a queued job that was cancelled before it started."""
        self.state = JobState.CANCELLED
        self.changed.emit()
        self.finished.emit(self)


class JobManager(QObject):
    """Runs submitted jobs one at a time, in order, and keeps their history.

    ``run_in_child_process``: each job runs in a child process of its own
    (:mod:`vendiscope.gui.jobs.process`; the window passes
    :data:`~vendiscope.gui.jobs.process.JOBS_IN_CHILD_PROCESS`), except those submitted
    with ``in_thread``; False runs every job on a worker thread of this process.
    """

    job_added = Signal(object)
    job_finished = Signal(object)
    idle = Signal()

    def __init__(
        self, parent: QObject | None = None, *, run_in_child_process: bool = False
    ) -> None:
        super().__init__(parent)
        self.run_in_child_process = run_in_child_process
        self.jobs: list[Job] = []
        self.project: str | None = None  # the open project, which each submitted job records
        self._running: Job | None = None
        # Asked before each job starts: an error refuses it (e.g. the project file failed).
        self.gate: Callable[[Job], BaseException | None] | None = None

    def submit(
        self,
        title: str,
        func: Callable[..., Any],
        /,
        *args: Any,
        kind: str = "job",
        dataset: str | None = None,
        in_thread: bool = False,
        **kwargs: Any,
    ) -> Job:
        """Queue ``func(*args, progress=..., cancel=..., **kwargs)``; returns its :class:`Job`.

        With :attr:`run_in_child_process`, ``func`` (a module-level function, arguments
        picklable) runs in a child process (:mod:`vendiscope.gui.jobs.process`), as jobs that
        import torch must. ``in_thread`` keeps a light job (an import, an export, saving a
        subset) on a worker thread of this process whatever the setting: it starts at once.
        """
        job = Job(
            title,
            func,
            args,
            kwargs,
            kind=kind,
            dataset=dataset,
            in_child_process=self.run_in_child_process and not in_thread,
            parent=self,
        )
        job.project = self.project
        job.finished.connect(self._on_job_finished)
        self.jobs.append(job)
        self.job_added.emit(job)
        QTimer.singleShot(0, self._start_next)
        return job

    def active(self) -> list[Job]:
        """Jobs queued or running."""
        return [job for job in self.jobs if not job.state.finished]

    def running(self) -> Job | None:
        return self._running

    def cancel_all(self) -> None:
        for job in self.active():
            job.cancel()

    def clear_finished(self, *, project: str | None = None) -> list[Job]:
        """Forget the finished jobs (with ``project``: only those started in another
        project); the jobs forgotten."""
        gone = [
            job
            for job in self.jobs
            if job.state.finished and (project is None or job.project not in (None, project))
        ]
        self.jobs = [job for job in self.jobs if job not in gone]
        return gone

    def wait(self, timeout_ms: int = 120_000) -> bool:
        """Run the event loop until no job is active (or the timeout); True when idle."""
        if not self.active():
            return True
        loop = QEventLoop()
        self.idle.connect(loop.quit)
        timer = QTimer()
        timer.setSingleShot(True)
        timer.timeout.connect(loop.quit)
        timer.start(timeout_ms)
        QTimer.singleShot(0, self._start_next)
        loop.exec()
        self.idle.disconnect(loop.quit)
        return not self.active()

    # ------------------------------------------------------------------ scheduling
    def _start_next(self) -> None:
        if self._running is not None:
            return
        for job in self.jobs:
            if job.state != JobState.QUEUED:
                continue
            refusal = self.gate(job) if self.gate is not None else None
            if refusal is not None:
                job._refuse(refusal)
                continue
            self._running = job
            job._start()
            return
        if not self.active():
            self.idle.emit()

    def _on_job_finished(self, job: Job) -> None:
        if job is self._running:
            self._running = None
        self.job_finished.emit(job)
        QTimer.singleShot(0, self._start_next)


def start_now(
    title: str,
    func: Callable[..., Any],
    /,
    *args: Any,
    in_child_process: bool = False,
    parent: QObject | None = None,
    **kwargs: Any,
) -> Job:
    """Start a short job at once, outside any queue (a dialog's measurement, say).

    It writes nothing to the project, so it need not wait for the job manager's writer; cancel
    it with :meth:`Job.cancel` (a dialog does when it closes). The job is kept (parented to
    the application) until it finishes, so closing the widget that started it is safe. With
    ``in_child_process`` it runs in a child process (:mod:`vendiscope.gui.jobs.process`).
    """
    from PySide6.QtCore import QCoreApplication

    job = Job(
        title,
        func,
        args,
        kwargs,
        kind="measure",
        in_child_process=in_child_process,
        parent=parent or QCoreApplication.instance(),
    )
    _STARTED_NOW.add(job)
    job.finished.connect(_STARTED_NOW.discard)
    job._start()
    return job


_STARTED_NOW: set[Job] = set()
