"""Record reads the jobs need beyond :class:`Project`'s paging: by position, by source."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.exc import DatabaseError

from vendiscope.core.base.errors import ProjectError
from vendiscope.core.store.models import RecordRow
from vendiscope.core.store.project import RECORD_COLUMNS, Project
from vendiscope.core.store.schema import Record

__all__ = ["DatabaseError", "page", "records_at", "source_positions"]

IN_BATCH = 900
"""Positions asked for in one ``IN (...)`` (SQLite allows 999 parameters)."""


def page(project: Project, dataset: str, offset: int, limit: int) -> list[RecordRow]:
    """Records ``offset`` to ``offset + limit`` of a dataset, to show (``vendiscope show``).

    An offset past the end is refused, naming the dataset's size, rather than showing nothing
    (an empty dataset shows nothing from offset 0).
    """
    info = project.dataset(dataset)
    if offset < 0 or limit < 1:
        raise ProjectError(
            f"offset must be >= 0 and limit >= 1; got offset {offset}, limit {limit}"
        )
    rows = info.row_count
    if offset and offset >= rows:
        last = f"; the last position is {rows - 1:,}" if rows else ""
        raise ProjectError(
            f"offset {offset:,} is past the end (dataset '{dataset}' has {rows:,} "
            f"row{'' if rows == 1 else 's'}{last})"
        )
    return project.records(dataset, offset, limit)


def records_at(project: Project, dataset: str, positions: Sequence[int]) -> dict[int, RecordRow]:
    """The records at these dataset positions, by position (for showing neighbours)."""
    info = project.dataset(dataset)
    wanted = sorted({int(p) for p in positions})
    found: dict[int, RecordRow] = {}
    with project.engine.connect() as connection:
        for start in range(0, len(wanted), IN_BATCH):
            query = select(*RECORD_COLUMNS).where(
                Record.dataset_id == info.id, Record.seq.in_(wanted[start : start + IN_BATCH])
            )
            for row in connection.execute(query):
                found[row.seq] = RecordRow(*row)
    return found


def source_positions(project: Project, dataset: str) -> dict[str, list[int]]:
    """Positions of the records of each source (records without one are left out)."""
    info = project.dataset(dataset)
    groups: dict[str, list[int]] = {}
    query = (
        select(Record.source, Record.seq)
        .where(Record.dataset_id == info.id, Record.source.is_not(None))
        .order_by(Record.seq)
    )
    with project.engine.connect() as connection:
        for source, seq in connection.execute(query):
            groups.setdefault(source, []).append(seq)
    return groups
