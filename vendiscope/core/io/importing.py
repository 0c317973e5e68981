"""The import job: stream a source through an importer into the project, in one transaction.

Either every row lands or none does: on a bad row (unless ``skip_bad``), an error, or a
cancel, the transaction rolls back and the project is exactly as it was.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from vendiscope.core.base.atomic import atomic_path, check_destination
from vendiscope.core.base.errors import InputError, Location, ProjectError
from vendiscope.core.base.jobs import CancelToken, NullProgress, Progress
from vendiscope.core.base.prefetch import prefetch
from vendiscope.core.base.text import check_name
from vendiscope.core.io.fields import FieldMapping, MappingError
from vendiscope.core.io.hashing import Fingerprint, hash_content
from vendiscope.core.io.sources import (
    Preview,
    SourceStream,
    choose_importer,
    default_name,
    preview,
    resolve_mapping,
)
from vendiscope.core.plugin_host.interfaces import BadRow, SourceRow
from vendiscope.core.plugin_host.registry import PluginRegistry, default_registry
from vendiscope.core.store import bulk, imports, rawjson
from vendiscope.core.store.imports import Connection
from vendiscope.core.store.models import DatasetInfo
from vendiscope.core.store.project import Project

__all__ = ["ImportResult", "Preview", "import_dataset", "preview"]

BATCH_ROWS = 2_000


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
    registry = registry or default_registry()
    importer_name, importer = choose_importer(path, format, importer_params, registry)
    name = check_name(name, "dataset") if name is not None else default_name(path)
    if any(d.name == name for d in project.datasets()):
        raise ProjectError(f"the project already has a dataset named '{name}'; choose another name")
    with registry.running("importer", importer_name, "inspect"):
        info = importer.inspect(path)
    rows = registry.guard_iter("importer", importer_name, importer.read(path))
    stream = SourceStream(rows, path, info.unit)
    mapping = resolve_mapping(stream, mapping, overrides, path)
    if skip_bad or bad_report is not None:
        # Our own report from an earlier run may be replaced; a path the user gave may not.
        chosen = bad_report is not None
        bad_report = Path(bad_report) if chosen else path.with_name(f"{path.name}.bad-rows.jsonl")
        check_destination(
            bad_report, force=not chosen, inputs=[path], overwrite_hint="choose another path"
        )

    progress.start(f"Importing {path.name}", total=info.total, unit=info.progress_unit)
    skipped: list[BadRow] = []
    fingerprint = Fingerprint(salt=orjson.dumps(mapping.to_json()).decode())
    with project.engine.begin() as connection:
        dataset_id = imports.insert_dataset(
            connection,
            name=name,
            source_uri=str(path.resolve()),
            format=importer_name,
            field_mapping=mapping.to_json(),
            source_schema=info.schema,
        )
        count = 0
        insert = bulk.insert_statement(connection)
        bulk.enlarge_cache(connection)
        rebuild_index = bulk.defer_hash_index(connection, stream.estimated_rows(info))
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
            connection.exec_driver_sql(bulk.HASH_INDEX_DDL)
        if count == 0:
            raise InputError("no records found (every row was empty or bad)", Location(path))
        duplicates = bulk.count_duplicates(connection, dataset_id, count)
        imports.finish_dataset(
            connection,
            dataset_id,
            row_count=count,
            duplicate_count=duplicates,
            skipped_count=len(skipped),
            fingerprint=fingerprint.hexdigest(),
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
def _batches(
    stream: SourceStream,
    mapping: FieldMapping,
    skip_bad: bool,
    skipped: list[BadRow],
    path: Path,
    unit: str,
    dataset_id: int,
) -> Iterator[tuple[list[tuple[Any, ...]], int]]:
    """Record tuples (in :data:`bulk.INSERT_COLUMNS` order) in batches, with the source position."""
    values_of = mapping.compile()
    shared = mapping.shared_columns()
    dumps = rawjson.dumps_compact
    batch: list[tuple[Any, ...]] = []
    seq = 0
    for item in stream:
        if isinstance(item, SourceRow):
            try:
                values = values_of(item.data)
                stored = dumps(item.data, shared, values)
            except MappingError as exc:
                item = BadRow(item.number, str(exc), exc.field, item.position)
            except rawjson.UnstorableRow as exc:  # from an importer without a depth limit
                item = BadRow(item.number, str(exc), None, item.position)
            else:
                digest = hash_content(values[0], values[1], values[2])
                batch.append((dataset_id, seq, item.number, *values, stored, digest))
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
    return imports.record_import_run(
        connection,
        key=f"import:{name}",
        plugin=f"importer:{importer}",
        dataset_id=dataset_id,
        params={
            "path": str(path.resolve()),
            "format": importer,
            "mapping": mapping.to_json(),
            "importer_params": params or {},
            "skip_bad": skip_bad,
        },
        result=result,
        seconds=seconds,
    )


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
