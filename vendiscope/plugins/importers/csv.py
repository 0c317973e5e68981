"""CSV and TSV importer: a header row, then one record per row; values stay strings."""

from __future__ import annotations

import csv
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

from vendiscope.api import BadRow, Importer, InputError, Location, SourceInfo, SourceRow
from vendiscope.plugins.importers._common import (
    PIECE_BYTES,
    canonical_encoding,
    check_text_file,
    decode_line,
    strip_bom,
)
from vendiscope.plugins.importers.limits import (
    MAX_FIELD_BYTES,
    MAX_ROW_BYTES,
    NUL_MESSAGE,
    FieldBytes,
    Limits,
    RowBytes,
    field_message,
    field_too_long,
    row_message,
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
    fewer fields than the header is a :class:`BadRow`, as is a row over ``max_row_bytes``
    (read on to its end without keeping it), a field over ``max_field_bytes`` and a field
    holding a NUL byte (see :mod:`vendiscope.plugins.importers.limits`). A blank column name
    in an otherwise named header becomes ``"Unnamed: i"`` (0-based, as pandas names it).

    Parameters
    ----------
    delimiter
        A one-character field delimiter, or ``None`` to choose it as described above.
    encoding
        The text encoding of the file; it must be ASCII-compatible.
    max_row_bytes, max_field_bytes
        The input limits (:mod:`vendiscope.plugins.importers.limits`).
    """

    def __init__(
        self,
        delimiter: str | None = None,
        encoding: str = "utf-8",
        max_row_bytes: RowBytes = MAX_ROW_BYTES,
        max_field_bytes: FieldBytes = MAX_FIELD_BYTES,
    ) -> None:
        self.delimiter = delimiter
        self.encoding = encoding
        self.max_row_bytes = max_row_bytes
        self.max_field_bytes = max_field_bytes

    def inspect(self, path: Path) -> SourceInfo:
        """File size in bytes as the progress total, and the header's column names."""
        path = Path(path)
        size = check_text_file(path, self.encoding)
        encoding = canonical_encoding(self.encoding, path)
        delimiter = self._delimiter_for(path, encoding)
        raise_field_size_limit()
        with path.open("rb") as handle:
            lines = _Lines(handle, encoding, self._limits())
            header, _ = _read_header(csv.reader(lines, delimiter=delimiter), lines, path)
        return SourceInfo(unit="line", total=size, progress_unit="B", columns=tuple(header))

    def read(self, path: Path) -> Iterator[SourceRow | BadRow]:
        """Yield each data row as a dict keyed by the header, or a :class:`BadRow`."""
        path = Path(path)
        check_text_file(path, self.encoding)
        encoding = canonical_encoding(self.encoding, path)
        delimiter = self._delimiter_for(path, encoding)
        raise_field_size_limit()
        limits = self._limits()
        with path.open("rb") as handle:
            lines = _Lines(handle, encoding, limits)
            header, _ = _read_header(csv.reader(lines, delimiter=delimiter), lines, path)
            yield from _rows(lambda: csv.reader(lines, delimiter=delimiter), lines, header, limits)

    def _limits(self) -> Limits:
        return Limits(row_bytes=self.max_row_bytes, field_bytes=self.max_field_bytes)

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


class _RowTooLong(Exception):
    """Raised through :func:`csv.reader` when a row passes ``max_row_bytes``."""


class _Lines:
    """Decode a binary file line by line for :func:`csv.reader`, counting lines and bytes.

    A line that does not decode is passed on with replacement characters and its
    :class:`BadRow` kept in :attr:`errors`, so the row it belongs to can be reported.
    :attr:`exhausted_after_newline` tells that the reader asked for more after a complete
    last line, which it does only inside an unclosed quoted field.

    Rows are bounded: :meth:`start_row` marks where one begins, and a row that would pass
    ``max_row_bytes`` stops the reader with :class:`_RowTooLong` at once. :meth:`resync`
    (called by the next read, or before it) then reads the rest of that row, in pieces and
    without keeping it, to the first line end outside quotes (quotes of standard CSV are
    doubled inside quoted fields, so an even count means outside). :attr:`nul` tells that
    the row's bytes hold a NUL.
    """

    def __init__(self, handle: IO[bytes], encoding: str, limits: Limits) -> None:
        self._handle = handle
        self._readline = handle.readline
        self._encoding = encoding
        self.limit = limits.row_bytes
        self.line = 0
        self.position = 0
        self.errors: list[BadRow] = []
        self.exhausted_after_newline = False
        self.row_bytes = 0
        self._quotes = 0
        self.nul = False
        self._last = b""
        self._cut: int | None = None  # quotes so far in a row cut at the limit

    def start_row(self) -> None:
        if self._cut is not None:
            self.resync()
        self.row_bytes = 0
        self._quotes = 0
        self.nul = False

    def __iter__(self) -> Iterator[str]:
        return self

    def __next__(self) -> str:
        if self._cut is not None:
            self.resync()
        budget = self.limit - self.row_bytes
        raw = self._readline(budget + 1)
        if not raw:
            # Asked for a line after one that ended with a newline: the reader was in quotes.
            self.exhausted_after_newline = self._last.endswith((b"\n", b"\r"))
            raise StopIteration
        self._last = raw
        self.line += 1
        size = len(raw)
        self.position += size
        if size > budget and not raw.endswith(b"\n"):
            self._cut = self._quotes + raw.count(b'"')
            raise _RowTooLong
        self.row_bytes += size
        self._quotes += raw.count(b'"')
        if b"\x00" in raw:
            self.nul = True
        if self.line == 1:
            raw = strip_bom(raw, self._encoding)
        try:
            return raw.decode(self._encoding)
        except UnicodeDecodeError:
            pass
        error = decode_line(raw, self.line, encoding=self._encoding, position=self.position)
        assert isinstance(error, BadRow)
        self.errors.append(error)
        return raw.decode(self._encoding, errors="replace")

    def resync(self) -> None:
        """Read on to the end of a row cut at the limit (nothing to do if none was)."""
        if self._cut is None:
            return
        quotes, self._cut = self._cut, None
        ended = False  # the cut line has not ended
        while True:
            piece = self._handle.readline(PIECE_BYTES)
            if not piece:
                break
            self.line += ended
            self.position += len(piece)
            self._last = piece
            quotes += piece.count(b'"')
            ended = piece.endswith(b"\n")
            if ended and quotes % 2 == 0:
                break
        self.errors.clear()
        self.row_bytes = 0
        self._quotes = 0
        self.nul = False


def _read_header(reader: Iterator[list[str]], lines: _Lines, path: Path) -> tuple[list[str], int]:
    """The header's column names and its line number; the first non-blank row is the header."""
    while True:
        lines.start_row()
        try:
            row = next(reader)
        except StopIteration:
            break
        except _RowTooLong:
            raise InputError(
                f"the header row is not readable: {row_message('row', None, lines.limit)}",
                Location(path, lines.line),
            ) from None
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
    make_reader: Callable[[], Iterator[list[str]]],
    lines: _Lines,
    header: list[str],
    limits: Limits,
) -> Iterator[SourceRow | BadRow]:
    expected = len(header)
    quarter = limits.field_bytes // 4  # a character is at most four bytes of UTF-8
    reader = make_reader()
    while True:
        lines.start_row()
        start = lines.line + 1
        try:
            row = next(reader)
        except StopIteration:
            return
        except _RowTooLong:
            reader = make_reader()  # the old one is inside the row it was cut off from
            message = row_message("row", None, limits.row_bytes)
            yield BadRow(number=start, message=message, position=lines.position)
            continue
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
        if lines.nul or lines.row_bytes > quarter:  # else no field can break a limit
            problem = _field_problem(row, header, limits)
            if problem is not None:
                message, field = problem
                yield BadRow(number=start, message=message, field=field, position=lines.position)
                continue
        if len(row) != expected:
            yield BadRow(
                number=start,
                message=f"expected {expected} fields (header), found {len(row)}",
                position=lines.position,
            )
            continue
        data = dict(zip(header, row, strict=True))
        yield SourceRow(number=start, data=data, position=lines.position)


def _field_problem(
    row: list[str], header: list[str], limits: Limits
) -> tuple[str, str | None] | None:
    """A field holding NUL or over ``max_field_bytes``: the message and the column."""
    for index, value in enumerate(row):
        column = header[index] if index < len(header) else None
        if "\x00" in value:
            return NUL_MESSAGE, column
        length = field_too_long(value, limits.field_bytes)
        if length is not None:
            return field_message(length, limits.field_bytes), column
    return None
