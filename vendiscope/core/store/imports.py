"""The import job's writes, inside its one transaction: the dataset row, its counts, its run.

The records themselves go through :mod:`vendiscope.core.store.bulk`; these are the few
statements around them, here so the import job (``core/io/importing.py``) holds no SQL.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from sqlalchemy import Connection, update

from vendiscope.core.base.versions import library_versions
from vendiscope.core.store.runs import STORE_PACKAGES
from vendiscope.core.store.schema import Dataset, Run

__all__ = ["Connection", "finish_dataset", "insert_dataset", "record_import_run"]


def insert_dataset(
    connection: Connection,
    *,
    name: str,
    source_uri: str,
    format: str,
    field_mapping: dict[str, Any],
    source_schema: Any,
) -> int:
    """Insert an empty dataset row (its counts filled by :func:`finish_dataset`); its id."""
    return connection.execute(
        Dataset.__table__.insert().values(
            name=name,
            source_uri=source_uri,
            format=format,
            field_mapping=field_mapping,
            source_schema=source_schema,
            row_count=0,
            duplicate_count=0,
            skipped_count=0,
            fingerprint="",
            created_at=datetime.now(timezone.utc),
        )
    ).inserted_primary_key[0]


def finish_dataset(
    connection: Connection,
    dataset_id: int,
    *,
    row_count: int,
    duplicate_count: int,
    skipped_count: int,
    fingerprint: str,
) -> None:
    """Set the imported dataset's counts and fingerprint."""
    connection.execute(
        update(Dataset)
        .where(Dataset.id == dataset_id)
        .values(
            row_count=row_count,
            duplicate_count=duplicate_count,
            skipped_count=skipped_count,
            fingerprint=fingerprint,
        )
    )


def record_import_run(
    connection: Connection,
    *,
    key: str,
    plugin: str,
    dataset_id: int,
    kind: str = "import",
    seed: int | None = None,
    params: dict[str, Any],
    result: dict[str, Any],
    seconds: float,
) -> int:
    """The import's run (or a sample's: ``kind``, ``seed``), complete, written in the
    import's own transaction; its id.

    Not :func:`vendiscope.core.store.runs.recorded_run`: an import that rolls back leaves
    no run at all, and one that commits has its run with it.
    """
    now = datetime.now(timezone.utc)
    return connection.execute(
        Run.__table__.insert().values(
            key=key,
            kind=kind,
            seed=seed,
            plugin=plugin,
            dataset_id=dataset_id,
            params=params,
            versions=library_versions(*STORE_PACKAGES),
            status="complete",
            result=result,
            timings={"seconds": round(seconds, 3)},
            started_at=now,
            finished_at=now,
        )
    ).inserted_primary_key[0]
