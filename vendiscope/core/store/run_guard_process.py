"""The watcher process of :mod:`vendiscope.core.store.run_guard`: closes a dead process's runs.

``python -m vendiscope.core.store.run_guard_process PID`` reads the watched process's run events on
its standard input until the pipe ends; the runs still open then are named on stderr and
marked ``interrupted``.
"""

from __future__ import annotations

import contextlib
import json
import sys
from typing import IO

from vendiscope.core.store.run_guard import OpenRuns


def watch(stream: IO[bytes], pid: int) -> None:
    """Read the watched process's runs until its pipe ends; close those left open."""
    open_runs = OpenRuns()
    for line in stream:
        with contextlib.suppress(ValueError):
            open_runs.note(json.loads(line))
    for (location, _run_id), what in open_runs.items():
        print(
            f"vendiscope: the process (pid {pid}) ended while {what} was running in "
            f"{location}; the run is marked interrupted",
            file=sys.stderr,
            flush=True,
        )
    close_open_runs(open_runs, pid)


def close_open_runs(open_runs: OpenRuns, pid: int | None = None) -> None:
    """Mark ``open_runs`` interrupted once process ``pid`` (None: already gone) has ended."""
    if not open_runs:
        return
    import time

    from vendiscope.core.base.jobs import process_state, this_process
    from vendiscope.core.store.project import Project
    from vendiscope.core.store.runs import close_interrupted_runs

    if pid is not None:
        owner = {**this_process(), "pid": pid, "created": None}
        deadline = time.monotonic() + 10.0  # the pipe ends a moment before the process is gone
        while process_state(owner).alive and time.monotonic() < deadline:
            time.sleep(0.05)
    for location in {location for location, _ in open_runs}:
        ids = [run_id for where, run_id in open_runs if where == location]
        with contextlib.suppress(Exception), Project.open(location) as project:
            close_interrupted_runs(project, ids)


if __name__ == "__main__":  # pragma: no cover - run as a child process
    watch(sys.stdin.buffer, int(sys.argv[1]))
