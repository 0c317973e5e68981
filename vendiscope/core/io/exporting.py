"""The export job: a dataset or subset in its original schema, atomic, with a manifest."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import orjson

from vendiscope import __version__
from vendiscope.core.base.atomic import atomic_paths, check_destination
from vendiscope.core.base.errors import ExportError
from vendiscope.core.base.jobs import CancelToken, NullProgress, Progress
from vendiscope.core.base.text import shown_path
from vendiscope.core.plugin_host.registry import PluginRegistry, default_registry
from vendiscope.core.store.models import DatasetInfo, RunInfo
from vendiscope.core.store.project import Project
from vendiscope.core.store.record_lookup import DatabaseError
from vendiscope.core.store.runs import recorded_run

MANIFEST_SUFFIX = ".manifest.json"


@dataclass(frozen=True)
class ExportResult:
    destination: Path
    manifest: Path
    exporter: str
    rows: int
    seconds: float


def manifest_path(destination: Path) -> Path:
    return destination.with_name(destination.name + MANIFEST_SUFFIX)


def choose_exporter(destination: Path, format: str | None, registry: PluginRegistry) -> str:
    """The exporter named ``format``, or the one whose suffix matches ``destination``."""
    if format is not None:
        registry.get("exporter", format)
        return format
    name = destination.name.lower()
    by_suffix = {
        str(c.meta["suffix"]): c.name
        for c in registry.contributions("exporter")
        if c.meta.get("suffix")
    }
    for suffix, exporter in by_suffix.items():
        if name.endswith(suffix):
            return exporter
    if "." not in destination.name:
        for contribution in registry.contributions("exporter"):
            if contribution.meta.get("suffix") == "":
                return contribution.name
    raise ExportError(
        f"{shown_path(destination)}: cannot tell the format from the name; pass a format "
        f"({', '.join(c.name for c in registry.contributions('exporter'))})"
    )


def export_dataset(
    project: Project,
    dataset: str,
    destination: str | Path,
    *,
    subset: str | None = None,
    format: str | None = None,
    exporter_params: dict[str, Any] | None = None,
    force: bool = False,
    redaction: Redaction | None = None,
    registry: PluginRegistry | None = None,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> ExportResult:
    """Write ``dataset`` (or its ``subset``) to ``destination`` and a manifest beside it.

    Nothing is overwritten unless ``force`` (and never a folder, a project or anything but
    a regular file, see :mod:`vendiscope.core.base.atomic`); the file (or folder) and its
    manifest appear together, whole, or not at all. ``redaction`` rewrites each row on its
    way out (e.g. personal data replaced by ``[EMAIL]``); the manifest records it and how
    many rows it changed. The project is never changed.
    """
    started = time.perf_counter()
    destination = Path(destination)
    registry = registry or default_registry()
    progress = progress or NullProgress()
    cancel = cancel or CancelToken()
    info = project.dataset(dataset)
    subset_info = project.subset(dataset, subset) if subset is not None else None
    total = subset_info.size if subset_info is not None else info.row_count
    name = choose_exporter(destination, format, registry)
    exporter = registry.create("exporter", name, **(exporter_params or {}))
    manifest = manifest_path(destination)
    check_destination(
        destination,
        force=force,
        directory=exporter.is_directory,
        replaceable_folder=_is_previous_export(destination, manifest),
    )
    check_destination(manifest, force=force)

    hashes: list[str] = []
    changed = [0]  # rows the redaction rewrote

    def rows() -> Iterator[dict[str, Any]]:
        for done, record in enumerate(project.iter_records(dataset, subset=subset), 1):
            if done % 1000 == 0:
                cancel.raise_if_cancelled()
                progress.update(done)
            hashes.append(record.content_hash)
            row = record.original()
            if redaction is not None:
                redacted = redaction.apply(row)
                changed[0] += redacted != row
                row = redacted
            yield row

    progress.start(
        f"Exporting {dataset} to {shown_path(destination.name)}", total=total, unit="rows"
    )
    with atomic_paths((destination, exporter.is_directory), (manifest, False)) as temporaries:
        data, manifest_file = temporaries
        with registry.running("exporter", name, "write", passthrough=(DatabaseError,)):
            written = exporter.write(rows(), data, schema=info.source_schema)
        cancel.raise_if_cancelled()
        if written != len(hashes):
            raise ExportError(f"exporter '{name}' wrote {written} of {len(hashes)} rows")
        file_digest = None if exporter.is_directory else _sha256(data)
        progress.update(written)
        selection = project.run(subset_info.run_id) if subset_info and subset_info.run_id else None
        document = _manifest(
            project, info, subset, selection, name, destination, written, hashes, file_digest
        )
        if redaction is not None:
            document["redaction"] = {"kind": redaction.name, "what": redaction.description,
                                     "rows_changed": changed[0]}  # fmt: skip
        manifest_file.write_bytes(orjson.dumps(document, option=orjson.OPT_INDENT_2))
    seconds = time.perf_counter() - started
    _record_run(project, info, subset, name, destination, written, seconds)
    progress.finish()
    return ExportResult(destination, manifest, name, written, seconds)


@dataclass(frozen=True)
class Redaction:
    """A rewrite of exported rows (``apply(row) -> row``, never modifying its input), named
    for the manifest."""

    name: str
    description: str
    apply: Callable[[dict[str, Any]], dict[str, Any]]


def _manifest(
    project: Project,
    info: DatasetInfo,
    subset: str | None,
    selection: RunInfo | None,
    exporter: str,
    destination: Path,
    rows: int,
    hashes: list[str],
    file_digest: str | None,
) -> dict[str, Any]:
    digest = hashlib.blake2b(digest_size=16)
    for value in hashes:
        digest.update(bytes.fromhex(value))
    return {
        "vendiscope_version": __version__,
        "created_at": datetime.now(timezone.utc).isoformat(),
        "project": project.location,
        "dataset": {
            "name": info.name,
            "source": info.source_uri,
            "format": info.format,
            "rows": info.row_count,
            "fingerprint": info.fingerprint,
            "field_mapping": info.field_mapping,
        },
        "subset": subset,
        "selection_run": None
        if selection is None
        else {
            "id": selection.id,
            "plugin": selection.plugin,
            "params": selection.params,
            "seed": selection.seed,
            "versions": selection.versions,
            "result": selection.result,
        },
        "export": {
            "format": exporter,
            "destination": destination.name,
            "row_count": rows,
            "sha256": file_digest,
        },
        "content_hash": {
            "algorithm": "blake2b-128 of [prompt, response, text]",
            "digest_of_all": digest.hexdigest(),
            "per_row": hashes,
        },
    }


def _is_previous_export(destination: Path, manifest: Path) -> bool:
    """Whether ``destination`` is a folder that an earlier export wrote (its manifest says so)."""
    if not destination.is_dir() or not manifest.is_file():
        return False
    try:
        document = orjson.loads(manifest.read_bytes())
        return document["export"]["destination"] == destination.name
    except (OSError, orjson.JSONDecodeError, KeyError, TypeError):
        return False


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _record_run(
    project: Project,
    info: DatasetInfo,
    subset: str | None,
    exporter: str,
    destination: Path,
    rows: int,
    seconds: float,
) -> None:
    """The export's run in the project; a read-only project keeps none (its manifest still
    records where the rows came from)."""
    if project.read_only:
        return
    with recorded_run(
        project,
        key=f"export:{info.name}" + (f":{subset}" if subset else ""),
        kind="export",
        plugin=f"exporter:{exporter}",
        dataset_id=info.id,
        params={"destination": str(destination.resolve()), "subset": subset, "format": exporter},
        packages=(),
    ) as run:
        run.finish({"rows": rows}, seconds=seconds)
