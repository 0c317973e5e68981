"""Copy a whole project to another location — a ``*.vscope`` file to a PostgreSQL catalog (or
back) — and prove the copy complete.

Every table is copied row for row, ids included, in one transaction on the target, in the
order foreign keys need (datasets, runs, records, vector sets and their chunks, subsets and
their members). Before that transaction commits, each table of the target is read back and
compared with the source: the row count and a content hash (BLAKE2b over every column of
every row in primary-key order, values in a canonical form so that SQLite and PostgreSQL
representations of the same value hash alike). Any difference rolls the whole copy back and
names the table; a target that already holds a project is refused unless ``force`` is given.
Memory stays bounded: rows are streamed in batches.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Table, func, select, text
from sqlalchemy.exc import DBAPIError

from vendiscope.core.base.errors import ProjectError
from vendiscope.core.base.jobs import NullProgress, Progress
from vendiscope.core.base.project_files import is_url
from vendiscope.core.store.engine import display_location
from vendiscope.core.store.project import Project
from vendiscope.core.store.schema import (
    Dataset,
    Record,
    Run,
    Subset,
    SubsetMember,
    VectorChunk,
    VectorSet,
)

TABLES: tuple[Table, ...] = tuple(
    model.__table__  # type: ignore[misc]  # SQLAlchemy declares __table__ as FromClause
    for model in (Dataset, Run, Record, VectorSet, VectorChunk, Subset, SubsetMember)
)
"""Every project table, parents before children."""

BATCH_BYTES = 32 * 2**20
"""Rows are copied in batches of about this many bytes (vector chunks are large)."""
BATCH_ROWS = 5000


@dataclass(frozen=True)
class TableCopy:
    table: str
    rows: int
    digest: str


@dataclass(frozen=True)
class CopyReport:
    source: str
    target: str
    tables: tuple[TableCopy, ...]
    seconds: float
    replaced: bool

    @property
    def rows(self) -> int:
        return sum(t.rows for t in self.tables)

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "target": self.target,
            "seconds": round(self.seconds, 3),
            "replaced": self.replaced,
            "tables": {t.table: {"rows": t.rows, "blake2b": t.digest} for t in self.tables},
        }


def copy_project(
    source: str | Path,
    target: str | Path,
    *,
    force: bool = False,
    progress: Progress | None = None,
) -> CopyReport:
    """Copy the project at ``source`` to ``target`` (a new file or a database URL), verified.

    The target is created when it does not exist (an empty PostgreSQL database gets the
    schema). A target holding any project data is refused unless ``force``, which replaces
    its contents — inside the same transaction, so a failed copy leaves it as it was.
    Raises :class:`ProjectError` naming the table when a count or hash differs.
    """
    progress = progress or NullProgress()
    started = time.perf_counter()
    if _same_location(source, target):
        raise ProjectError(f"{display_location(source)}: source and target are the same project")
    with Project.open(source) as src:
        totals = _row_counts(src)
        dst = Project.open(target, create=True)  # an empty database or no file: a new project
        with dst:
            existing = _row_counts(dst)
            replaced = any(existing.values())
            if replaced and not force:
                held = ", ".join(f"{n} {t}" for t, n in existing.items() if n)
                raise ProjectError(
                    f"{display_location(target)}: already holds project data ({held}); "
                    "pass --force to replace it"
                )
            progress.start(
                f"Copying to {display_location(target)}", total=sum(totals.values()), unit="rows"
            )
            copied = 0
            results: list[TableCopy] = []
            with src.engine.connect() as reader, dst.engine.begin() as writer:
                if replaced:
                    for table in reversed(TABLES):
                        writer.execute(table.delete())
                for table in TABLES:
                    digest, rows = _Digest(), 0
                    for batch in _batches(reader, table):
                        digest.update(table, batch)
                        try:
                            writer.execute(table.insert(), batch)
                        except DBAPIError as exc:
                            raise ProjectError(
                                f"copying table {table.name}: the target refused a row ({exc.orig})"
                            ) from exc
                        rows += len(batch)
                        copied += len(batch)
                        progress.update(copied)
                    results.append(TableCopy(table.name, rows, digest.hexdigest()))
                _reset_sequences(writer)
                _verify(writer, results, totals)
            progress.finish()
    return CopyReport(
        display_location(source),
        display_location(target),
        tuple(results),
        time.perf_counter() - started,
        replaced,
    )


def table_digests(project: Project) -> dict[str, TableCopy]:
    """The row count and content hash of every table of ``project`` (as the copy checks them)."""
    out = {}
    with project.engine.connect() as connection:
        for table in TABLES:
            digest, rows = _Digest(), 0
            for batch in _batches(connection, table):
                digest.update(table, batch)
                rows += len(batch)
            out[table.name] = TableCopy(table.name, rows, digest.hexdigest())
    return out


# ----------------------------------------------------------------------------- helpers
def _same_location(a: str | Path, b: str | Path) -> bool:
    if is_url(a) or is_url(b):
        return str(a) == str(b)
    return Path(a).resolve() == Path(b).resolve()


def _row_counts(project: Project) -> dict[str, int]:
    with project.engine.connect() as connection:
        return {
            t.name: connection.execute(select(func.count()).select_from(t)).scalar_one()
            for t in TABLES
        }


def _batches(connection: Connection, table: Table) -> Iterator[list[dict[str, Any]]]:
    """Every row of ``table`` in primary-key order, as dicts, in batches of bounded size."""
    query = select(table).order_by(*table.primary_key.columns)
    result = connection.execution_options(stream_results=True, yield_per=500).execute(query)
    batch: list[dict[str, Any]] = []
    size = 0
    for row in result.mappings():
        item = dict(row)
        batch.append(item)
        size += sum(len(v) for v in item.values() if isinstance(v, (bytes, str)))
        if size >= BATCH_BYTES or len(batch) >= BATCH_ROWS:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


class _Digest:
    """BLAKE2b over rows, each value in a form that is the same on SQLite and PostgreSQL."""

    def __init__(self) -> None:
        self._hash = hashlib.blake2b(digest_size=16)

    def update(self, table: Table, rows: list[dict[str, Any]]) -> None:
        names = [c.name for c in table.columns]
        for row in rows:
            for name in names:
                encoded = _canonical(row[name])
                self._hash.update(len(encoded).to_bytes(8, "little"))
                self._hash.update(encoded)

    def hexdigest(self) -> str:
        return self._hash.hexdigest()


def _canonical(value: Any) -> bytes:
    if value is None:
        return b"N"
    if isinstance(value, bool):
        return b"B1" if value else b"B0"
    if isinstance(value, int):
        return b"I" + str(value).encode()
    if isinstance(value, float):
        return b"F" + value.hex().encode()
    if isinstance(value, str):
        return b"S" + value.encode("utf-8", "surrogatepass")
    if isinstance(value, (bytes, bytearray, memoryview)):
        return b"X" + bytes(value)
    if isinstance(value, datetime):
        moment = value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value
        return b"T" + moment.astimezone(timezone.utc).isoformat().encode()
    return b"J" + json.dumps(value, sort_keys=True, separators=(",", ":")).encode()


def _reset_sequences(connection: Connection) -> None:
    """PostgreSQL: move each ``id`` sequence past the copied ids (SQLite needs nothing)."""
    if connection.dialect.name != "postgresql":
        return
    for table in TABLES:
        if "id" in table.columns and table.columns["id"].primary_key:
            connection.execute(
                text(
                    f"SELECT setval(pg_get_serial_sequence('{table.name}', 'id'), "
                    f"COALESCE((SELECT MAX(id) FROM {table.name}), 0) + 1, false)"
                )
            )


def _verify(connection: Connection, copied: list[TableCopy], totals: dict[str, int]) -> None:
    """Read every table back (inside the copy's transaction) and compare with the source."""
    problems = []
    for table, source in zip(TABLES, copied, strict=True):
        digest, rows = _Digest(), 0
        for batch in _batches(connection, table):
            digest.update(table, batch)
            rows += len(batch)
        if source.rows != totals[table.name]:
            problems.append(
                f"{table.name}: {source.rows} rows read from the source, which counts "
                f"{totals[table.name]} (was it written to during the copy?)"
            )
        elif rows != source.rows:
            problems.append(f"{table.name}: {rows} rows in the target, {source.rows} in the source")
        elif digest.hexdigest() != source.digest:
            problems.append(
                f"{table.name}: content hash {digest.hexdigest()} in the target, "
                f"{source.digest} in the source"
            )
    if problems:
        raise ProjectError("the copy does not match its source: " + "; ".join(problems))
