"""The import job: stream a source through an importer into the project, in one transaction.

Either every row lands or none does: on a bad row (unless ``skip_bad``), an error, or a
cancel, the transaction rolls back and the project is exactly as it was.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import orjson
from sqlalchemy import Connection, func, select, update

from vendiscope.core import rawjson
from vendiscope.core.atomic import atomic_path
from vendiscope.core.detect import detect_mapping
from vendiscope.core.errors import InputError, Location, ProjectError
from vendiscope.core.fields import (
    FieldMapping,
    MappingError,
    parse_assignments,
)
from vendiscope.core.hashing import Fingerprint, hash_content
from vendiscope.core.jobs import CancelToken, NullProgress, Progress
from vendiscope.core.models import DatasetInfo
from vendiscope.core.plugins.interfaces import BadRow, Importer, SourceInfo, SourceRow
from vendiscope.core.plugins.registry import PluginRegistry, default_registry
from vendiscope.core.prefetch import prefetch
from vendiscope.core.project import Project
from vendiscope.core.store.schema import Dataset, Record, Run
from vendiscope.core.versions import library_versions

BATCH_ROWS = 2_000
SAMPLE_ROWS = 200


@dataclass(frozen=True)
class Preview:
    """What an import would do: the importer chosen, the first rows, the guessed mapping."""

    importer: str
    info: SourceInfo
    rows: list[dict[str, Any]]
    mapping: FieldMapping | None
    mapping_error: str | None
    bad_rows: list[BadRow]


@dataclass
class ImportResult:
    dataset: DatasetInfo
    mapping: FieldMapping
    importer: str
    rows: int
    duplicates: int
    skipped: list[BadRow] = field(default_factory=list)
    bad_report: Path | None = None
    run_id: int | None = None
    seconds: float = 0.0


def choose_importer(
    path: Path, format: str | None, params: dict[str, Any] | None, registry: PluginRegistry
) -> tuple[str, Importer]:
    if not path.exists():
        raise InputError("no such file or folder", Location(path))
    name = format or registry.importer_for(path).name
    return name, registry.create("importer", name, **(params or {}))


def preview(
    path: str | Path,
    *,
    format: str | None = None,
    importer_params: dict[str, Any] | None = None,
    rows: int = 20,
    registry: PluginRegistry | None = None,
) -> Preview:
    """Read the first rows of a source and guess its field mapping, without touching a project."""
    path = Path(path)
    name, importer = choose_importer(path, format, importer_params, registry or default_registry())
    info = importer.inspect(path)
    good: list[dict[str, Any]] = []
    bad: list[BadRow] = []
    for item in itertools.islice(importer.read(path), max(rows, SAMPLE_ROWS)):
        (bad if isinstance(item, BadRow) else good).append(
            item if isinstance(item, BadRow) else item.data
        )
    try:
        mapping, error = detect_mapping(good), None
    except ValueError as exc:
        mapping, error = None, str(exc)
    return Preview(name, info, good[:rows], mapping, error, bad)


def import_dataset(
    project: Project,
    path: str | Path,
    *,
    name: str | None = None,
    format: str | None = None,
    mapping: FieldMapping | None = None,
    overrides: list[str] | None = None,
    importer_params: dict[str, Any] | None = None,
    skip_bad: bool = False,
    bad_report: str | Path | None = None,
    registry: PluginRegistry | None = None,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> ImportResult:
    """Import ``path`` as a new dataset of ``project``.

    Parameters
    ----------
    name
        Dataset name; defaults to the file name without its extension.
    format
        Importer name (``vendiscope plugins``); guessed from the file name when omitted.
    mapping, overrides
        The field mapping; detected from the first rows when omitted. ``overrides`` are
        ``ROLE=COLUMN`` strings applied on top of it.
    skip_bad
        Import the good rows and write the bad ones to ``bad_report`` (JSONL) instead of
        aborting on the first bad row.
    """
    started = time.perf_counter()
    path = Path(path)
    progress = progress or NullProgress()
    cancel = cancel or CancelToken()
    importer_name, importer = choose_importer(
        path, format, importer_params, registry or default_registry()
    )
    name = name or _default_name(path)
    if any(d.name == name for d in project.datasets()):
        raise ProjectError(f"the project already has a dataset named '{name}'; choose another name")
    info = importer.inspect(path)
    stream = _Stream(importer.read(path), path, info.unit)
    mapping = _resolve_mapping(stream, mapping, overrides, path)
    if skip_bad and bad_report is None:
        bad_report = path.with_name(f"{path.name}.bad-rows.jsonl")

    progress.start(f"Importing {path.name}", total=info.total, unit=info.progress_unit)
    skipped: list[BadRow] = []
    fingerprint = Fingerprint(salt=orjson.dumps(mapping.to_json()).decode())
    with project.engine.begin() as connection:
        dataset_id = connection.execute(
            Dataset.__table__.insert().values(
                name=name,
                source_uri=str(path.resolve()),
                format=importer_name,
                field_mapping=mapping.to_json(),
                source_schema=info.schema,
                row_count=0,
                duplicate_count=0,
                skipped_count=0,
                fingerprint="",
                created_at=datetime.now(timezone.utc),
            )
        ).inserted_primary_key[0]
        count = 0
        insert = _insert_statement(connection)
        _enlarge_cache(connection)
        rebuild_index = _defer_hash_index(connection, stream.estimated_rows(info))
        batches = prefetch(
            _batches(stream, mapping, skip_bad, skipped, path, info.unit, dataset_id)
        )
        try:
            for batch, position in batches:
                cancel.raise_if_cancelled()
                connection.exec_driver_sql(insert, batch)
                fingerprint.update(row[-1] for row in batch)
                count += len(batch)
                progress.update(position)
        finally:
            batches.close()
        cancel.raise_if_cancelled()
        if rebuild_index:
            connection.exec_driver_sql(HASH_INDEX_DDL)
        if count == 0:
            raise InputError("no records found (every row was empty or bad)", Location(path))
        duplicates = _count_duplicates(connection, dataset_id, count)
        connection.execute(
            update(Dataset)
            .where(Dataset.id == dataset_id)
            .values(
                row_count=count,
                duplicate_count=duplicates,
                skipped_count=len(skipped),
                fingerprint=fingerprint.hexdigest(),
            )
        )
        seconds = time.perf_counter() - started
        run_id = _record_run(
            connection,
            dataset_id,
            name,
            importer_name,
            path,
            mapping,
            importer_params,
            skip_bad,
            {"rows": count, "duplicates": duplicates, "skipped": len(skipped)},
            seconds,
        )
    progress.finish()
    report = _write_bad_report(bad_report, skipped, path, info.unit) if skipped else None
    return ImportResult(
        project.dataset(name),
        mapping,
        importer_name,
        count,
        duplicates,
        skipped,
        report,
        run_id,
        time.perf_counter() - started,
    )


# ----------------------------------------------------------------------------- helpers
class _Stream:
    """The importer's rows with a look-ahead buffer (for mapping detection) and position."""

    def __init__(self, rows: Iterator[SourceRow | BadRow], path: Path, unit: str) -> None:
        self._rows = rows
        self._buffer: list[SourceRow | BadRow] = []
        self.position = 0

    def sample(self, size: int) -> list[dict[str, Any]]:
        while sum(isinstance(r, SourceRow) for r in self._buffer) < size:
            item = next(self._rows, None)
            if item is None:
                break
            self._buffer.append(item)
        return [r.data for r in self._buffer if isinstance(r, SourceRow)]

    def estimated_rows(self, info: SourceInfo) -> int | None:
        """Rows the source will yield, from its size and the rows read so far."""
        if not info.total:
            return None
        if info.progress_unit == "B":
            if not self._buffer or not self._buffer[-1].position:
                return None
            return int(info.total * len(self._buffer) / self._buffer[-1].position)
        return info.total

    def __iter__(self) -> Iterator[SourceRow | BadRow]:
        buffered, self._buffer = self._buffer, []
        for item in itertools.chain(buffered, self._rows):
            self.position = item.position
            yield item


