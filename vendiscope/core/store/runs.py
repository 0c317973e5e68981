"""Computations recorded as runs: what ran, with which parameters and versions, how it ended."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Collection
from datetime import datetime, timezone
from typing import Any

from sqlalchemy import update

from vendiscope.core.base.versions import library_versions
from vendiscope.core.store import run_watch
from vendiscope.core.store.project import Project
from vendiscope.core.store.schema import Run


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
    owner: dict[str, Any] | None = None,
) -> int:
    """Insert a run in state ``running`` and return its id.

    ``owner`` (default: this process, :func:`vendiscope.core.base.jobs.this_process`) records the
    process that runs it, so a reader can tell a run still in progress from one whose
    process was killed (:func:`interrupted_runs`).
    """
    if owner is None:
        from vendiscope.core.base.jobs import this_process

        owner = this_process()
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
            owner=owner,
        )
        session.add(run)
        session.flush()
        run_id = run.id
    run_watch.opened(project.location, run_id, describe(run_id, kind, plugin))
    return run_id


def describe(run_id: int, kind: str, contribution: str) -> str:
    """How messages name a run: ``run #5 (metric 'x' of plugin 'my-plugin')``.

    ``contribution`` is a run's ``plugin`` column (``KIND:NAME``); the plugin that offers it
    is named when this process's registry knows it.
    """
    from vendiscope.core.plugins.registry import loaded_registry

    contribution_kind, _, name = contribution.partition(":")
    owner, registry = "", loaded_registry()
    if registry is not None and name:
        with contextlib.suppress(Exception):
            owner = registry.get(contribution_kind, name).plugin
    label = f"{kind} {(name or contribution)!r}"
    return f"run #{run_id} ({label}" + (f" of plugin {owner!r})" if owner else ")")


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
    run_watch.closed(project.location, run_id)


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


def interrupted_runs(
    project: Project, run_ids: Collection[int] | None = None
) -> list[tuple[int, str, str]]:
    """Runs left ``running`` by a process that is gone: ``(id, what, who)`` each.

    ``what`` names the run's kind and the contribution it ran (``metric, metric:vendi``), so
    a plugin that ended its process in the middle of a job is named afterwards.

    A run whose process cannot be checked (another host) is not listed; one recorded before
    processes were (no owner) is, since no live job of this version can own it. ``run_ids``
    limits the answer to those runs.
    """
    from sqlalchemy import select

    from vendiscope.core.base.jobs import process_state

    with project.session() as session:
        query = select(Run.id, Run.kind, Run.plugin, Run.owner).where(Run.status == "running")
        if run_ids is not None:
            query = query.where(Run.id.in_(list(run_ids)))
        rows = session.execute(query).all()
    found = []
    for run_id, kind, plugin, owner in rows:
        if process_state(owner).alive is False:
            who = f"pid {owner['pid']} on {owner.get('host')}" if owner else "an unknown process"
            found.append((run_id, f"{kind}, {plugin}", who))
    return found


def close_interrupted_runs(
    project: Project, run_ids: Collection[int] | None = None
) -> list[tuple[int, str, str]]:
    """Mark :func:`interrupted_runs` ``interrupted``: their process ended without closing them."""
    found = interrupted_runs(project, run_ids)
    for run_id, _kind, who in found:
        with project.session() as session, session.begin():
            session.execute(
                update(Run)
                .where(Run.id == run_id, Run.status == "running")
                .values(
                    status="interrupted",
                    error=f"interrupted: {who} ended without closing the run",
                    finished_at=datetime.now(timezone.utc),
                )
            )
    return found
