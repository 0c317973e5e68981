"""Bulk writes of records: the fast paths a multi-million-row import needs."""

from __future__ import annotations

from sqlalchemy import Connection, func, select

from vendiscope.core.base.errors import ProjectError
from vendiscope.core.store.schema import Record

INSERT_COLUMNS = (
    "dataset_id",
    "seq",
    "row_index",
    "prompt",
    "response",
    "text",
    "label",
    "source",
    "ext_id",
    "raw",
    "content_hash",
)


IMPORT_CACHE_KIB = 64 * 1024
HASH_INDEX = "ix_records_content_hash"
HASH_INDEX_DDL = f"CREATE INDEX {HASH_INDEX} ON records (dataset_id, content_hash)"
DEFER_INDEX_MIN_ROWS = 50_000


def defer_hash_index(connection: Connection, estimated_rows: int | None) -> bool:
    """Drop the content-hash index for a large import into a smaller project (SQLite only).

    Building the index once, sorted, after the insert is much cheaper than updating it at
    random for every row. The drop and the rebuild are part of the import's transaction, so
    other connections never see the project without it.
    """
    if connection.dialect.name != "sqlite" or not estimated_rows:
        return False
    existing = connection.exec_driver_sql("SELECT COALESCE(MAX(id), 0) FROM records").scalar()
    if estimated_rows < max(DEFER_INDEX_MIN_ROWS, existing or 0):
        return False
    connection.exec_driver_sql(f"DROP INDEX IF EXISTS {HASH_INDEX}")
    return True


def enlarge_cache(connection: Connection) -> None:
    """Give SQLite a 64 MiB page cache for bulk inserts (the index B-trees stay in memory).

    Bounded: memory does not grow with the size of the import.
    """
    if connection.dialect.name == "sqlite":
        connection.exec_driver_sql(f"PRAGMA cache_size = -{IMPORT_CACHE_KIB}")


def insert_statement(connection: Connection) -> str:
    """A driver-level INSERT for record tuples (the fast path for millions of rows)."""
    style = connection.dialect.paramstyle
    marker = {"qmark": "?", "format": "%s", "pyformat": "%s"}.get(style)
    if marker is None:  # pragma: no cover - every supported driver uses one of the above
        raise ProjectError(f"unsupported database driver parameter style '{style}'")
    columns = ", ".join(INSERT_COLUMNS)
    markers = ", ".join([marker] * len(INSERT_COLUMNS))
    return f"INSERT INTO {Record.__tablename__} ({columns}) VALUES ({markers})"


def count_duplicates(connection: Connection, dataset_id: int, count: int) -> int:
    distinct = connection.execute(
        select(func.count(func.distinct(Record.content_hash))).where(
            Record.dataset_id == dataset_id
        )
    ).scalar_one()
    return count - distinct
