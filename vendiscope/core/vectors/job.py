"""The shared skeleton of jobs that turn records into a vector set, chunk by chunk.

A job supplies one function, ``compute(records, progress)``, that returns the vectors of a
chunk of records; this module creates or resumes the vector set, skips committed chunks,
commits each new chunk, reports progress inside chunks, records the run, and finishes the
set. Embeddings and gradient features are both such jobs.

:func:`measure` estimates a job before it runs: it loads the model, times the job's own
worker on a few records spread over the dataset, and extrapolates to the records left to do
(:class:`JobEstimate`), so the estimate is of this machine and this data.

Commit by time: a job whose ``size_chunks`` is set (embeddings and features, unless a chunk
size is given) computes its first :data:`PROBE_ROWS` rows in one timed call before it
creates the set, and sizes the set's chunks so one takes about half of
:data:`COMMIT_SECONDS` at that rate (at most ``chunk_rows``; the rows computed are kept), so
a slow model still commits about once a minute. The size is the set's
for good: a resume uses the stored one, so chunk ``i`` always holds the same rows.

A job that can also run on another engine (:mod:`vendiscope.core.vectors.engines`, e.g. Ray actors)
supplies :class:`ChunkTasks` instead: ``prepare`` (on the driver: records to a picklable
payload), a :class:`~vendiscope.core.vectors.engines.ChunkWorker` (wherever the engine runs it:
payload to output) and ``assemble`` (on the driver: output to the chunk's vectors). Both
engines run the same three steps, so they compute the same vectors.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from vendiscope.core.base.errors import ProjectError
from vendiscope.core.base.jobs import (
    CancelToken,
    NullProgress,
    PartProgress,
    Progress,
    this_process,
)
from vendiscope.core.store import vectors
from vendiscope.core.store.models import RecordRow
from vendiscope.core.store.project import Project
from vendiscope.core.store.runs import close_interrupted_runs, recorded_run
from vendiscope.core.store.vectors import VectorSetInfo
from vendiscope.core.vectors.engines import ChunkWorker, EngineSession, LocalEngine

if TYPE_CHECKING:
    import numpy as np

COMMIT_SECONDS = 60.0
"""A sized job commits at least about this often (see the module's docstring)."""
CHUNK_SHARE = 0.5
"""A sized chunk should take this share of ``commit_seconds`` at the first rows' rate: room
for rows slower than the first."""
PROBE_ROWS = 8
"""The first rows, computed in one timed call, that size a new set's chunks."""
PROBE_LIMIT = 512
"""The most rows the probe goes over looking for rows that are not reused."""


@dataclass
class ChunkResult:
    """The vectors of one chunk and what it took to make them."""

    vectors: np.ndarray
    counts: dict[str, int] = field(default_factory=dict)
    side: np.ndarray | None = None
    """The chunk's rows of the job's :class:`SideSet` (None: none computed for this chunk)."""
    texts: dict[str, list[str | None]] = field(default_factory=dict)
    """A signal's text columns: name -> one text (or ``None``) per row, committed with the
    rows in one transaction (:func:`vendiscope.core.store.vectors.write_chunk`)."""


@dataclass(frozen=True)
class VectorJobResult:
    vector_set: VectorSetInfo
    resumed_from: int
    counts: dict[str, int]
    seconds: float
    already_complete: bool = False


@dataclass(frozen=True)
class SideSet:
    """A second vector set a job fills beside its own, chunk for chunk, from values its
    computation gives on the way (each record's loss, beside its gradients).

    A chunk whose side rows are not computed (rows copied from another set) is left out; the
    side set is marked complete only when every chunk is there, and its own job (e.g. the
    signal's) fills what is missing when it runs.
    """

    name: str
    kind: str
    model_id: str
    config: dict[str, Any]
    dim: int
    identity: tuple[str, ...]


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
    size_chunks: bool = False
    """``chunk_rows`` is the most: smaller when the first rows say a chunk would take long."""
    side: SideSet | None = None


Compute = Callable[[Sequence[RecordRow], Progress], ChunkResult]


@dataclass
class ChunkTasks:
    """A vector job split for an engine: driver-side ``prepare``/``assemble``, a shippable worker.

    ``prepare(records)`` returns ``(payload, state)``: the payload goes to the worker, the
    state stays on the driver; ``assemble(records, state, output)`` turns the worker's output
    into the chunk's :class:`ChunkResult`. A payload of ``None`` means nothing to compute
    (every row reused): the chunk is assembled (with output ``None``) and committed on the
    driver, without the engine.
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
    commit_seconds: float = COMMIT_SECONDS,
) -> VectorJobResult:
    """Create or resume ``job``'s vector set and fill its missing chunks with ``compute``.

    ``session`` holds the engine's workers (default: this process, chunk after chunk). The
    chunks are committed as the engine returns them, in any order; one another writer
    committed first (two jobs on one set) is left as it is. With ``job.size_chunks``, a new
    set's chunks are sized so one takes about half of ``commit_seconds``.
    """
    started = time.perf_counter()
    progress = progress or NullProgress()
    cancel = cancel or CancelToken()
    tasks = as_tasks(compute)
    existing = next(
        (s for s in vectors.list_sets(project, job.dataset) if s.name == job.name), None
    )
    if existing is not None and job.size_chunks:  # resume with the set's own chunk size
        job = replace(job, chunk_rows=existing.chunk_rows, size_chunks=False)
    settings = {
        "kind": job.kind,
        "model": job.model_id,
        "params": job.config,
        "dim": job.dim,
        "chunk_rows": job.chunk_rows,
        "identity": job.identity,
    }
    if existing is not None and existing.status == vectors.COMPLETE:
        vectors.open_for_writing(project, job.dataset, job.name, **settings)  # refuses changes
        return VectorJobResult(existing, existing.n_rows, {}, 0.0, already_complete=True)

    if existing is not None:
        earlier = [run_id for run_id, _status, _owner in vectors.writer_runs(project, existing)]
        close_interrupted_runs(project, earlier)  # killed earlier: say so in their runs
    counts: dict[str, int] = {}
    own_session = session is None
    with recorded_run(
        project,
        key=f"{job.kind}:{job.dataset}:{job.name}",
        kind=job.kind,
        plugin=job.plugin,
        dataset_id=project.dataset(job.dataset).id,
        params=job.config,
        owner=this_process(),  # tells this running job from a killed one (vectors.set_state)
        cancel=cancel,
        started=started,
        stopped=lambda error: isinstance(error, KeyboardInterrupt),  # Ctrl-C: a cancel
    ) as run:
        if session is None:
            session = LocalEngine().start(tasks.worker)
        try:
            sized = _Sizing(job, commit_seconds)
            target, resumed_from = _fill(
                project, job, tasks, settings, run.id, session, counts, progress, cancel, sized
            )
        finally:
            if own_session:
                session.close()
        seconds = run.seconds
        summary = {"rows": target.n_rows, "dim": target.dim, "resumed_from": resumed_from, **counts}
        run.finish(summary, seconds=seconds)
    return VectorJobResult(target, resumed_from, counts, seconds)


@dataclass
class _Sizing:
    """The chunk size of a new sized set, and the first rows, computed to choose it (kept:
    they are the set's first rows, committed with their chunks)."""

    job: VectorJob
    commit_seconds: float
    rows: ChunkResult | None = None

    def probe(
        self,
        project: Project,
        tasks: ChunkTasks,
        session: EngineSession,
        cancel: CancelToken,
    ) -> int:
        """Compute the first :data:`PROBE_ROWS` rows in one call, timed; the chunk size.

        One call of several rows, as a chunk's batches are: a model with a large cost per
        call (a batch's projections) would look many times slower per row on one row alone.
        When the first rows are all reused (copied from another set), the probe goes on over
        the next rows, up to :data:`PROBE_LIMIT`, until some need computing, and times those;
        every row it went over is kept for its chunk. A chunk sized without a measurement
        could hold many minutes of work, all lost to a kill.
        """
        n = project.dataset(self.job.dataset).row_count
        offset, computed, seconds = 0, 0, 0.0
        while offset < min(n, PROBE_LIMIT) and not computed:
            cancel.raise_if_cancelled()
            records = project.records(self.job.dataset, offset, min(n - offset, PROBE_ROWS))
            payload, state = tasks.prepare(records)
            output = None
            if payload is not None:
                started = time.perf_counter()
                ((_, output),) = list(session.map([(-1, payload)], cancel=cancel))
                seconds = time.perf_counter() - started
                computed = len(payload)
            found = tasks.assemble(records, state, output)
            self.rows = found if self.rows is None else _joined(self.rows, found)
            offset += len(records)
        if not computed:  # nothing measured: every row probed is reused
            return self.job.chunk_rows
        per_row = seconds / computed
        rows = int(self.commit_seconds * CHUNK_SHARE / max(per_row, 1e-9))
        return max(1, min(self.job.chunk_rows, rows))

    def take(self, start: int, stop: int) -> ChunkResult | None:
        """The probed rows of chunk ``[start, stop)`` (its first rows, or all of them); the
        probe's counts go with the first chunk."""
        if self.rows is None or start >= len(self.rows.vectors):
            return None
        counts = dict(self.rows.counts) if start == 0 else {}
        side = self.rows.side[start:stop] if self.rows.side is not None else None
        texts = {name: column[start:stop] for name, column in self.rows.texts.items()}
        return ChunkResult(self.rows.vectors[start:stop], counts, side, texts)


def _joined(head: ChunkResult, rest: ChunkResult) -> ChunkResult:
    """The rows of ``head`` then ``rest``, with their counts added."""
    import numpy as np

    counts = dict(head.counts)
    for key, value in rest.counts.items():
        counts[key] = counts.get(key, 0) + value
    side = None
    if head.side is not None and rest.side is not None:
        side = np.concatenate([head.side, rest.side])
    texts = {
        name: [
            *head.texts.get(name, [None] * len(head.vectors)),
            *rest.texts.get(name, [None] * len(rest.vectors)),
        ]
        for name in {*head.texts, *rest.texts}
    }
    return ChunkResult(np.concatenate([head.vectors, rest.vectors]), counts, side, texts)


def _fill(
    project: Project,
    job: VectorJob,
    tasks: ChunkTasks,
    settings: dict[str, Any],
    run_id: int,
    session: EngineSession,
    counts: dict[str, int],
    progress: Progress,
    cancel: CancelToken,
    sized: _Sizing,
) -> tuple[VectorSetInfo, int]:
    """Open the set for writing, fill its missing chunks, and mark it complete."""
    import numpy as np

    description = job.description or f"{job.kind} {job.dataset}"
    if job.size_chunks:
        progress.start(description, total=project.dataset(job.dataset).row_count, unit="records")
        settings = {**settings, "chunk_rows": sized.probe(project, tasks, session, cancel)}
        made = next(
            (s for s in vectors.list_sets(project, job.dataset) if s.name == job.name), None
        )
        if made is not None:  # another job created it meanwhile: its chunk size holds
            settings["chunk_rows"] = made.chunk_rows
    target = vectors.open_for_writing(project, job.dataset, job.name, run_id=run_id, **settings)
    done = vectors.committed_chunks(project, target)
    side = _open_side(project, job, target, run_id)
    resumed_from = sum(len(range(*target.chunk_range(i))) for i in done)
    if not job.size_chunks:
        progress.start(description, total=target.n_rows, unit="records")
    progress.update(resumed_from)
    completed = resumed_from
    held: dict[int, tuple[Sequence[RecordRow], Any, ChunkResult | None]] = {}

    def commit(index: int, output: Any) -> None:
        nonlocal completed
        records, state, head = held.pop(index)
        if records:
            outcome = tasks.assemble(records, state, output)
        else:  # every row was computed by the probe (head)
            none = np.empty((0, side.dim), dtype=np.float32) if side is not None else None
            outcome = ChunkResult(np.empty((0, target.dim), dtype=np.float32), side=none)
        if head is not None:  # the chunk's first rows, computed by the probe
            outcome = _joined(head, outcome)
        texts = outcome.texts or None
        if vectors.write_chunk(
            project, target, index, outcome.vectors, if_exists="skip", texts=texts
        ):
            for key, value in outcome.counts.items():
                counts[key] = counts.get(key, 0) + value
            if side is not None and outcome.side is not None:
                vectors.write_chunk(project, side, index, outcome.side, if_exists="skip")
        completed += outcome.vectors.shape[0]
        progress.update(completed)

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
            head = sized.take(start, stop)
            if head is not None:
                records = records[len(head.vectors) :]
            payload, state = tasks.prepare(records) if records else (None, None)
            held[index] = (records, state, head)
            if payload is None:  # nothing to compute: commit here, without the engine
                commit(index, None)
                continue
            yield index, payload

    def progress_for(index: int) -> PartProgress:
        return PartProgress(progress, completed, len(range(*target.chunk_range(index))))

    for index, output in session.map(items(), cancel=cancel, progress_for=progress_for):
        commit(index, output)
    target = vectors.mark_complete(project, target)
    if side is not None and len(vectors.committed_chunks(project, side)) == side.n_chunks:
        vectors.mark_complete(project, side)
    progress.finish()
    return target, resumed_from


def _open_side(
    project: Project, job: VectorJob, target: VectorSetInfo, run_id: int
) -> VectorSetInfo | None:
    """The job's side set, open for writing with the target's chunks; None when there is
    none, when it is complete, or when one of that name has other settings or chunks."""
    spec = job.side
    if spec is None:
        return None
    found = next((s for s in vectors.list_sets(project, job.dataset) if s.name == spec.name), None)
    if found is not None and (
        found.status == vectors.COMPLETE
        or found.chunk_rows != target.chunk_rows
        or found.params.get("model_id") != spec.model_id
    ):
        return None
    try:
        return vectors.open_for_writing(
            project, job.dataset, spec.name, kind=spec.kind, model=spec.model_id,
            params=spec.config, dim=spec.dim, chunk_rows=target.chunk_rows, run_id=run_id,
            identity=spec.identity,
        )  # fmt: skip
    except ProjectError:  # made meanwhile with other settings: its own job decides
        return None


# ----------------------------------------------------------------------------- estimates
CALIBRATION_RECORDS = 8
"""Records timed first; more (up to :data:`CALIBRATION_MAX`) when those take under
:data:`CALIBRATION_MIN_S` (a fast model whose batches are much larger than 8)."""
CALIBRATION_MIN_S = 2.0
CALIBRATION_MAX = 128
CALIBRATION_CANDIDATES = 256


@dataclass(frozen=True)
class JobEstimate:
    """How long a vector job should take here, measured on a sample of its own records."""

    records: int
    """Records the job still has to compute (the dataset, less chunks already committed)."""
    measured: int
    measured_seconds: float
    load_seconds: float
    """Loading the model, measured once (the job pays it once too)."""
    memory: str = ""
    """What the job's worker plans to use, in words (``peak memory about 1.9 GB ...``)."""
    expected_peak_bytes: int | None = None

    @property
    def seconds_per_record(self) -> float:
        return self.measured_seconds / max(self.measured, 1)

    @property
    def seconds(self) -> float:
        return self.load_seconds + self.seconds_per_record * self.records

    def describe(self) -> str:
        """``about 9 minutes on this machine for 300 records (1.8 s per record, measured on
        8 records; loading the model: 7 s)``."""
        if not self.records or not self.measured:
            return "nothing to compute: every row of the vector set is already there"
        per = self.seconds_per_record
        rate = f"{per:.1f} s per record" if per >= 0.1 else f"{1 / per:,.0f} records/s"
        memory = f"; {self.memory}" if self.memory else ""
        return (
            f"about {_about(self.seconds)} on this machine for {self.records:,} records "
            f"({rate}, measured on {self.measured} records; loading the model: "
            f"{self.load_seconds:.0f} s){memory}"
        )


def _about(seconds: float) -> str:
    if seconds < 90:
        return f"{max(1, round(seconds))} seconds"
    minutes = seconds / 60
    if minutes < 90:
        return f"{round(minutes)} minutes"
    return f"{minutes / 60:.1f} hours"


def measure(
    project: Project,
    dataset: str,
    name: str,
    tasks: ChunkTasks,
    *,
    load_seconds: float,
    sample: int = CALIBRATION_RECORDS,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> JobEstimate:
    """Time ``tasks``' worker on ``sample`` records spread over ``dataset``; extrapolate.

    The records left are the dataset's, less those of vector set ``name`` already committed.

    The worker must already be set up (its load measured as ``load_seconds``). The timed
    records are the ones nearest the typical length among :data:`CALIBRATION_CANDIDATES`
    spread over the dataset: similar lengths pad like the job's length-sorted batches do (a
    sample of mixed lengths would be padded to its longest and look several times slower),
    and their length is the dataset's mean (texts longer than four times the median count as
    that: models truncate them). The sample is computed twice and the second time counted:
    the first calls at a size pay for memory and kernel selection (measured: two to four times
    slower on a CPU, which the job pays once, not per batch); a dataset no larger than the
    sample is computed once, first calls included, as its job computes it. When the sample
    takes under :data:`CALIBRATION_MIN_S`, a four times larger one is timed instead, up to
    :data:`CALIBRATION_MAX` records, so batching on a fast model is measured too.
    Nothing is written to the project.
    """
    progress = progress or NullProgress()
    cancel = cancel or CancelToken()
    n = project.dataset(dataset).row_count
    existing = next((s for s in vectors.list_sets(project, dataset) if s.name == name), None)
    left = n - (existing.committed_rows if existing is not None else 0)
    if n == 0 or left == 0:
        return JobEstimate(left, 0, 0.0, load_seconds)

    def run(records: Sequence[RecordRow]) -> float:
        payload, _ = tasks.prepare(records)
        started = time.perf_counter()
        tasks.worker.compute(payload, progress=NullProgress(), cancel=cancel)
        return time.perf_counter() - started

    size = min(sample, n)
    progress.start(f"Measuring on {size} records of {dataset}", total=None, unit="records")
    candidates = _spread(project, dataset, n, min(n, CALIBRATION_CANDIDATES))
    lengths = [_length(record) for record in candidates]
    computed = 0
    while True:
        cancel.raise_if_cancelled()
        records = _typical(candidates, lengths, size)
        if size < n:  # (a sample of the whole dataset is timed once: so the job computes it)
            run(records)  # not counted: a model's first calls at a size pay for memory, kernels
            progress.update(computed := computed + size)
            cancel.raise_if_cancelled()
        seconds = run(records)
        progress.update(computed := computed + size)
        if seconds >= CALIBRATION_MIN_S or size >= min(len(candidates), CALIBRATION_MAX):
            break
        size = min(size * 4, len(candidates), CALIBRATION_MAX)
    progress.finish()
    return JobEstimate(left, size, seconds, load_seconds)


def _length(record: RecordRow) -> int:
    return sum(len(part) for part in (record.prompt, record.response, record.text) if part)


def _typical(candidates: list[RecordRow], lengths: list[int], k: int) -> list[RecordRow]:
    """The ``k`` candidates whose length is nearest the (capped) mean length."""
    ordered = sorted(lengths)
    cap = 4 * max(ordered[len(ordered) // 2], 1)
    mean = sum(min(length, cap) for length in lengths) / len(lengths)
    nearest = sorted(range(len(candidates)), key=lambda i: (abs(lengths[i] - mean), i))
    return [candidates[i] for i in sorted(nearest[:k])]


def _spread(project: Project, dataset: str, n: int, k: int) -> list[RecordRow]:
    """``k`` records at evenly spaced positions (the whole dataset's mix of lengths)."""
    positions = sorted({min(n - 1, (i * n) // k) for i in range(k)})
    if len(positions) == n:
        return project.records(dataset, 0, n)
    return [project.records(dataset, position, 1)[0] for position in positions]
