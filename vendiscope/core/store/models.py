"""Plain, immutable views of stored objects. The GUI and plugins see these, never ORM rows."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from vendiscope.core.store import rawjson


@dataclass(frozen=True)
class DatasetInfo:
    id: int
    name: str
    source_uri: str
    format: str
    field_mapping: dict[str, Any]
    source_schema: dict[str, Any] | None
    row_count: int
    duplicate_count: int
    skipped_count: int
    fingerprint: str
    created_at: datetime


@dataclass(frozen=True)
class RecordRow:
    id: int
    seq: int
    row_index: int
    prompt: str | None
    response: str | None
    text: str | None
    label: str | None
    source: str | None
    ext_id: str | None
    content_hash: str
    raw: str

    def original(self) -> dict[str, Any]:
        """The row as it was read from the source."""
        return rawjson.loads(
            self.raw,
            (self.prompt, self.response, self.text, self.label, self.source, self.ext_id),
        )

    def roles(self) -> dict[str, str | None]:
        return {
            "prompt": self.prompt,
            "response": self.response,
            "text": self.text,
            "label": self.label,
            "source": self.source,
            "id": self.ext_id,
        }

    def display_text(self) -> str:
        """The record's content as one string, for listings."""
        parts = [p for p in (self.prompt, self.response, self.text) if p]
        return "\n\n".join(parts)


@dataclass(frozen=True)
class RunInfo:
    id: int
    key: str
    kind: str
    plugin: str
    dataset_id: int | None
    params: dict[str, Any]
    versions: dict[str, Any]
    seed: int | None
    status: str
    result: dict[str, Any] | None
    error: str | None
    started_at: datetime
    finished_at: datetime | None


@dataclass(frozen=True)
class SubsetInfo:
    id: int
    dataset_id: int
    name: str
    description: str | None
    run_id: int | None
    size: int
    created_at: datetime
