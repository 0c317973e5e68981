"""A watcher that closes the runs of a process that ends in the middle of them.

A plugin may end the process it runs in (``os._exit``, a crash in native code, a kill):
no ``finally`` runs, and its run would stay ``running``. The first run a process starts
launches a small watcher process (:mod:`vendiscope.core.store.run_guard_process`) that reads, on
its standard input, which runs are open. When that pipe ends — the watched process is gone
— with runs still open, the watcher prints one line per run to the standard error it
shares with the process, naming what ran (the contribution and its plugin), and marks them
``interrupted`` (:func:`vendiscope.core.store.runs.close_interrupted_runs`).

The watcher costs one small process per process that records runs; a process that never
records a run starts none. ``VENDISCOPE_RUN_WATCH=0`` turns it off.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from typing import IO, Any

Listener = Callable[[str, dict[str, Any]], None]

_lock = threading.Lock()
_pipe: IO[bytes] | None = None
_started = False
_listeners: list[Listener] = []


class OpenRuns(dict):  # type: ignore[type-arg]  # a plain dict subclass, keys and values vary
    """The runs a watched process has open, ``{(location, run id): what}``, from its events."""

    def note(self, message: dict[str, Any]) -> None:
        """Apply one ``opened``/``closed`` event (as :func:`opened` and :func:`closed` send)."""
        try:
            key = (str(message["location"]), int(message["run"]))
        except (KeyError, TypeError, ValueError):
            return
        if message.get("event") == "opened":
            self[key] = str(message.get("what") or f"run #{key[1]}")
        else:
            self.pop(key, None)


def disable() -> None:
    """Start no watcher in this process (one that manages its own runs, e.g. a test session)."""
    global _started
    with _lock:
        _started = True


def add_listener(listener: Listener) -> Callable[[], None]:
    """Call ``listener(event, run)`` (event ``opened``/``closed``) in this process; a remover."""
    _listeners.append(listener)
    return lambda: _listeners.remove(listener) if listener in _listeners else None


def opened(location: str, run_id: int, description: str) -> None:
    """Tell the watcher (started on the first call) that this process opened a run."""
    _send({"event": "opened", "location": location, "run": run_id, "what": description})


def closed(location: str, run_id: int) -> None:
    """Tell the watcher that a run of this process is closed."""
    _send({"event": "closed", "location": location, "run": run_id})


def _send(message: dict[str, Any]) -> None:
    for listener in list(_listeners):
        with contextlib.suppress(Exception):
            listener(message["event"], message)
    pipe = _watcher()
    if pipe is None:
        return
    with _lock, contextlib.suppress(OSError, ValueError):
        pipe.write(json.dumps(message).encode() + b"\n")
        pipe.flush()


def _watcher() -> IO[bytes] | None:
    global _pipe, _started
    with _lock:
        if not _started:
            _started = True
            if os.environ.get("VENDISCOPE_RUN_WATCH") != "0":
                with contextlib.suppress(OSError):
                    child = subprocess.Popen(
                        [
                            sys.executable,
                            "-m",
                            "vendiscope.core.store.run_guard_process",
                            str(os.getpid()),
                        ],
                        stdin=subprocess.PIPE,
                        stdout=subprocess.DEVNULL,
                        start_new_session=True,  # a Ctrl-C meant for the command spares it
                    )
                    _pipe = child.stdin
        return _pipe
