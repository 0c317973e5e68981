"""Run a job in a child Python process, relaying its progress and honouring Cancel.

Model jobs import torch, transformers and FAISS. Importing them holds Python's GIL for
hundreds of milliseconds at a time (C extension initialisation), which would freeze the
window even from a worker thread. So those jobs run in a fresh ``python -m
vendiscope.gui.job_process`` child: the GUI process never imports torch, a crash in native
code cannot take the window down, and the worker thread that waits for the child spends its
time blocked on a pipe (no GIL).

Protocol (pickle frames with a 4-byte length): the parent writes ``(func, args, kwargs)`` to
the child's stdin, then one byte ``C`` to cancel (or closes stdin: the child cancels when its
parent goes away). The child writes ``("start"|"update"|"finish", payload)`` progress frames
and then ``("result", value)`` or ``("error", pickled exception, message, traceback)`` to the
original stdout; anything libraries print goes to stderr.
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

from vendiscope.core.jobs import Cancelled, CancelToken, Progress

UPDATE_INTERVAL_S = 0.02
HEADER = struct.Struct("!I")


class JobProcessError(RuntimeError):
    """The job's process ended without an answer (it crashed or was killed)."""


def _write(stream: IO[bytes], item: object) -> None:
    data = pickle.dumps(item, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(HEADER.pack(len(data)) + data)
    stream.flush()


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
        [sys.executable, "-m", "vendiscope.gui.job_process"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert child.stdin is not None and child.stdout is not None
    done = threading.Event()

    def watch_cancel() -> None:
        while not done.wait(0.05):
            if cancel.cancelled:
                try:
                    child.stdin.write(b"C")
                    child.stdin.flush()
                except OSError:
                    pass
                return

    try:
        _write(child.stdin, (func, args, kwargs))
        threading.Thread(target=watch_cancel, name="job-cancel-watch", daemon=True).start()
        while True:
            try:
                kind, *payload = _read(child.stdout)
            except EOFError:
                code = child.wait()
                if cancel.cancelled:
                    raise Cancelled("the job was cancelled") from None
                raise JobProcessError(
                    f"the job's process ended unexpectedly (exit code {code})"
                ) from None
            if kind == "start":
                progress.start(*payload)
            elif kind == "update":
                progress.update(*payload)
            elif kind == "finish":
                progress.finish()
            elif kind == "result":
                return payload[0]
            elif kind == "error":
                raise _rebuild(*payload)
    finally:
        done.set()
        for stream in (child.stdin, child.stdout):
            with contextlib.suppress(OSError):
                stream.close()
        try:
            child.wait(timeout=30)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


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
    found.child_traceback = details  # type: ignore[attr-defined]
    return found


# ----------------------------------------------------------------------------- child
class _PipeProgress:
    """Progress sent to the parent, at most every :data:`UPDATE_INTERVAL_S` (last one kept)."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream
        self._lock = threading.Lock()
        self._last = 0.0
        self._pending: tuple[float, float | None] | None = None

    def _send(self, *item: object) -> None:
        with self._lock:
            _write(self._stream, item)

    def start(self, description: str, total: float | None = None, unit: str = "it") -> None:
        self._flush()
        self._send("start", description, total, unit)

    def update(self, completed: float, total: float | None = None) -> None:
        now = time.monotonic()
        self._pending = (float(completed), total)
        if now - self._last >= UPDATE_INTERVAL_S:
            self._flush()

    def finish(self) -> None:
        self._flush()
        self._send("finish")

    def _flush(self) -> None:
        pending, self._pending = self._pending, None
        if pending is not None:
            self._last = time.monotonic()
            self._send("update", *pending)


def _child_main() -> int:
    requests = sys.stdin.buffer
    answers = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # stray prints from libraries must not corrupt the answer stream
    sys.stdout = sys.stderr
    func, args, kwargs = _read(requests)
    token = CancelToken()

    def watch_parent() -> None:
        requests.read(1)  # b"C", or b"" when the parent closed the pipe: stop either way
        token.cancel()

    threading.Thread(target=watch_parent, name="job-parent-watch", daemon=True).start()
    progress = _PipeProgress(answers)
    try:
        result = func(*args, progress=progress, cancel=token, **kwargs)
    except BaseException as exc:
        progress._flush()
        details = traceback.format_exc()
        try:
            pickled: bytes | None = pickle.dumps(exc)
        except Exception:
            pickled = None
        progress._send("error", pickled, f"{type(exc).__name__}: {exc}", details)
        return 1
    progress._flush()
    progress._send("result", result)
    return 0


if __name__ == "__main__":
    sys.exit(_child_main())
