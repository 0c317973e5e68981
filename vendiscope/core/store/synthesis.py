"""The synthesis job's writes: its two growing datasets, their vectors and its run, per round.

A round is committed in ONE transaction (:func:`commit_round`): the new records of both
datasets, their vector rows, the datasets' counts and the run's result. A job killed
mid-round leaves the project exactly as the previous round left it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

import orjson
from sqlalchemy import Connection, func, select, update

from vendiscope.core.base.errors import ProjectError
from vendiscope.core.store import bulk
from vendiscope.core.store.imports import insert_dataset
from vendiscope.core.store.schema import Dataset, Record, Run, VectorChunk, VectorSet
from vendiscope.core.store.vectors import COMPLETE, DEFAULT_CHUNK_ROWS

if TYPE_CHECKING:
    import numpy as np

    from vendiscope.core.store.project import Project

FORMAT = "synthesis"
"""The ``format`` of a dataset written by a synthesis job."""


@dataclass(frozen=True)
class NewRecord:
    """One record to append: its role values, its original row and its content hash."""

    roles: dict[str, str | None]
    raw: dict[str, Any]
    content_hash: str


@dataclass(frozen=True)
class Appended:
    """What one round appends to one dataset: records and their vector rows."""

    dataset: str
    vector_set: str
    records: Sequence[NewRecord]
    vectors: np.ndarray
    fingerprint: str
    """The dataset's fingerprint with these records (:class:`~vendiscope.core.io.hashing.
    Fingerprint` of every content hash in order)."""


def create_dataset(
    project: Project,
    name: str,
    *,
    source_uri: str,
    field_mapping: dict[str, Any],
    vector_set: str,
    kind: str,
    model: str | None,
    params: dict[str, Any],
    dim: int,
) -> None:
    """An empty synthesis dataset with an empty, complete vector set (one transaction)."""
    from sqlalchemy.exc import IntegrityError

    now = datetime.now(timezone.utc)
    try:
        with project.engine.begin() as connection:
            dataset_id = insert_dataset(
                connection, name=name, source_uri=source_uri, format=FORMAT,
                field_mapping=field_mapping, source_schema=None,
            )  # fmt: skip
            connection.execute(
                VectorSet.__table__.insert().values(
                    dataset_id=dataset_id,
                    name=vector_set,
                    kind=kind,
                    model=model,
                    params=params,
                    dim=dim,
                    dtype="float32",
                    n_rows=0,
                    chunk_rows=DEFAULT_CHUNK_ROWS,
                    status=COMPLETE,
                    created_at=now,
                )
            )
    except IntegrityError:
        raise ProjectError(f"a dataset named '{name}' already exists") from None


def commit_round(
    project: Project, *, run_id: int, result: dict[str, Any], appended: Sequence[Appended]
) -> None:
    """Append every dataset's records and vector rows and set the run's result, atomically."""
    with project.engine.begin() as connection:
        for part in appended:
            _append(connection, part)
        connection.execute(update(Run).where(Run.id == run_id).values(result=result))


def _append(connection: Connection, part: Appended) -> None:
    import numpy as np

    dataset = connection.execute(
        select(Dataset.id, Dataset.row_count).where(Dataset.name == part.dataset)
    ).one()
    vector_set = connection.execute(
        select(
            VectorSet.id, VectorSet.name, VectorSet.dim, VectorSet.n_rows, VectorSet.chunk_rows
        ).where(VectorSet.dataset_id == dataset.id, VectorSet.name == part.vector_set)
    ).first()
    if vector_set is None:
        raise ProjectError(f"dataset '{part.dataset}' has lost its vector set '{part.vector_set}'")
    if vector_set.n_rows != dataset.row_count:
        raise ProjectError(
            f"dataset '{part.dataset}' has {dataset.row_count} records but its vector set "
            f"'{vector_set.name}' has {vector_set.n_rows} rows"
        )
    rows = np.ascontiguousarray(part.vectors, dtype=np.float32)
    if rows.shape != (len(part.records), vector_set.dim):
        raise ProjectError(
            f"dataset '{part.dataset}': {len(part.records)} records but vectors of shape "
            f"{rows.shape}"
        )
    if not part.records:
        return
    start = dataset.row_count
    batch = [
        (
            dataset.id,
            start + i,
            start + i,
            r.roles.get("prompt"),
            r.roles.get("response"),
            r.roles.get("text"),
            r.roles.get("label"),
            r.roles.get("source"),
            r.roles.get("id"),
            orjson.dumps(r.raw).decode(),
            r.content_hash,
        )
        for i, r in enumerate(part.records)
    ]
    connection.exec_driver_sql(bulk.insert_statement(connection), batch)
    _append_vectors(connection, vector_set, rows)
    total = start + len(batch)
    distinct = connection.execute(
        select(func.count(func.distinct(Record.content_hash))).where(
            Record.dataset_id == dataset.id
        )
    ).scalar_one()
    connection.execute(
        update(Dataset)
        .where(Dataset.id == dataset.id)
        .values(
            row_count=total,
            duplicate_count=total - distinct,
            fingerprint=part.fingerprint,
        )
    )
    connection.execute(update(VectorSet).where(VectorSet.id == vector_set.id).values(n_rows=total))


def _append_vectors(connection: Connection, vector_set: Any, rows: np.ndarray) -> None:
    """Fill the last, partial chunk first, then new chunks of ``chunk_rows`` rows."""
    import numpy as np

    size = vector_set.chunk_rows
    position = vector_set.n_rows
    index, offset = divmod(position, size)
    if offset:
        old = connection.execute(
            select(VectorChunk.data).where(
                VectorChunk.vector_set_id == vector_set.id, VectorChunk.chunk_index == index
            )
        ).scalar_one()
        head = np.frombuffer(old, dtype=np.float32).reshape(-1, vector_set.dim)
        take = min(size - offset, len(rows))
        merged = np.concatenate([head, rows[:take]])
        connection.execute(
            update(VectorChunk)
            .where(VectorChunk.vector_set_id == vector_set.id, VectorChunk.chunk_index == index)
            .values(data=merged.tobytes(), n_rows=len(merged))
        )
        rows, position, index = rows[take:], position + take, index + 1
    for start in range(0, len(rows), size):
        part = rows[start : start + size]
        connection.execute(
            VectorChunk.__table__.insert().values(
                vector_set_id=vector_set.id,
                chunk_index=index,
                row_start=position,
                n_rows=len(part),
                data=part.tobytes(),
            )
        )
        index, position = index + 1, position + len(part)
