"""Module-level tasks for the job-process tests (a child process imports them by name)."""

from __future__ import annotations

import os
import sys
import time

from vendiscope.core.base.errors import InputError, Location
from vendiscope.core.base.jobs import CancelToken, Progress


def count(n: int, *, progress: Progress, cancel: CancelToken) -> dict:
    progress.start("counting", total=n, unit="records")
    for i in range(1, n + 1):
        progress.update(i)
    progress.finish()
    print("noise on stdout must not break the protocol")
    return {"counted": n, "torch_loaded_here": "torch" in sys.modules}


def fail(*, progress: Progress, cancel: CancelToken) -> None:
    raise InputError("malformed JSON", Location("data.jsonl", 12, "answer"))


def crash(*, progress: Progress, cancel: CancelToken) -> None:
    os._exit(3)


def wait_for_cancel(*, progress: Progress, cancel: CancelToken) -> None:
    progress.start("waiting", total=None)
    while True:
        cancel.raise_if_cancelled()
        time.sleep(0.01)


def update_then_wait(*, progress: Progress, cancel: CancelToken) -> str:
    """Two updates in a row (the second held back by the throttle), then wait for a cancel."""
    progress.start("waiting", total=2, unit="records")
    progress.update(1)
    progress.update(2)
    return "cancelled" if cancel.wait(30.0) else "the second update never arrived"


def ignore_cancel_in_a_run(location: str, *, progress: Progress, cancel: CancelToken) -> None:
    """A plugin-like job that opens a run and never looks at its cancel token."""
    from vendiscope.core.store.project import Project
    from vendiscope.core.store.runs import start_run

    with Project.open(location) as project:
        start_run(project, key="stuck", kind="metric", plugin="metric:stuck", dataset_id=None,
                  params={})  # fmt: skip
    progress.start("stuck", total=None)
    while True:
        time.sleep(0.05)


def exit_in_a_run(location: str, *, progress: Progress, cancel: CancelToken) -> None:
    """A plugin-like job that ends its process in the middle of a run."""
    from vendiscope.core.store.project import Project
    from vendiscope.core.store.runs import start_run

    with Project.open(location) as project:
        start_run(project, key="quits", kind="metric", plugin="metric:quits", dataset_id=None,
                  params={})  # fmt: skip
    os._exit(1)


def import_file(location: str, path: str, *, progress: Progress, cancel: CancelToken) -> int:
    """A real import (for the write-lock tests); the number of records imported."""
    from pathlib import Path

    from vendiscope.core.io.importing import import_dataset
    from vendiscope.core.store.project import Project

    with Project.open(location) as project:
        progress.start("importing", total=None)
        import_dataset(project, Path(path))
        return project.dataset(Path(path).stem).row_count


def missing_piece(location: str, what: str, *, progress: Progress, cancel: CancelToken) -> None:
    """What a job raises when something it needs is missing: NotComputed or MissingVectors."""
    from vendiscope.core.store.project import Project
    from vendiscope.core.vectors.resolve import resolve
    from vendiscope.core.view_data import data as viewdata

    with Project.open(location) as project:
        if what == "score":
            viewdata.score_summary(project, "tiny", "vendi")
        resolve(project, "tiny", None, ("embedding",))
