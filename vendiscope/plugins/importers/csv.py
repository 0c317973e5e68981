"""CSV and TSV importer: a header row, then one record per row; values stay strings."""

from __future__ import annotations

import csv
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from vendiscope.core.errors import InputError, Location
from vendiscope.core.plugins.interfaces import BadRow, Importer, SourceInfo, SourceRow
from vendiscope.plugins.importers._common import (
    canonical_encoding,
    check_text_file,
    decode_line,
    strip_bom,
)

SNIFF_BYTES = 64 * 1024
"""How much of the file the delimiter sniffer looks at."""

SNIFF_DELIMITERS = ",\t;|"
"""The delimiters the sniffer may choose from."""

TAB_SUFFIXES = (".tsv", ".tab")


def raise_field_size_limit() -> None:
    """Let the ``csv`` module read fields of any size (its default limit is 128 KiB)."""
    limit = sys.maxsize
    while True:
        try:
            csv.field_size_limit(limit)
            return
        except OverflowError:
            limit //= 10


class CsvImporter(Importer):
    """Read a CSV or TSV file with a header row, streaming row by row.

    The delimiter is ``delimiter`` when given, a tab for ``.tsv``/``.tab`` files, otherwise
    what :class:`csv.Sniffer` finds in the first 64 KiB, else a comma. Values are kept as
    strings, so a CSV round-trips unchanged. :attr:`SourceRow.number` is the physical line
    on which the row starts (quoted fields may span lines); ``position`` is bytes consumed.
    A header with no names, or naming a column twice, rejects the file; a row with more or
    fewer fields than the header is a :class:`BadRow`. A blank column name in an otherwise
    named header becomes ``"Unnamed: i"`` (0-based, as pandas names it).

    Parameters
    ----------
    delimiter
        A one-character field delimiter, or ``None`` to choose it as described above.
    encoding
        The text encoding of the file; it must be ASCII-compatible.
    """

    def __init__(self, delimiter: str | None = None, encoding: str = "utf-8") -> None:
        self.delimiter = delimiter
        self.encoding = encoding

    def inspect(self, path: Path) -> SourceInfo:
        """File size in bytes as the progress total, and the header's column names."""
        path = Path(path)
        size = check_text_file(path, self.encoding)
        encoding = canonical_encoding(self.encoding, path)
        with path.open("rb") as handle:
            lines = _Lines(handle, encoding)
            reader = csv.reader(lines, delimiter=self._delimiter_for(path, encoding))
            raise_field_size_limit()
            header, _ = _read_header(reader, lines, path)
        return SourceInfo(unit="line", total=size, progress_unit="B", columns=tuple(header))

    def read(self, path: Path) -> Iterator[SourceRow | BadRow]:
        """Yield each data row as a dict keyed by the header, or a :class:`BadRow`."""
        path = Path(path)
        check_text_file(path, self.encoding)
        encoding = canonical_encoding(self.encoding, path)
        delimiter = self._delimiter_for(path, encoding)
        raise_field_size_limit()
        with path.open("rb") as handle:
            lines = _Lines(handle, encoding)
            reader = csv.reader(lines, delimiter=delimiter)
            header, _ = _read_header(reader, lines, path)
            yield from _rows(reader, lines, header)

    def _delimiter_for(self, path: Path, encoding: str) -> str:
        if self.delimiter:
            return self.delimiter
        if path.name.lower().endswith(TAB_SUFFIXES):
            return "\t"
        return sniff_delimiter(path, encoding)


def sniff_delimiter(path: Path, encoding: str) -> str:
    """The delimiter :class:`csv.Sniffer` sees in the first complete lines, else a comma."""
    with path.open("rb") as handle:
        sample = handle.read(SNIFF_BYTES)
    if len(sample) == SNIFF_BYTES:
        end = sample.rfind(b"\n")
        if end < 0:
            return ","
        sample = sample[: end + 1]
    text = strip_bom(sample, encoding).decode(encoding, errors="replace")
    try:
        return csv.Sniffer().sniff(text, delimiters=SNIFF_DELIMITERS).delimiter
    except csv.Error:
        return ","


class _Lines:
    """Decode a binary file line by line for :func:`csv.reader`, counting lines and bytes.

    A line that does not decode is passed on with replacement characters and its
    :class:`BadRow` kept in :attr:`errors`, so the row it belongs to can be reported.
    :attr:`exhausted_after_newline` tells that the reader asked for more after a complete
    last line, which it does only inside an unclosed quoted field.
    """

    def __init__(self, handle: IO[bytes], encoding: str) -> None:
        self._handle = handle
        self._encoding = encoding
        self.line = 0
        self.position = 0
        self.errors: list[BadRow] = []
        self.exhausted_after_newline = False

    def __iter__(self) -> Iterator[str]:
        raw = b""
        for raw in self._handle:
            self.line += 1
            self.position += len(raw)
            if self.line == 1:
                raw = strip_bom(raw, self._encoding)
            text = decode_line(raw, self.line, encoding=self._encoding, position=self.position)
            if isinstance(text, BadRow):
                self.errors.append(text)
                text = raw.decode(self._encoding, errors="replace")
            yield text
        # Asked for a line after one that ended with a newline: the reader was inside quotes.
        self.exhausted_after_newline = raw.endswith((b"\n", b"\r"))


def _read_header(reader: Iterator[list[str]], lines: _Lines, path: Path) -> tuple[list[str], int]:
    """The header's column names and its line number; the first non-blank row is the header."""
    for row in reader:
        if not row:
            continue
        line = lines.line
        if lines.errors:
            raise InputError(
                f"the header row is not readable: {lines.errors[0].message}",
                Location(path, line),
            )
        if not any(name.strip() for name in row):
            raise InputError("the header row (column names) is empty", Location(path, line))
        header = [name if name.strip() else f"Unnamed: {i}" for i, name in enumerate(row)]
        seen: dict[str, int] = {}
        for i, name in enumerate(header, start=1):
            if name in seen:
                raise InputError(
                    f"the header names column '{name}' twice (columns {seen[name]} and {i}); "
                    "column names must be unique",
                    Location(path, line),
                )
            seen[name] = i
        return header, line
    raise InputError(
        "the file has no header row (column names); it holds only blank lines",
        Location(path),
    )


def _rows(
    reader: Iterator[list[str]], lines: _Lines, header: list[str]
) -> Iterator[SourceRow | BadRow]:
    expected = len(header)
    while True:
        start = lines.line + 1
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            lines.errors.clear()
            yield BadRow(number=start, message=f"malformed CSV: {exc}", position=lines.position)
            continue
        if lines.errors:
            error = lines.errors[0]
            lines.errors.clear()
            yield BadRow(number=start, message=error.message, position=lines.position)
            continue
        if not row:
            continue
        if lines.exhausted_after_newline:
            yield BadRow(
                number=start,
                message='a quoted field is never closed (a " is missing before the end of file)',
                position=lines.position,
            )
            return
        if len(row) != expected:
            yield BadRow(
                number=start,
                message=f"expected {expected} fields (header), found {len(row)}",
                position=lines.position,
            )
            continue
        data = dict(zip(header, row, strict=True))
        yield SourceRow(number=start, data=data, position=lines.position)