def _default_name(path: Path) -> str:
    name = path.name
    for suffix in (".gz", ".jsonl", ".ndjson", ".json", ".csv", ".tsv", ".tab", ".parquet", ".pq"):
        name = name.removesuffix(suffix)
    return name or path.name


def _resolve_mapping(
    stream: _Stream, mapping: FieldMapping | None, overrides: list[str] | None, path: Path
) -> FieldMapping:
    try:
        if mapping is None:
            sample = stream.sample(SAMPLE_ROWS)
            if not sample:
                mapping = (
                    FieldMapping({"text": "text"}, detected="none") if overrides is None else None
                )
            else:
                mapping = detect_mapping(sample)
        if overrides:
            mapping = parse_assignments(overrides, base=mapping)
    except ValueError as exc:
        raise InputError(str(exc), Location(path)) from exc
    assert mapping is not None
    return mapping


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


def _defer_hash_index(connection: Connection, estimated_rows: int | None) -> bool:
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


def _enlarge_cache(connection: Connection) -> None:
    """Give SQLite a 64 MiB page cache for bulk inserts (the index B-trees stay in memory).

    Bounded: memory does not grow with the size of the import.
    """
    if connection.dialect.name == "sqlite":
        connection.exec_driver_sql(f"PRAGMA cache_size = -{IMPORT_CACHE_KIB}")


