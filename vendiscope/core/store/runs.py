"""Computations recorded as runs: what ran, with which parameters and versions, how it ended."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Collection, Iterator
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from vendiscope.core.base.versions import library_versions
from vendiscope.core.store import run_guard

if TYPE_CHECKING:
    from vendiscope.core.store.project import Project

# SQLAlchemy and the schema load with the first run, not with this module: the plugin
# registry imports it (for describe and set_plugin_namer), and importing vendiscope.api
# stays cheap.

STORE_PACKAGES = ("sqlalchemy",)
"""Recorded with every run besides the run's own packages."""


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
    from vendiscope.core.store.schema import Run

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
            versions=library_versions(*STORE_PACKAGES, *packages),
            seed=seed,
            status="running",
            started_at=datetime.now(timezone.utc),
            owner=owner,
        )
        session.add(run)
        session.flush()
        run_id = run.id
    run_guard.opened(project.location, run_id, describe(run_id, kind, plugin))
    return run_id


def describe(run_id: int, kind: str, contribution: str) -> str:
    """How messages name a run: ``run #5 (metric 'x' of plugin 'my-plugin')``.

    ``contribution`` is a run's ``plugin`` column (``KIND:NAME``); the plugin that offers it
    is named when this process knows it (:func:`set_plugin_namer`).
    """
    contribution_kind, _, name = contribution.partition(":")
    owner = ""
    if _plugin_namer is not None and name:
        with contextlib.suppress(Exception):
            owner = _plugin_namer(contribution_kind, name)
    label = f"{kind} {(name or contribution)!r}"
    return f"run #{run_id} ({label}" + (f" of plugin {owner!r})" if owner else ")")


_plugin_namer: Callable[[str, str], str] | None = None


def set_plugin_namer(namer: Callable[[str, str], str] | None) -> None:
    """``namer(kind, name)``: the plugin offering a contribution (the plugin registry sets it)."""
    global _plugin_namer
    _plugin_namer = namer


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
    from sqlalchemy import update

    from vendiscope.core.store.schema import Run

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
    run_guard.closed(project.location, run_id)


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


@runtime_checkable
class RunResult(Protocol):
    """A typed run result (e.g. :class:`vendiscope.core.selection.run_result.SelectionResult`):
    the run stores its ``to_json()`` (a dict with a ``"schema"`` version), and readers rebuild
    it with the class's ``from_json``."""

    def to_json(self) -> dict[str, Any]: ...


class RecordedRun:
    """A run in progress (from :func:`recorded_run`): its id, and how it will be closed."""

    def __init__(self, run_id: int, started: float | None = None) -> None:
        self.id = run_id
        self.started = time.perf_counter() if started is None else started
        self.status = "complete"
        self.result: dict[str, Any] | None = None
        self.finished_seconds: float | None = None

    def finish(
        self,
        result: dict[str, Any] | RunResult | None = None,
        *,
        status: str = "complete",
        seconds: float | None = None,
    ) -> None:
        """Close the run with ``result`` when the block ends (default: ``complete``, no result).

        Its duration is taken now (or is ``seconds``, the one a report already states), so
        the run's timing and the job's own report agree. A typed ``result`` (a
        :class:`RunResult`) is stored as its ``to_json()``.
        """
        if isinstance(result, RunResult):
            result = result.to_json()
        self.result, self.status = result, status
        self.finished_seconds = self.seconds if seconds is None else seconds

    @property
    def seconds(self) -> float:
        """Seconds since the work began (``started``, default: when the run was opened)."""
        return time.perf_counter() - self.started


@contextlib.contextmanager
def recorded_run(
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
    cancel: Any = None,
    started: float | None = None,
    stopped: Callable[[BaseException], bool] | None = None,
) -> Iterator[RecordedRun]:
    """Record the work done in the block as a run: started, then finished or failed.

    The block calls :meth:`RecordedRun.finish` with the run's result; an exception closes
    the run ``failed`` (``cancelled`` when ``cancel`` — a CancelToken — was cancelled, on
    Ctrl-C (:class:`KeyboardInterrupt`), or when ``stopped(error)`` says so) and goes on. A
    block that ends without calling ``finish`` closes the run ``complete`` without a result.
    ``started`` (a ``time.perf_counter()`` reading) is when the job began, for its timing
    (default: now).
    The one place runs are opened and closed around work::

        with recorded_run(project, key=..., kind="map", ...) as run:
            ...
            run.finish({"trust": 0.93})
    """
    run_id = start_run(
        project, key=key, kind=kind, plugin=plugin, dataset_id=dataset_id, params=params,
        seed=seed, packages=packages, owner=owner,
    )  # fmt: skip
    run = RecordedRun(run_id, started)
    try:
        yield run
    except BaseException as error:
        cancelled = bool(cancel is not None and cancel.cancelled)
        cancelled = cancelled or isinstance(error, KeyboardInterrupt)
        if stopped is not None and not cancelled:
            cancelled = stopped(error)
        fail_run(project, run.id, error, cancelled=cancelled, started=run.started)
        raise
    seconds = run.finished_seconds if run.finished_seconds is not None else run.seconds
    finish_run(project, run.id, status=run.status, result=run.result, seconds=seconds)


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
    from vendiscope.core.store.schema import Run

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
    from sqlalchemy import update

    from vendiscope.core.store.schema import Run

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


def claim_run(project: Project, run_id: int, description: str) -> None:
    """Take over an interrupted run in this process (it resumes): running again, owner us."""
    from sqlalchemy import update

    from vendiscope.core.base.jobs import this_process
    from vendiscope.core.store.schema import Run

    with project.engine.begin() as connection:
        connection.execute(
            update(Run)
            .where(Run.id == run_id)
            .values(status="running", owner=this_process(), finished_at=None, error=None)
        )
    run_guard.opened(project.location, run_id, description)


def update_result(project: Project, run_id: int, result: dict[str, Any]) -> None:
    """Set a running run's result (progress a reader can follow) without closing it."""
    from sqlalchemy import update

    from vendiscope.core.store.schema import Run

    with project.engine.begin() as connection:
        connection.execute(update(Run).where(Run.id == run_id).values(result=result))
