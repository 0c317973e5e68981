"""Run a job in a child Python process, relaying its progress and honouring Cancel.

Model jobs import torch, transformers and FAISS. Importing them holds Python's GIL for
hundreds of milliseconds at a time (C extension initialisation), which would freeze the
window even from a worker thread. So those jobs run in a fresh ``python -m
vendiscope.gui.jobs.process`` child: the GUI process never imports torch, a crash in native
code cannot take the window down, and the worker thread that waits for the child spends its
time blocked on a pipe (no GIL).

Protocol (pickle frames with a 4-byte length): the parent writes ``(func, args, kwargs)`` to
the child's stdin, then one byte ``C`` to cancel (or closes stdin: the child cancels when its
parent goes away). The child writes ``("start"|"update"|"finish", payload)`` progress frames,
``("notice", text)`` while it waits for another process's write lock (``text`` None when it
goes on; shown as the job's description), and then ``("result", value)`` or ``("error",
pickled exception, message, traceback)`` to the original stdout; anything libraries print
goes to stderr.

Cancel reaches the child at once (the token's
:meth:`~vendiscope.core.base.jobs.CancelToken.on_cancel`
writes the byte; no polling), and the job stops at its next check: model jobs check between
batches and inside them. A child that has not ended :data:`CANCEL_GRACE_S` after a cancel
(stuck in native code, or a plugin that ignores the cancel) is terminated, and killed
:data:`KILL_GRACE_S` later; its committed chunks stay, and its vector set then reads as
interrupted and resumable.

The child also reports the runs it opens and closes (``("run", event, run)`` frames, from
:mod:`vendiscope.core.store.run_guard`): when it ends with runs open — a plugin ended the
process, a crash, the kill after a cancel — the parent names them in its error and marks
them interrupted.

The child reads and writes the pipes with ``os.read``/``os.write`` on their own file
descriptors, never through ``sys.stdin``'s buffered reader: a daemon thread blocked inside
a buffered read holds its lock, and the interpreter's shutdown then aborts with "Fatal
Python error: _enter_buffered_busy".
"""

from __future__ import annotations

import contextlib
import os
import pickle
import struct
import subprocess
import sys
import threading
import time
import traceback
from typing import IO, Any

from vendiscope.core.base.jobs import Cancelled, CancelToken, Progress
from vendiscope.core.store.run_guard import OpenRuns

JOBS_IN_CHILD_PROCESS = os.environ.get("VENDISCOPE_JOBS_IN_THREADS") != "1"
"""Whether the app runs its model jobs (and their measurements) in a child process each, as
above; ``VENDISCOPE_JOBS_IN_THREADS=1`` runs them on a worker thread of the GUI process
instead (easier to debug). The main window hands it to its
:class:`~vendiscope.gui.jobs.manager.JobManager`."""
UPDATE_INTERVAL_S = 0.02
CANCEL_GRACE_S = 4.0
"""How long a cancelled child may take to stop before it is terminated."""
KILL_GRACE_S = 2.0
"""How long a terminated child may take to exit before it is killed."""
HEADER = struct.Struct("!I")


class JobProcessError(RuntimeError):
    """The job's process ended without an answer (it crashed or was killed)."""


