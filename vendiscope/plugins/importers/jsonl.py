"""JSON Lines importer: one JSON object per line, optionally gzip-compressed."""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson

from vendiscope.api import BadRow, Importer, InputError, Location, SourceInfo, SourceRow
from vendiscope.plugins.importers._common import (
    BUFFER_BYTES,
    SNIFF_BYTES,
    Readable,
    bounded_lines,
    canonical_encoding,
    check_file,
    check_text_sample,
    decode_line,
    strip_bom,
)
from vendiscope.plugins.importers._gzip import open_bounded
from vendiscope.plugins.importers._json import parse_row
from vendiscope.plugins.importers.limits import (
    MAX_DEPTH,
    MAX_FIELD_BYTES,
    MAX_GZIP_BYTES,
    MAX_GZIP_RATIO,
    MAX_ROW_BYTES,
    Depth,
    FieldBytes,
    GzipBytes,
    GzipRatio,
    Limits,
    RowBytes,
    RowProblem,
    row_message,
)

_GZIP_ERRORS = (gzip.BadGzipFile, EOFError, zlib.error)

_JSON_TYPES = {list: "list", str: "string", int: "number", float: "number", bool: "boolean"}


def json_type(value: Any) -> str:
    """The JSON name of a parsed value's type, for messages."""
    if value is None:
        return "null"
    return _JSON_TYPES.get(type(value), type(value).__name__)


def is_gzip(path: Path) -> bool:
    """Whether ``path`` is read through gzip (by its ``.gz`` suffix)."""
    return path.name.lower().endswith(".gz")


class JsonlImporter(Importer):
    """Read a JSON Lines file (``.jsonl``, ``.ndjson``, ``.jsonl.gz``) line by line.

    Memory is bounded by ``max_row_bytes``: a longer line is stepped over in pieces and
    reported as a :class:`BadRow`, as is a row nested deeper than ``max_depth``, a string
    longer than ``max_field_bytes`` or a string holding NUL (see
    :mod:`vendiscope.plugins.importers.limits`). A ``.gz`` file that decompresses to more
    than ``max_gzip_ratio`` times its size, or ``max_gzip_bytes``, is refused (a compression
    bomb). Blank lines are skipped (runs of them a buffer at a time) but counted, so
    :attr:`SourceRow.number` is the physical line number. ``position`` is the number of
    (compressed) bytes consumed so far; :meth:`inspect` gives the file size as the total.

    Parameters
    ----------
    encoding
        The text encoding of the file; it must be ASCII-compatible.
    max_row_bytes, max_field_bytes, max_depth, max_gzip_ratio, max_gzip_bytes
        The input limits (:mod:`vendiscope.plugins.importers.limits`).
    """

    def __init__(
        self,
        encoding: str = "utf-8",
        max_row_bytes: RowBytes = MAX_ROW_BYTES,
        max_field_bytes: FieldBytes = MAX_FIELD_BYTES,
        max_depth: Depth = MAX_DEPTH,
        max_gzip_ratio: GzipRatio = MAX_GZIP_RATIO,
        max_gzip_bytes: GzipBytes = MAX_GZIP_BYTES,
    ) -> None:
        self.encoding = encoding
        self.max_row_bytes = max_row_bytes
        self.max_field_bytes = max_field_bytes
        self.max_depth = max_depth
        self.max_gzip_ratio = max_gzip_ratio
        self.max_gzip_bytes = max_gzip_bytes

    def inspect(self, path: Path) -> SourceInfo:
        """File size in bytes as the progress total; rows are counted in lines."""
        path = Path(path)
        size = self._check(path)
        return SourceInfo(unit="line", total=size, progress_unit="B")

    def read(self, path: Path) -> Iterator[SourceRow | BadRow]:
        """Yield each non-blank line as a row, or a :class:`BadRow` saying what is wrong."""
        path = Path(path)
        self._check(path)
        encoding = canonical_encoding(self.encoding, path)
        limits = Limits(self.max_row_bytes, self.max_field_bytes, self.max_depth)
        with self._open_stream(path) as (stream, where):
            lines = bounded_lines(stream, limits.row_bytes, skip_blank=True)
            try:
                for number, raw, consumed in lines:
                    position = consumed if where is None else where()
                    if raw is None:
                        message = row_message("line", None, limits.row_bytes)
                        yield BadRow(number=number, message=message, position=position)
                        continue
                    if number == 1:
                        raw = strip_bom(raw, encoding)
                    raw = raw.rstrip(b"\r\n")
                    if not raw.strip():
                        continue
                    yield _parse_line(raw, number, encoding, position, limits)
            except _GZIP_ERRORS as exc:  # a corrupt gzip stream met half-way
                raise InputError(f"the gzip file is damaged ({exc})", Location(path)) from None

    def _check(self, path: Path) -> int:
        size = check_file(path)
        encoding = canonical_encoding(self.encoding, path)
        if is_gzip(path):
            try:
                with gzip.open(path, "rb") as handle:
                    sample = handle.read(SNIFF_BYTES)
            except _GZIP_ERRORS as exc:
                raise InputError(f"not a valid gzip file ({exc})", Location(path)) from None
            if not sample:
                raise InputError("file is empty (after decompression)", Location(path))
        else:
            with path.open("rb") as handle:
                sample = handle.read(SNIFF_BYTES)
        check_text_sample(sample, encoding, path)
        return size

    @contextmanager
    def _open_stream(self, path: Path) -> Iterator[tuple[Readable, Callable[[], int] | None]]:
        """Open ``path`` as a buffered binary stream, with a callable giving the compressed
        bytes read (None for a plain file: the bytes of the lines read are the position)."""
        with path.open("rb", buffering=BUFFER_BYTES) as raw:
            if is_gzip(path):
                with open_bounded(raw, path, self.max_gzip_ratio, self.max_gzip_bytes) as unzipped:
                    yield unzipped, raw.tell
            else:
                yield raw, None


def _parse_line(
    raw: bytes, number: int, encoding: str, position: int, limits: Limits
) -> SourceRow | BadRow:
    try:
        text = raw.decode(encoding)
    except UnicodeDecodeError:
        return decode_line(raw, number, encoding=encoding, position=position)  # the BadRow
    try:
        value = parse_row(raw, text, limits)
    except RowProblem as exc:
        return BadRow(number=number, message=exc.message, field=exc.field, position=position)
    except orjson.JSONDecodeError as exc:
        return BadRow(
            number=number,
            message=f"malformed JSON: {exc.msg} (column {exc.colno})",
            position=position,
        )
    if not isinstance(value, dict):
        return BadRow(
            number=number,
            message=f"expected a JSON object, got {json_type(value)}",
            position=position,
        )
    return SourceRow(number=number, data=value, position=position)
