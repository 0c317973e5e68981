"""JSON Lines importer: one JSON object per line, optionally gzip-compressed."""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import orjson

from vendiscope.core.errors import InputError, Location
from vendiscope.core.plugins.interfaces import BadRow, Importer, SourceInfo, SourceRow
from vendiscope.plugins.importers._common import (
    SNIFF_BYTES,
    canonical_encoding,
    check_file,
    check_text_sample,
    decode_line,
    strip_bom,
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

    Memory is bounded by the longest line. Blank lines are skipped but counted, so
    :attr:`SourceRow.number` is the physical line number. ``position`` is the number of
    (compressed) bytes consumed so far; :meth:`inspect` gives the file size as the total.

    Parameters
    ----------
    encoding
        The text encoding of the file; it must be ASCII-compatible.
    """

    def __init__(self, encoding: str = "utf-8") -> None:
        self.encoding = encoding

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
        with _open_lines(path) as (lines, where):
            for number, raw in enumerate(_guard(lines, path), start=1):
                position = where()
                if number == 1:
                    raw = strip_bom(raw, encoding)
                raw = raw.rstrip(b"\r\n")
                if not raw.strip():
                    continue
                yield _parse_line(raw, number, encoding, position)

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


def _parse_line(raw: bytes, number: int, encoding: str, position: int) -> SourceRow | BadRow:
    text = decode_line(raw, number, encoding=encoding, position=position)
    if isinstance(text, BadRow):
        return text
    try:
        value = orjson.loads(text)
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


@contextmanager
def _open_lines(path: Path) -> Iterator[tuple[Iterable[bytes], Callable[[], int]]]:
    """Open ``path`` for binary line iteration; also return a callable giving bytes consumed."""
    with path.open("rb") as raw:
        if is_gzip(path):
            with gzip.GzipFile(fileobj=raw, mode="rb") as unzipped:
                yield unzipped, raw.tell
        else:
            consumed = _Counter(raw)
            yield consumed, consumed.tell


class _Counter:
    """Iterate a binary file's lines, counting the bytes handed out (``tell`` is exact)."""

    def __init__(self, handle: IO[bytes]) -> None:
        self._handle = handle
        self._consumed = 0

    def __iter__(self) -> Iterator[bytes]:
        for line in self._handle:
            self._consumed += len(line)
            yield line

    def tell(self) -> int:
        return self._consumed


def _guard(lines: Iterable[bytes], path: Path) -> Iterator[bytes]:
    """Turn a corrupt gzip stream met half-way into an :class:`InputError`."""
    iterator = iter(lines)
    while True:
        try:
            line = next(iterator)
        except StopIteration:
            return
        except _GZIP_ERRORS as exc:
            raise InputError(f"the gzip file is damaged ({exc})", Location(path)) from None
        yield line
