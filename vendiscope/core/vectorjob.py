"""The shared skeleton of jobs that turn records into a vector set, chunk by chunk.

A job supplies one function, ``compute(records, progress)``, that returns the vectors of a
chunk of records; this module creates or resumes the vector set, skips committed chunks,
commits each new chunk, reports progress inside chunks, records the run, and finishes the
set. Embeddings and gradient features are both such jobs.

A job that can also run on another engine (:mod:`vendiscope.core.engines`, e.g. Ray actors)
supplies :class:`ChunkTasks` instead: ``prepare`` (on the driver: records to a picklable
payload), a :class:`~vendiscope.core.engines.ChunkWorker` (wherever the engine runs it:
payload to output) and ``assemble`` (on the driver: output to the chunk's vectors). Both
engines run the same three steps, so they compute the same vectors.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vendiscope.core.engines import ChunkWorker, EngineSession, LocalEngine
from vendiscope.core.jobs import CancelToken, NullProgress, Progress
from vendiscope.core.models import RecordRow
from vendiscope.core.project import Project
from vendiscope.core.runs import fail_run, finish_run, start_run
from vendiscope.core.store import vectors
from vendiscope.core.store.vectors import VectorSetInfo

if TYPE_CHECKING:
    import numpy as np


@dataclass
class ChunkResult:
    """The vectors of one chunk and what it took to make them."""

    vectors: np.ndarray
    counts: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class VectorJobResult:
    vector_set: VectorSetInfo
    resumed_from: int
    counts: dict[str, int]
    seconds: float
    already_complete: bool = False


@dataclass(frozen=True)
class VectorJob:
    """What a vector job produces: the set's name, kind, model and full configuration."""

    dataset: str
    name: str
    kind: str
    plugin: str
    model_id: str
    config: dict[str, Any]
    dim: int
    chunk_rows: int = vectors.DEFAULT_CHUNK_ROWS
    description: str = ""
    identity: tuple[str, ...] = ("model_id",)


class ChunkProgress:
    """Progress inside one chunk, reported to the job's progress as overall rows."""

    def __init__(self, outer: Progress, offset: int) -> None:
        self._outer = outer
        self._offset = offset

    def start(self, description: str, total: float | None = None, unit: str = "it") -> None:
        pass

    def update(self, completed: float, total: float | None = None) -> None:
        self._outer.update(self._offset + completed)

    def finish(self) -> None:
        pass


Compute = Callable[[Sequence[RecordRow], Progress], ChunkResult]


@dataclass
class ChunkTasks:
    """A vector job split for an engine: driver-side ``prepare``/``assemble``, a shippable worker.

    ``prepare(records)`` returns ``(payload, state)``: the payload goes to the worker, the
    state stays on the driver; ``assemble(records, state, output)`` turns the worker's output
    into the chunk's :class:`ChunkResult`.
    """

    worker: ChunkWorker
    prepare: Callable[[Sequence[RecordRow]], tuple[Any, Any]]
    assemble: Callable[[Sequence[RecordRow], Any, Any], ChunkResult]


class _ComputeWorker(ChunkWorker):
    """A plain ``compute`` function as a worker (in this process only: not shippable)."""

    def __init__(self, compute: Compute) -> None:
        self._compute = compute

    def compute(self, payload: Any, *, progress: Progress, cancel: CancelToken) -> Any:
        return self._compute(payload, progress)

    def __getstate__(self) -> dict[str, Any]:
        raise TypeError("this job computes in the driver process only; it cannot run on Ray")


def as_tasks(compute: Compute | ChunkTasks) -> ChunkTasks:
    if isinstance(compute, ChunkTasks):
        return compute
    return ChunkTasks(
        _ComputeWorker(compute),
        prepare=lambda records: (records, None),
        assemble=lambda records, state, output: output,
    )


def run_vector_job(
    project: Project,
    job: VectorJob,
    compute: Compute | ChunkTasks,
    *,
    session: EngineSession | None = None,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> VectorJobResult:
    """Create or resume ``job``'s vector set and fill its missing chunks with ``compute``.

    ``session`` holds the engine's workers (default: this process, chunk after chunk). The
    chunks are committed as the engine returns them, in any order; one another writer
    committed first (two jobs on one set) is left as it is.
    """
    started = time.perf_counter()
    progress = progress or NullProgress()
    cancel = cancel or CancelToken()
    tasks = as_tasks(compute)
    settings = {
        "kind": job.kind,
        "model": job.model_id,
        "params": job.config,
        "dim": job.dim,
        "chunk_rows": job.chunk_rows,
        "identity": job.identity,
    }
    existing = next(
        (s for s in vectors.list_sets(project, job.dataset) if s.name == job.name), None
    )
    if existing is not None and existing.status == vectors.COMPLETE:
        vectors.open_for_writing(project, job.dataset, job.name, **settings)  # refuses changes
        return VectorJobResult(existing, existing.n_rows, {}, 0.0, already_complete=True)

    run_id = start_run(
        project,
        key=f"{job.kind}:{job.dataset}:{job.name}",
        kind=job.kind,
        plugin=job.plugin,
        dataset_id=project.dataset(job.dataset).id,
        params=job.config,
    )
    counts: dict[str, int] = {}
    own_session = session is None
    if session is None:
        session = LocalEngine().start(tasks.worker)
    try:
        target = vectors.open_for_writing(project, job.dataset, job.name, run_id=run_id, **settings)
        done = vectors.committed_chunks(project, target)
        resumed_from = sum(len(range(*target.chunk_range(i))) for i in done)
        progress.start(
            job.description or f"{job.kind} {job.dataset}", total=target.n_rows, unit="records"
        )
        progress.update(resumed_from)
        completed = resumed_from
        held: dict[int, tuple[Sequence[RecordRow], Any]] = {}

        def items() -> Iterator[tuple[int, Any]]:
            nonlocal completed
            for index in range(target.n_chunks):
                if index in done:
                    continue
                if vectors.is_committed(project, target, index):  # by another writer, meanwhile
                    completed += len(range(*target.chunk_range(index)))
                    progress.update(completed)
                    continue
                cancel.raise_if_cancelled()
                start, stop = target.chunk_range(index)
                records = project.records(job.dataset, start, stop - start)
                payload, state = tasks.prepare(records)
                held[index] = (records, state)
                yield index, payload

        results = session.map(
            items(), cancel=cancel, progress_for=lambda index: ChunkProgress(progress, completed)
        )
        for index, output in results:
            records, state = held.pop(index)
            outcome = tasks.assemble(records, state, output)
            if vectors.write_chunk(project, target, index, outcome.vectors, if_exists="skip"):
                for key, value in outcome.counts.items():
                    counts[key] = counts.get(key, 0) + value
            completed += len(records)
            progress.update(completed)
        target = vectors.mark_complete(project, target)
        progress.finish()
    except BaseException as error:
        fail_run(project, run_id, error, cancelled=cancel.cancelled, started=started)
        raise
    finally:
        if own_session:
            session.close()
    seconds = time.perf_counter() - started
    summary = {"rows": target.n_rows, "dim": target.dim, "resumed_from": resumed_from, **counts}
    finish_run(project, run_id, status="complete", seconds=seconds, result=summary)
    return VectorJobResult(target, resumed_from, counts, seconds)
