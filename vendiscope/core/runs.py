"""Computations recorded as runs: what ran, with which parameters and versions, how it ended."""

from __future__ import annotations

import time
from datetime import datetime, timezone
from typing import Any

from sqlalchemy import update

from vendiscope.core.project import Project
from vendiscope.core.store.schema import Run
from vendiscope.core.versions import library_versions


def start_run(
    project: Project,
    *,
    key: str,
    kind: str,
    plugin: str,
    dataset_id: int | None,
    params: dict[str, Any],
    seed: int | None = None,
    packages: tuple[str, ...] = ("torch", "transformers", "sentence-transformers", "faiss-cpu"),
) -> int:
    """Insert a run in state ``running`` and return its id."""
    with project.session() as session, session.begin():
        run = Run(
            key=key,
            kind=kind,
            plugin=plugin,
            dataset_id=dataset_id,
            params=params,
            versions=library_versions(*packages),
            seed=seed,
            status="running",
            started_at=datetime.now(timezone.utc),
        )
        session.add(run)
        session.flush()
        return run.id


def finish_run(
    project: Project,
    run_id: int,
    *,
    status: str,
    result: dict[str, Any] | None = None,
    error: str | None = None,
    seconds: float | None = None,
) -> None:
    """Close a run with its status, result or error, and its duration."""
    values: dict[str, Any] = {
        "status": status,
        "result": result,
        "error": error,
        "finished_at": datetime.now(timezone.utc),
    }
    if seconds is not None:
        values["timings"] = {"seconds": round(seconds, 3)}
    with project.session() as session, session.begin():
        session.execute(update(Run).where(Run.id == run_id).values(**values))


def fail_run(
    project: Project, run_id: int, error: BaseException, *, cancelled: bool, started: float
) -> None:
    """Close a run that raised: ``cancelled`` when its token was cancelled, else ``failed``."""
    finish_run(
        project,
        run_id,
        status="cancelled" if cancelled else "failed",
        error=repr(error),
        seconds=time.perf_counter() - started,
    )