def _insert_statement(connection: Connection) -> str:
    """A driver-level INSERT for record tuples (the fast path for millions of rows)."""
    style = connection.dialect.paramstyle
    marker = {"qmark": "?", "format": "%s", "pyformat": "%s"}.get(style)
    if marker is None:  # pragma: no cover - every supported driver uses one of the above
        raise ProjectError(f"unsupported database driver parameter style '{style}'")
    columns = ", ".join(INSERT_COLUMNS)
    markers = ", ".join([marker] * len(INSERT_COLUMNS))
    return f"INSERT INTO {Record.__tablename__} ({columns}) VALUES ({markers})"


def _batches(
    stream: _Stream,
    mapping: FieldMapping,
    skip_bad: bool,
    skipped: list[BadRow],
    path: Path,
    unit: str,
    dataset_id: int,
) -> Iterator[tuple[list[tuple[Any, ...]], int]]:
    """Record tuples (in :data:`INSERT_COLUMNS` order) in batches, with the source position."""
    values_of = mapping.compile()
    shared = mapping.shared_columns()
    dumps = rawjson.dumps_compact
    batch: list[tuple[Any, ...]] = []
    seq = 0
    for item in stream:
        if isinstance(item, SourceRow):
            try:
                values = values_of(item.data)
            except MappingError as exc:
                item = BadRow(item.number, str(exc), exc.field, item.position)
            else:
                digest = hash_content(values[0], values[1], values[2])
                batch.append(
                    (
                        dataset_id,
                        seq,
                        item.number,
                        *values,
                        dumps(item.data, shared, values),
                        digest,
                    )
                )
                seq += 1
                if len(batch) >= BATCH_ROWS:
                    yield batch, item.position
                    batch = []
                continue
        if not skip_bad:
            raise InputError(item.message, Location(path, item.number, item.field, unit))
        skipped.append(item)
    if batch:
        yield batch, stream.position


def _count_duplicates(connection: Connection, dataset_id: int, count: int) -> int:
    distinct = connection.execute(
        select(func.count(func.distinct(Record.content_hash))).where(
            Record.dataset_id == dataset_id
        )
    ).scalar_one()
    return count - distinct


def _record_run(
    connection: Connection,
    dataset_id: int,
    name: str,
    importer: str,
    path: Path,
    mapping: FieldMapping,
    params: dict[str, Any] | None,
    skip_bad: bool,
    result: dict[str, Any],
    seconds: float,
) -> int:
    now = datetime.now(timezone.utc)
    return connection.execute(
        Run.__table__.insert().values(
            key=f"import:{name}",
            kind="import",
            plugin=f"importer:{importer}",
            dataset_id=dataset_id,
            params={
                "path": str(path.resolve()),
                "format": importer,
                "mapping": mapping.to_json(),
                "importer_params": params or {},
                "skip_bad": skip_bad,
            },
            versions=library_versions(),
            status="completed",
            result=result,
            timings={"seconds": round(seconds, 3)},
            started_at=now,
            finished_at=now,
        )
    ).inserted_primary_key[0]


def _write_bad_report(
    destination: str | Path | None, skipped: list[BadRow], path: Path, unit: str
) -> Path | None:
    if destination is None:
        return None
    destination = Path(destination)
    with atomic_path(destination) as temporary, temporary.open("wb") as handle:
        for bad in skipped:
            handle.write(
                orjson.dumps(
                    {"file": str(path), unit: bad.number, "field": bad.field, "error": bad.message}
                )
                + b"\n"
            )
    return destination