def _write(stream: IO[bytes], item: object) -> None:
    data = pickle.dumps(item, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(HEADER.pack(len(data)) + data)
    stream.flush()


def _frame(item: object) -> bytes:
    data = pickle.dumps(item, protocol=pickle.HIGHEST_PROTOCOL)
    return HEADER.pack(len(data)) + data


def _write_fd(fd: int, item: object) -> None:
    view = memoryview(_frame(item))
    while view:
        view = view[os.write(fd, view) :]


def _read_exactly(fd: int, size: int) -> bytes:
    parts, left = [], size
    while left:
        part = os.read(fd, left)
        if not part:
            raise EOFError
        parts.append(part)
        left -= len(part)
    return b"".join(parts)


def _read_fd(fd: int) -> Any:
    size = HEADER.unpack(_read_exactly(fd, HEADER.size))[0]
    return pickle.loads(_read_exactly(fd, size))


def _read(stream: IO[bytes]) -> Any:
    header = stream.read(HEADER.size)
    if len(header) < HEADER.size:
        raise EOFError
    size = HEADER.unpack(header)[0]
    data = stream.read(size)
    if len(data) < size:
        raise EOFError
    return pickle.loads(data)


# ----------------------------------------------------------------------------- parent
def run_in_process(
    func: Any,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    *,
    progress: Progress,
    cancel: CancelToken,
) -> Any:
    """``func(*args, progress=..., cancel=..., **kwargs)`` in a child process; its result."""
    child = subprocess.Popen(
        [sys.executable, "-m", "vendiscope.gui.jobs.process"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert child.stdin is not None and child.stdout is not None
    done = threading.Event()
    pipe = threading.Lock()  # the request, the cancel byte and the close never interleave

    def tell_child() -> None:
        with pipe:
            if not done.is_set():
                with contextlib.suppress(OSError, ValueError):
                    child.stdin.write(b"C")
                    child.stdin.flush()
        threading.Thread(target=kill_if_stuck, name="job-cancel-grace", daemon=True).start()

    def kill_if_stuck() -> None:
        if not done.wait(CANCEL_GRACE_S) and child.poll() is None:
            child.terminate()  # chunks already committed stay; the set reads as interrupted
            if not done.wait(KILL_GRACE_S) and child.poll() is None:
                child.kill()

    forget = lambda: None  # noqa: E731 - replaced once the request is sent
    open_runs = OpenRuns()
    started: list[Any] = []
    try:
        with pipe:
            _write(child.stdin, (func, args, kwargs))
        forget = cancel.on_cancel(tell_child)
        while True:
            try:
                kind, *payload = _read(child.stdout)
            except EOFError:
                code = child.wait()
                running = _close_runs(open_runs)
                if cancel.cancelled:
                    raise Cancelled("the job was cancelled") from None
                raise JobProcessError(
                    f"the job's process ended unexpectedly (exit code {code}){running}"
                ) from None
            if kind == "start":
                started = payload
                progress.start(*payload)
            elif kind == "notice":  # waiting for another process's write lock, then not
                if payload[0]:
                    progress.start(payload[0], None)
                elif started:
                    progress.start(*started)
            elif kind == "update":
                progress.update(*payload)
            elif kind == "finish":
                progress.finish()
            elif kind == "run":
                open_runs.note(payload[1])
            elif kind == "result":
                return payload[0]
            elif kind == "error":
                raise _rebuild(*payload)
    finally:
        forget()
        with pipe:
            done.set()
        for stream in (child.stdin, child.stdout):
            with contextlib.suppress(OSError):
                stream.close()
        try:
            child.wait(timeout=30)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


def _close_runs(open_runs: OpenRuns) -> str:
    """Mark the runs a dead child left open interrupted; the words naming them, or ``""``."""
    if not open_runs:
        return ""
    from vendiscope.core.store.run_guard_process import close_open_runs

    close_open_runs(open_runs)
    return f" while {' and '.join(open_runs.values())} was running; marked interrupted"


def _rebuild(pickled: bytes | None, message: str, details: str) -> BaseException:
    """The child's exception (or a JobProcessError with its message), with its traceback."""
    found: BaseException | None = None
    if pickled is not None:
        try:
            found = pickle.loads(pickled)
        except Exception:
            found = None
    if not isinstance(found, BaseException):
        found = JobProcessError(message)
    # mypy, on the next line: extra attribute set on any exception
    found.child_traceback = details  # type: ignore[attr-defined]
    return found


# ----------------------------------------------------------------------------- child
class _PipeProgress:
    """Progress sent to the parent, at most every :data:`UPDATE_INTERVAL_S` (last one kept).

    An update held back by the throttle is sent by a flusher thread once the interval has
    passed, so the parent never waits for the job's next update to see the latest one.
    Frames go out with ``os.write`` on the answer pipe's descriptor.
    """

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._lock = threading.Lock()
        self._last = 0.0
        self._pending: tuple[float, float | None] | None = None
        self._wake = threading.Event()
        self._closed = False
        self._flusher = threading.Thread(target=self._flush_later, name="job-progress", daemon=True)
        self._flusher.start()

    def _send(self, *item: object) -> None:
        with self._lock:
            _write_fd(self._fd, item)

    def start(self, description: str, total: float | None = None, unit: str = "it") -> None:
        self._flush()
        self._send("start", description, total, unit)

    def update(self, completed: float, total: float | None = None) -> None:
        now = time.monotonic()
        self._pending = (float(completed), total)
        if now - self._last >= UPDATE_INTERVAL_S:
            self._flush()
        else:
            self._wake.set()

    def finish(self) -> None:
        self._flush()
        self._send("finish")

    def close(self) -> None:
        """Send what is pending and stop the flusher thread."""
        self._closed = True
        self._wake.set()
        self._flusher.join(timeout=5)
        self._flush()

    def _flush(self) -> None:
        with self._lock:
            pending, self._pending = self._pending, None
            if pending is not None:
                self._last = time.monotonic()
                _write_fd(self._fd, ("update", *pending))

    def _flush_later(self) -> None:
        while True:
            self._wake.wait()
            self._wake.clear()
            if self._closed:
                return
            time.sleep(UPDATE_INTERVAL_S)
            self._flush()


def _child_main() -> int:
    requests = os.dup(0)
    answers = os.dup(1)
    os.dup2(2, 1)  # stray prints from libraries must not corrupt the answer stream
    sys.stdout = sys.stderr
    func, args, kwargs = _read_fd(requests)
    token = CancelToken()

    def watch_parent() -> None:
        # b"C", or b"" when the parent closed the pipe: stop either way. os.read on our own
        # descriptor takes no lock of sys.stdin's, so exiting while blocked here is clean.
        with contextlib.suppress(OSError):
            os.read(requests, 1)
        token.cancel()

    threading.Thread(target=watch_parent, name="job-parent-watch", daemon=True).start()
    progress = _PipeProgress(answers)
    from vendiscope.core.store import run_guard, waiting

    run_guard.add_listener(lambda event, run: progress._send("run", event, run))
    waiting.add_notice(lambda message: progress._send("notice", message))
    try:
        result = func(*args, progress=progress, cancel=token, **kwargs)
    except BaseException as exc:
        progress.close()
        details = traceback.format_exc()
        try:
            pickled: bytes | None = pickle.dumps(exc)
        except Exception:
            pickled = None
        progress._send("error", pickled, f"{type(exc).__name__}: {exc}", details)
        return 1
    progress.close()
    progress._send("result", result)
    return 0


if __name__ == "__main__":
    sys.exit(_child_main())
