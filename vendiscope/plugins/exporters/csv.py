"""CSV exporter: a header row, then one line per row."""

from __future__ import annotations

import csv
from collections.abc import Iterable
from pathlib import Path
from typing import Any, ClassVar

import orjson

from vendiscope.api import Exporter, ExportError


class CsvExporter(Exporter):
    """Write rows as UTF-8 CSV, streaming; the first row's keys are the header.

    Cells are quoted only when needed (``csv.QUOTE_MINIMAL``), so a CSV imported and
    exported again comes back with the same header and cells. A missing key gives an
    empty cell; a key the first row did not have raises :class:`ExportError` (the header is
    already written; JSON Lines has no fixed columns). ``None`` becomes an empty cell,
    numbers and booleans ``str()``, lists and dicts compact JSON. No rows give an empty
    file, since no header is known.

    Parameters
    ----------
    delimiter
        The one-character field separator (``"\\t"`` for TSV).
    lineterminator
        What ends each record. ``"\\n"`` by default (as pandas and most Unix tools write);
        pass ``"\\r\\n"`` for RFC 4180. Newlines inside a cell are written as they are.
    """

    suffix: ClassVar[str] = ".csv"

    def __init__(self, delimiter: str = ",", lineterminator: str = "\n") -> None:
        self.delimiter = delimiter
        self.lineterminator = lineterminator

    def write(
        self, rows: Iterable[dict[str, Any]], destination: Path, *, schema: dict[str, Any] | None
    ) -> int:
        """Write ``rows`` to ``destination``; return how many were written."""
        count = 0
        header: list[str] = []
        known: set[str] = set()
        with Path(destination).open("w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(
                handle, delimiter=self.delimiter, lineterminator=self.lineterminator
            )
            for count, row in enumerate(rows, start=1):
                if count == 1:
                    header = list(row)
                    known = set(header)
                    writer.writerow(header)
                elif not known.issuperset(row):
                    extra = next(key for key in row if key not in known)
                    raise ExportError(
                        f"row {count} has a column '{extra}' that the first row did not have, "
                        "and the CSV header is already written; export as JSON Lines instead"
                    )
                writer.writerow([_cell(row.get(key)) for key in header])
        return count


def _cell(value: Any) -> str:
    """The text of one CSV cell."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list | dict):
        return orjson.dumps(value).decode()
    return str(value)
