"""Reading a source: choosing its importer, previewing it, streaming it with look-ahead."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vendiscope.core.base.errors import InputError, Location
from vendiscope.core.base.text import printable_name
from vendiscope.core.io.detect import detect_mapping
from vendiscope.core.io.fields import CONTENT_ROLES, FieldMapping, parse_assignments
from vendiscope.core.plugin_host.interfaces import BadRow, Importer, SourceInfo, SourceRow
from vendiscope.core.plugin_host.registry import PluginRegistry, default_registry

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


def refuse_project_input(path: Path) -> None:
    """Never read a project's own files as data, not even to look (see core/base/project_files.py).

    Refused: anything named like a project, and any file of a project this process has open
    (whatever its name, through links too) — the import's own project, the app's.
    """
    from vendiscope.core.base.project_files import (
        belongs_to,
        looks_like_project_file,
        open_projects,
    )

    owner = belongs_to(path, open_projects())
    if owner is not None or (path.is_file() and looks_like_project_file(path)):
        raise InputError(
            "is a Vendiscope project file (or one of its SQLite files), not data to import; "
            "to copy datasets between projects, export them and import the export",
            Location(path),
        )


def choose_importer(
    path: Path, format: str | None, params: dict[str, Any] | None, registry: PluginRegistry
) -> tuple[str, Importer]:
    if not path.exists():
        raise InputError("no such file or folder", Location(path))
    refuse_project_input(path)
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
    registry = registry or default_registry()
    name, importer = choose_importer(path, format, importer_params, registry)
    with registry.running("importer", name, "inspect"):
        info = importer.inspect(path)
    good: list[dict[str, Any]] = []
    bad: list[BadRow] = []
    items = registry.guard_iter("importer", name, importer.read(path))
    for item in itertools.islice(items, max(rows, SAMPLE_ROWS)):
        (bad if isinstance(item, BadRow) else good).append(
            item if isinstance(item, BadRow) else item.data
        )
    try:
        mapping, error = detect_mapping(good), None
    except ValueError as exc:
        mapping, error = None, str(exc)
    return Preview(name, info, good[:rows], mapping, error, bad)


class SourceStream:
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


def default_name(path: Path) -> str:
    name = path.name
    for suffix in (".gz", ".jsonl", ".ndjson", ".json", ".csv", ".tsv", ".tab", ".parquet", ".pq"):
        name = name.removesuffix(suffix)
    return printable_name(name or path.name)


def resolve_mapping(
    stream: SourceStream, mapping: FieldMapping | None, overrides: list[str] | None, path: Path
) -> FieldMapping:
    """The mapping to import with: ``mapping``, else detected, with ``overrides`` on top.

    Explicit ``ROLE=COLUMN`` overrides that name a content role stand on their own: they are
    used even when detection finds nothing (as ``--dry-run`` shows them).
    """
    detection_error: ValueError | None = None
    try:
        if mapping is None:
            sample = stream.sample(SAMPLE_ROWS)
            if not sample:
                mapping = (
                    FieldMapping({"text": "text"}, detected="none") if overrides is None else None
                )
            else:
                try:
                    mapping = detect_mapping(sample)
                except ValueError as exc:
                    if not overrides:
                        raise
                    detection_error = exc
        if overrides:
            mapping = parse_assignments(overrides, base=mapping)
    except ValueError as exc:
        message = str(exc)
        if detection_error is not None and not any(
            role in CONTENT_ROLES for role in _assigned_roles(overrides or [])
        ):
            message = str(detection_error)  # the maps given name no content role
        raise InputError(message, Location(path)) from exc
    assert mapping is not None
    return mapping


def _assigned_roles(overrides: list[str]) -> list[str]:
    """The roles that ``ROLE=COLUMN`` assignments give a column to."""
    roles = []
    for item in overrides:
        role, _, column = item.partition("=")
        if column.strip():
            roles.append(role.strip())
    return roles
