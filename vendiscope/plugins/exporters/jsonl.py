"""JSON Lines exporter: one JSON object per line."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any, ClassVar

import orjson

from vendiscope.api import Exporter, ExportError


class JsonlExporter(Exporter):
    """Write each row as one compact JSON object on its own ``\\n``-terminated line.

    Key order is kept and text is UTF-8 (not ``\\u`` escaped). No rows give an empty file.
    """

    suffix: ClassVar[str] = ".jsonl"

    def write(
        self, rows: Iterable[dict[str, Any]], destination: Path, *, schema: dict[str, Any] | None
    ) -> int:
        """Write ``rows`` to ``destination``, streaming; return how many were written."""
        count = 0
        with Path(destination).open("wb") as handle:
            for count, row in enumerate(rows, start=1):
                try:
                    line = orjson.dumps(row)
                except orjson.JSONEncodeError as exc:
                    raise ExportError(f"row {count} cannot be written as JSON: {exc}") from None
                handle.write(line)
                handle.write(b"\n")
        return count
