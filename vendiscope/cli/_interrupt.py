"""Ctrl-C always ends a command: a second Ctrl-C at once, or :data:`GRACE_S` after the first.

The first Ctrl-C raises :class:`KeyboardInterrupt` in the command, as Python does: a job stops
between steps, its run is closed ``cancelled``, and the command exits 130 saying what was
kept. Code that swallows the exception (a plugin catching everything) or waits in native
code would keep the command running for ever, so the first Ctrl-C also starts a watchdog:
a second Ctrl-C, or the command still running :data:`GRACE_S` seconds later, ends the
process at once (exit status 130). SQLite keeps the project sound through such an end, and
the run watcher (:mod:`vendiscope.core.store.run_guard`) marks the runs left open
``interrupted``, naming them. The app does the same to a job's process after its grace
period (:mod:`vendiscope.gui.jobs.process`).

The watchdog hears the signals through :func:`signal.set_wakeup_fd`: the interpreter's C
handler writes there at once, even while the main thread is in a long native call where no
Python handler runs. ``VENDISCOPE_STOP_GRACE_S`` sets the grace period.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import threading
import time
from collections.abc import Iterator

from vendiscope.cli._output import STOPPED

ENV_GRACE = "VENDISCOPE_STOP_GRACE_S"
GRACE_S = 10.0
"""How long a command may go on after Ctrl-C before it is ended at once."""
NOTICE_S = 1.0
"""How long after Ctrl-C a command still running says how to stop it at once."""
EXIT_CODE = 130  # 128 + SIGINT, as a shell reports a Ctrl-C

_armed: int | None = None  # the write end of the wakeup pipe while guarded


def grace_s() -> float:
    """:data:`GRACE_S`, or the seconds ``VENDISCOPE_STOP_GRACE_S`` gives."""
    try:
        value = float(os.environ.get(ENV_GRACE, ""))
    except ValueError:
        return GRACE_S
    return value if value >= 0 else GRACE_S


@contextlib.contextmanager
def stop_guard() -> Iterator[None]:
    """Watch for Ctrl-C while the block runs (see the module docstring).

    Does nothing outside the main thread, where SIGINT is not Python's own handler (ignored
    by the shell, say, or handled by the caller), or where the wakeup descriptor is taken.
    """
    global _armed
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    ):
        yield
        return
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    try:
        previous = signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
    except ValueError:  # a platform that wants a socket here
        previous = None
    if previous != -1:
        if previous is not None:
            signal.set_wakeup_fd(previous)
        os.close(read_end)
        os.close(write_end)
        yield
        return
    _armed = write_end
    threading.Thread(target=_watch, args=(read_end, grace_s()), name="ctrl-c", daemon=True).start()
    try:
        yield
    finally:
        _disarm()


def _disarm() -> None:
    """Stop listening (the watchdog, once a Ctrl-C came, still keeps its deadline)."""
    global _armed
    if _armed is not None:
        with contextlib.suppress(ValueError):
            signal.set_wakeup_fd(-1)
        os.close(_armed)
        _armed = None


def _disarm_in_child() -> None:
    """A forked child's Ctrl-C is its own: it must not count as a second one of ours."""
    global _armed
    if _armed is not None:
        with contextlib.suppress(ValueError):
            signal.set_wakeup_fd(-1)
        _armed = None


os.register_at_fork(after_in_child=_disarm_in_child)


def _watch(read_end: int, grace: float) -> None:
    """Count the Ctrl-Cs on ``read_end``; end the process on the second, or after ``grace``."""
    first: float | None = None
    noticed = False
    listening = True
    while True:
        now = time.monotonic()
        timeout = None
        if first is not None:
            if now >= first + grace:
                _stop_now(f"still running {grace:g} s after Ctrl-C")
            timeout = first + grace - now
            if not noticed:
                timeout = min(timeout, max(0.0, first + NOTICE_S - now))
        if not listening:
            time.sleep(timeout if timeout is not None else 0)
        elif select.select([read_end], [], [], timeout)[0]:
            received = os.read(read_end, 64)
            if not received:  # the guard ended: keep the deadline, if a Ctrl-C started one
                os.close(read_end)
                if first is None:
                    return
                listening = False
            for number in received:
                if number != signal.SIGINT:
                    continue
                if first is not None:
                    _stop_now("Ctrl-C again")
                first = time.monotonic()
        if first is not None and not noticed and time.monotonic() >= first + NOTICE_S:
            noticed = True
            _say("stopping… (press Ctrl-C again to stop at once)")


def _say(line: str) -> None:
    """One line on stderr, written directly: the main thread may hold the console's lock."""
    with contextlib.suppress(OSError):
        os.write(2, f"\n{line}\n".encode(errors="replace"))


def _stop_now(reason: str) -> None:
    if os.isatty(2):
        with contextlib.suppress(OSError):
            os.write(2, b"\x1b[?25h")  # show the cursor a progress bar may have hidden
    _say(f"stopped at once ({reason}); {STOPPED}")
    os._exit(EXIT_CODE)
