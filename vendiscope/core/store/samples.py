"""The sample job's reads and writes (``core/io/sampling.py``), inside its one transaction.

The copied records go through :mod:`vendiscope.core.store.bulk`; the dataset row and the
run through :mod:`vendiscope.core.store.imports`; these are the statements around them, here
so the job holds no SQL.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Connection, select

from vendiscope.core.store import bulk
from vendiscope.core.store.project import Project
from vendiscope.core.store.schema import Record, Subset, SubsetMember

__all__ = ["copy_records", "insert_subset", "strata"]

IN_BATCH = 900
"""Positions asked for in one ``IN (...)`` (SQLite allows 999 parameters)."""


def strata(project: Project, dataset: str, column: str = "source") -> dict[str | None, list[int]]:
    """The positions of a dataset's records by their ``column`` value (``None``: no value),
    each list in dataset order."""
    info = project.dataset(dataset)
    value = getattr(Record, column)
    groups: dict[str | None, list[int]] = {}
    query = select(value, Record.seq).where(Record.dataset_id == info.id).order_by(Record.seq)
    with project.engine.connect() as connection:
        for key, seq in connection.execute(query):
            groups.setdefault(key, []).append(seq)
    return groups


def copy_records(
    connection: Connection, parent_id: int, dataset_id: int, positions: Sequence[int], start: int
) -> tuple[list[int], list[str]]:
    """Copy the records of dataset ``parent_id`` at ``positions`` (ascending, at most
    :data:`IN_BATCH`) into dataset ``dataset_id`` at positions ``start``, ``start + 1``...

    Every stored field is copied as it is (the original row, its source row, the content
    hash); returns the parent's record ids and the content hashes, in the order copied.
    """
    query = (
        select(
            Record.id, Record.row_index, Record.prompt, Record.response, Record.text,
            Record.label, Record.source, Record.ext_id, Record.raw, Record.content_hash,
        )
        .where(Record.dataset_id == parent_id, Record.seq.in_(list(positions)))
        .order_by(Record.seq)
    )  # fmt: skip
    rows = connection.execute(query).all()
    batch = [(dataset_id, start + i, *row[1:]) for i, row in enumerate(rows)]
    connection.exec_driver_sql(bulk.insert_statement(connection), batch)
    return [row[0] for row in rows], [row[-1] for row in rows]


def insert_subset(
    connection: Connection,
    *,
    dataset_id: int,
    name: str,
    description: str,
    run_id: int,
    record_ids: Sequence[int],
) -> int:
    """A new subset of dataset ``dataset_id`` holding ``record_ids`` in this order; its id."""
    subset_id = connection.execute(
        Subset.__table__.insert().values(
            dataset_id=dataset_id, name=name, description=description, run_id=run_id
        )
    ).inserted_primary_key[0]
    members = [
        {"subset_id": subset_id, "record_id": record_id, "rank": rank, "gain": None}
        for rank, record_id in enumerate(record_ids)
    ]
    for start in range(0, len(members), IN_BATCH):
        connection.execute(SubsetMember.__table__.insert(), members[start : start + IN_BATCH])
    return subset_id
