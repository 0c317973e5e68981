"""Vector sets: one row per record, stored as chunked BLOBs in the project.

Each chunk is written and committed on its own, so a job that is killed resumes from its
last committed chunk; loading a whole set is one sequential read into a numpy array.

A set's stored status is ``running`` until its last chunk is in, whether or not a job is
still filling it; :func:`set_state` tells the two apart from the runs that wrote it (each
records its process: pid, host, start time) and
:func:`vendiscope.core.vectors.resume.resume_command` says how to resume it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import delete, func, select, update
from sqlalchemy.exc import IntegrityError

from vendiscope.core.base.errors import ProjectError
from vendiscope.core.store.schema import Run, SignalText, VectorChunk, VectorSet

if TYPE_CHECKING:
    import numpy as np

    from vendiscope.core.store.project import Project

DEFAULT_CHUNK_ROWS = 4096
RUNNING, COMPLETE = "running", "complete"
INTERRUPTED, ELSEWHERE = "interrupted", "elsewhere"


@dataclass(frozen=True)
class VectorSetInfo:
    id: int
    dataset_id: int
    name: str
    kind: str
    model: str | None
    params: dict[str, Any]
    dim: int
    dtype: str
    n_rows: int
    chunk_rows: int
    status: str
    run_id: int | None
    created_at: datetime
    committed_rows: int = 0

    @property
    def n_chunks(self) -> int:
        return -(-self.n_rows // self.chunk_rows)

    def chunk_range(self, index: int) -> tuple[int, int]:
        start = index * self.chunk_rows
        return start, min(start + self.chunk_rows, self.n_rows)


def _info(row: VectorSet, committed: int) -> VectorSetInfo:
    return VectorSetInfo(
        row.id,
        row.dataset_id,
        row.name,
        row.kind,
        row.model,
        row.params,
        row.dim,
        row.dtype,
        row.n_rows,
        row.chunk_rows,
        row.status,
        row.run_id,
        row.created_at,
        committed,
    )


def list_sets(project: Project, dataset: str) -> list[VectorSetInfo]:
    """Every vector set of a dataset, with how many rows are committed."""
    dataset_id = project.dataset(dataset).id
    with project.session() as session:
        rows = session.execute(
            select(VectorSet, func.coalesce(func.sum(VectorChunk.n_rows), 0))
            .outerjoin(VectorChunk, VectorChunk.vector_set_id == VectorSet.id)
            .where(VectorSet.dataset_id == dataset_id)
            .group_by(VectorSet.id)
            .order_by(VectorSet.id)
        ).all()
        return [_info(row, committed) for row, committed in rows]


def get_set(project: Project, dataset: str, name: str) -> VectorSetInfo:
    for found in list_sets(project, dataset):
        if found.name == name:
            return found
    names = ", ".join(s.name for s in list_sets(project, dataset)) or "none yet"
    elsewhere = _datasets_holding(project, name)
    hint = f"; '{name}' belongs to dataset {elsewhere}" if elsewhere else ""
    raise ProjectError(
        f"dataset '{dataset}' has no vector set named '{name}' (vector sets: {names}){hint}"
    )


def _datasets_holding(project: Project, name: str) -> str:
    with project.session() as session:
        ids = set(session.scalars(select(VectorSet.dataset_id).where(VectorSet.name == name)))
    return ", ".join(f"'{d.name}'" for d in project.datasets() if d.id in ids)


def open_for_writing(
    project: Project,
    dataset: str,
    name: str,
    *,
    kind: str,
    model: str | None,
    params: dict[str, Any],
    dim: int,
    dtype: str = "float32",
    chunk_rows: int = DEFAULT_CHUNK_ROWS,
    run_id: int | None = None,
    identity: tuple[str, ...] | None = None,
) -> VectorSetInfo:
    """Create a vector set, or return the existing one of the same configuration to resume.

    A set of the same name with another configuration is never overwritten silently.
    ``identity`` names the ``params`` keys that change the vectors (all of them by default);
    other keys, such as a batch size, may differ between runs.
    """
    info = project.dataset(dataset)
    wanted = {
        "kind": kind,
        "model": model,
        "params": params,
        "dim": dim,
        "dtype": dtype,
        "n_rows": info.row_count,
        "chunk_rows": chunk_rows,
    }
    for attempt in range(2):
        existing = next((s for s in list_sets(project, dataset) if s.name == name), None)
        if existing is not None:
            _check_same(existing, wanted, params, identity, dataset)
            return existing
        row = VectorSet(dataset_id=info.id, name=name, status=RUNNING, run_id=run_id, **wanted)
        try:
            with project.session() as session, session.begin():
                session.add(row)
            break
        except IntegrityError:
            if attempt:
                raise
            # Another process created the set between our look and our insert: resume theirs.
    return get_set(project, dataset, name)


def _check_same(
    existing: VectorSetInfo,
    wanted: dict[str, Any],
    params: dict[str, Any],
    identity: tuple[str, ...] | None,
    dataset: str,
) -> None:
    """Refuse to resume ``existing`` when it was made with other settings."""
    differs = [
        key for key, value in wanted.items() if key != "params" and getattr(existing, key) != value
    ]
    keys = identity if identity is not None else tuple({*params, *existing.params})
    if any(existing.params.get(k) != params.get(k) for k in keys):
        differs.append("params")
    if differs:
        raise ProjectError(
            f"vector set '{existing.name}' of dataset '{dataset}' exists with other settings "
            f"({', '.join(differs)}); choose another name or delete it first"
        )


def write_matrix(
    project: Project,
    dataset: str,
    name: str,
    matrix: np.ndarray,
    *,
    kind: str,
    model: str | None,
    params: dict[str, Any],
    run_id: int | None = None,
    chunk_rows: int = DEFAULT_CHUNK_ROWS,
) -> VectorSetInfo:
    """Store a whole matrix computed at once (scores, labels, map coordinates) as a set."""
    import numpy as np

    rows = np.ascontiguousarray(matrix, dtype=np.float32)
    if rows.ndim == 1:
        rows = rows.reshape(-1, 1)
    target = open_for_writing(project, dataset, name, kind=kind, model=model, params=params,
                              dim=rows.shape[1], run_id=run_id, chunk_rows=chunk_rows)  # fmt: skip
    for index in range(target.n_chunks):
        start, stop = target.chunk_range(index)
        write_chunk(project, target, index, rows[start:stop])
    return mark_complete(project, target)


def committed_chunks(project: Project, vector_set: VectorSetInfo) -> set[int]:
    with project.engine.connect() as connection:
        rows = connection.execute(
            select(VectorChunk.chunk_index).where(VectorChunk.vector_set_id == vector_set.id)
        )
        return {row[0] for row in rows}


def write_chunk(
    project: Project,
    vector_set: VectorSetInfo,
    index: int,
    vectors: np.ndarray,
    *,
    if_exists: str = "error",
    texts: Mapping[str, Sequence[str | None]] | None = None,
) -> bool:
    """Store chunk ``index`` (rows ``index * chunk_rows`` onwards) in its own transaction.

    ``texts`` (a signal's text columns: name -> one text or ``None`` per row of the chunk)
    are written in the same transaction (:func:`read_texts` reads them).

    ``if_exists="skip"`` leaves a chunk another writer committed first as it is (two jobs,
    or two engines' workers, filling the same set) and returns ``False``; with ``"error"``
    (the default) a second write of a chunk raises. Returns ``True`` when this call wrote it.
    """
    import numpy as np

    start, stop = vector_set.chunk_range(index)
    expected = (stop - start, vector_set.dim)
    if vectors.shape != expected:
        raise ProjectError(
            f"vector set '{vector_set.name}': chunk {index} should be {expected[0]} x "
            f"{expected[1]}, got {vectors.shape[0]} x {vectors.shape[1] if vectors.ndim > 1 else 1}"
        )
    data = np.ascontiguousarray(vectors, dtype=vector_set.dtype).tobytes()
    try:
        with project.session() as session, session.begin():
            session.add(
                VectorChunk(
                    vector_set_id=vector_set.id,
                    chunk_index=index,
                    row_start=start,
                    n_rows=stop - start,
                    data=data,
                )
            )
            for name, column in (texts or {}).items():
                session.add_all(
                    SignalText(vector_set_id=vector_set.id, name=name, position=row, text=text)
                    for row, text in enumerate(column, start=start)
                    if text is not None
                )
    except IntegrityError:
        if if_exists == "skip" and is_committed(project, vector_set, index):
            return False
        if is_committed(project, vector_set, index):
            raise ProjectError(
                f"vector set '{vector_set.name}': chunk {index} is already written"
            ) from None
        raise ProjectError(
            f"vector set '{vector_set.name}' no longer exists (deleted while it was written)"
        ) from None
    return True


def is_committed(project: Project, vector_set: VectorSetInfo, index: int) -> bool:
    """Whether chunk ``index`` of ``vector_set`` is committed (by this or another writer)."""
    query = select(VectorChunk.chunk_index).where(
        VectorChunk.vector_set_id == vector_set.id, VectorChunk.chunk_index == index
    )
    with project.engine.connect() as connection:
        return connection.execute(query).first() is not None


def mark_complete(project: Project, vector_set: VectorSetInfo) -> VectorSetInfo:
    missing = set(range(vector_set.n_chunks)) - committed_chunks(project, vector_set)
    if missing:
        raise ProjectError(
            f"vector set '{vector_set.name}' is missing chunks {sorted(missing)[:5]}"
        )
    with project.session() as session, session.begin():
        session.execute(
            update(VectorSet).where(VectorSet.id == vector_set.id).values(status=COMPLETE)
        )
    return get_set(project, _dataset_name(project, vector_set), vector_set.name)


def delete_set(project: Project, dataset: str, name: str) -> None:
    found = get_set(project, dataset, name)
    with project.session() as session, session.begin():
        session.execute(delete(VectorSet).where(VectorSet.id == found.id))


def load(project: Project, dataset: str, name: str) -> np.ndarray:
    """The whole matrix (rows in dataset order), read in one sequential pass."""
    import numpy as np

    found = complete_set(project, dataset, name)
    matrix = np.empty((found.n_rows, found.dim), dtype=found.dtype)
    flat = matrix.reshape(-1).view(np.uint8)
    row_bytes = found.dim * matrix.itemsize
    query = (
        select(VectorChunk.row_start, VectorChunk.data)
        .where(VectorChunk.vector_set_id == found.id)
        .order_by(VectorChunk.chunk_index)
    )
    with project.engine.connect() as connection:
        for row_start, data in connection.execute(query):
            offset = row_start * row_bytes
            flat[offset : offset + len(data)] = np.frombuffer(data, dtype=np.uint8)
    return matrix


def iter_chunks(project: Project, dataset: str, name: str) -> Iterator[tuple[int, np.ndarray]]:
    """``(row_start, rows)`` one chunk at a time: memory-bounded for sets larger than RAM."""
    import numpy as np

    found = complete_set(project, dataset, name)
    for index in range(found.n_chunks):
        query = select(VectorChunk.row_start, VectorChunk.data).where(
            VectorChunk.vector_set_id == found.id, VectorChunk.chunk_index == index
        )
        with project.engine.connect() as connection:
            row_start, data = connection.execute(query).one()
        yield row_start, np.frombuffer(data, dtype=found.dtype).reshape(-1, found.dim)


def read_rows(project: Project, vector_set: VectorSetInfo, positions: list[int]) -> np.ndarray:
    """Rows at dataset ``positions`` (any order), reading only the chunks that hold them."""
    import numpy as np

    out = np.empty((len(positions), vector_set.dim), dtype=vector_set.dtype)
    by_chunk: dict[int, list[int]] = {}
    for slot, position in enumerate(positions):
        if not 0 <= position < vector_set.n_rows:
            raise ProjectError(
                f"vector set '{vector_set.name}' has {vector_set.n_rows} rows; "
                f"position {position} is out of range"
            )
        by_chunk.setdefault(position // vector_set.chunk_rows, []).append(slot)
    with project.engine.connect() as connection:
        for index, slots in by_chunk.items():
            data = connection.execute(
                select(VectorChunk.data).where(
                    VectorChunk.vector_set_id == vector_set.id, VectorChunk.chunk_index == index
                )
            ).scalar_one_or_none()
            if data is None:
                raise ProjectError(f"vector set '{vector_set.name}': chunk {index} is not written")
            chunk = np.frombuffer(data, dtype=vector_set.dtype).reshape(-1, vector_set.dim)
            start = index * vector_set.chunk_rows
            for slot in slots:
                out[slot] = chunk[positions[slot] - start]
    return out


def complete_sets(project: Project, dataset: str, kind: str | None = None) -> list[VectorSetInfo]:
    """The complete vector sets of ``dataset`` (of ``kind``), oldest first."""
    return [
        s
        for s in list_sets(project, dataset)
        if s.status == COMPLETE and (kind is None or s.kind == kind)
    ]


def complete_set(project: Project, dataset: str, name: str) -> VectorSetInfo:
    """The vector set ``name``; an error naming how far it got when it is incomplete."""
    found = get_set(project, dataset, name)
    if found.status != COMPLETE:
        raise ProjectError(
            f"vector set '{name}' is incomplete ({found.committed_rows} of {found.n_rows} rows); "
            "run the job again to resume it"
        )
    return found


def _dataset_name(project: Project, vector_set: VectorSetInfo) -> str:
    return next(d.name for d in project.datasets() if d.id == vector_set.dataset_id)


# ----------------------------------------------------------------------------- status
@dataclass(frozen=True)
class SetState:
    """Whether a set is ``complete``, ``running`` (its job's process is alive), ``elsewhere``
    (its job runs on another host, which cannot be checked) or ``interrupted``.

    ``reason`` says why an interrupted set stopped: ``killed`` (its process is gone without
    closing its run), ``cancelled``, ``failed``, or ``stopped`` (no run of it is known).
    """

    state: str
    committed_rows: int
    n_rows: int
    reason: str = ""
    host: str = ""
    pid: int | None = None
    run_id: int | None = None

    @property
    def resumable(self) -> bool:
        return self.state == INTERRUPTED

    def describe(self, resume: str | None = None) -> str:
        """``interrupted (120/300 rows) — resume with: vendiscope gradients P demo`` etc."""
        rows = f"{self.committed_rows:,}/{self.n_rows:,} rows"
        if self.state == COMPLETE:
            return COMPLETE
        if self.state == RUNNING:
            return f"running ({rows}, pid {self.pid})" if self.pid else f"running ({rows})"
        if self.state == ELSEWHERE:
            return f"running on {self.host} (cannot check) ({rows})"
        why = "" if self.reason in ("killed", "interrupted", "") else f", {self.reason}"
        how = f"resume with: {resume}" if resume else "run the job that made it again to resume it"
        return f"interrupted ({rows}{why}) — {how}"


def set_state(project: Project, vector_set: VectorSetInfo) -> SetState:
    """The state of ``vector_set``, from its status and the runs that wrote it.

    A run records its process when it starts; a set whose newest runs are all closed, or
    whose running runs' processes no longer exist on this host, is interrupted. A run on
    another host cannot be checked and is taken to be running there.
    """
    from vendiscope.core.base.jobs import process_state

    base = {"committed_rows": vector_set.committed_rows, "n_rows": vector_set.n_rows}
    if vector_set.status == COMPLETE:
        return SetState(COMPLETE, **base)
    runs = writer_runs(project, vector_set)
    for run_id, status, owner in runs:
        if status != RUNNING:
            continue
        found = process_state(owner)
        if found.alive:
            return SetState(RUNNING, **base, host=found.host, pid=found.pid, run_id=run_id)
        if found.alive is None:
            return SetState(ELSEWHERE, **base, host=found.host, pid=found.pid, run_id=run_id)
    if not runs:
        return SetState(INTERRUPTED, **base, reason="stopped")
    run_id, status, owner = runs[0]
    reason = "killed" if status == RUNNING else status
    host = str((owner or {}).get("host") or "")
    return SetState(INTERRUPTED, **base, reason=reason, host=host, run_id=run_id)


def writer_runs(
    project: Project, vector_set: VectorSetInfo
) -> list[tuple[int, str, dict[str, Any] | None]]:
    """``(run id, status, owner)`` of the runs that wrote ``vector_set``, newest first.

    Vector jobs key their runs ``KIND:DATASET:NAME`` (:mod:`vendiscope.core.vectors.job`).
    """
    query = (
        select(Run.id, Run.key, Run.status, Run.owner)
        .where(Run.dataset_id == vector_set.dataset_id, Run.kind == vector_set.kind)
        .order_by(Run.id.desc())
    )
    with project.session() as session:
        rows = session.execute(query).all()
    return [
        (run_id, status, owner)
        for run_id, key, status, owner in rows
        if key.startswith(f"{vector_set.kind}:") and key.endswith(f":{vector_set.name}")
    ]


def read_texts(project: Project, vector_set: VectorSetInfo, name: str) -> list[str | None]:
    """Text column ``name`` of a signal's set: one text per row (``None`` where there is none)."""
    out: list[str | None] = [None] * vector_set.n_rows
    query = select(SignalText.position, SignalText.text).where(
        SignalText.vector_set_id == vector_set.id, SignalText.name == name
    )
    with project.engine.connect() as connection:
        for position, text in connection.execute(query):
            if 0 <= position < len(out):
                out[position] = text
    return out
