"""The shared skeleton of jobs that turn records into a vector set, chunk by chunk.

A job supplies one function, ``compute(records, progress)``, that returns the vectors of a
chunk of records; this module creates or resumes the vector set, skips committed chunks,
commits each new chunk, reports progress inside chunks, records the run, and finishes the
set. Embeddings and gradient features are both such jobs.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

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


def run_vector_job(
    project: Project,
    job: VectorJob,
    compute: Compute,
    *,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> VectorJobResult:
    """Create or resume ``job``'s vector set and fill its missing chunks with ``compute``."""
    started = time.perf_counter()
    progress = progress or NullProgress()
    cancel = cancel or CancelToken()
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
    try:
        target = vectors.open_for_writing(project, job.dataset, job.name, run_id=run_id, **settings)
        done = vectors.committed_chunks(project, target)
        resumed_from = sum(len(range(*target.chunk_range(i))) for i in done)
        progress.start(
            job.description or f"{job.kind} {job.dataset}", total=target.n_rows, unit="records"
        )
        progress.update(resumed_from)
        completed = resumed_from
        for index in range(target.n_chunks):
            if index in done:
                continue
            cancel.raise_if_cancelled()
            start, stop = target.chunk_range(index)
            records = project.records(job.dataset, start, stop - start)
            outcome = compute(records, ChunkProgress(progress, completed))
            vectors.write_chunk(project, target, index, outcome.vectors)
            for key, value in outcome.counts.items():
                counts[key] = counts.get(key, 0) + value
            completed += stop - start
            progress.update(completed)
        target = vectors.mark_complete(project, target)
        progress.finish()
    except BaseException as error:
        fail_run(project, run_id, error, cancelled=cancel.cancelled, started=started)
        raise
    seconds = time.perf_counter() - started
    summary = {"rows": target.n_rows, "dim": target.dim, "resumed_from": resumed_from, **counts}
    finish_run(project, run_id, status="complete", seconds=seconds, result=summary)
    return VectorJobResult(target, resumed_from, counts, seconds)
