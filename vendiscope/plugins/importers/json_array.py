"""JSON array importer: one JSON document holding a list of objects, streamed item by item."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, NoReturn

import orjson

from vendiscope.api import BadRow, Importer, InputError, Location, SourceInfo, SourceRow
from vendiscope.plugins.importers._common import check_text_file, strip_bom
from vendiscope.plugins.importers._json import CHUNK_BYTES, ScanError, Scanner, parse_row
from vendiscope.plugins.importers.jsonl import json_type
from vendiscope.plugins.importers.limits import (
    MAX_DEPTH,
    MAX_FIELD_BYTES,
    MAX_ROW_BYTES,
    Depth,
    FieldBytes,
    Limits,
    RowBytes,
    RowProblem,
    depth_message,
    row_message,
)

_BOM = b"\xef\xbb\xbf"
_COMMA, _CLOSE_ARRAY, _CLOSE_OBJECT, _COLON = (ord(c) for c in ",]}:")


class JsonArrayImporter(Importer):
    """Read a ``.json`` file holding an array of objects.

    The top level may be the array itself, an object whose ``"data"`` value is the array,
    or an object with exactly one value that is a list of objects. The file is scanned in
    chunks and each item parsed on its own, so memory is bounded by the largest item
    (``max_row_bytes``), not the file. An item over a limit (see
    :mod:`vendiscope.plugins.importers.limits`) or that is not an object is a
    :class:`BadRow`; malformed JSON or invalid UTF-8 anywhere stops the import with an
    :class:`InputError` naming the line and column.

    Rows are numbered by their 1-based index in the array (unit ``"item"``). Progress is in
    bytes: ``position`` is the bytes read up to the end of the item (the file size at the
    last one). For an object at the top level, the file is read twice: once to find the
    array, once to stream it.

    Parameters
    ----------
    max_row_bytes, max_field_bytes, max_depth
        The input limits (:mod:`vendiscope.plugins.importers.limits`); an item is a row.
    """

    def __init__(
        self,
        max_row_bytes: RowBytes = MAX_ROW_BYTES,
        max_field_bytes: FieldBytes = MAX_FIELD_BYTES,
        max_depth: Depth = MAX_DEPTH,
    ) -> None:
        self.max_row_bytes = max_row_bytes
        self.max_field_bytes = max_field_bytes
        self.max_depth = max_depth

    def inspect(self, path: Path) -> SourceInfo:
        """File size in bytes as the progress total; rows are counted in items."""
        path = Path(path)
        size = check_text_file(path, "utf-8")
        return SourceInfo(unit="item", total=size, progress_unit="B")

    def read(self, path: Path) -> Iterator[SourceRow | BadRow]:
        """Yield each element of the array; a non-object element is a :class:`BadRow`."""
        path = Path(path)
        check_text_file(path, "utf-8")
        limits = Limits(self.max_row_bytes, self.max_field_bytes, self.max_depth)
        with path.open("rb") as handle:
            scanner = _open(handle)
            reader = _Reader(path, scanner, limits)
            start = scanner.skip_space(0)
            first = scanner.byte(start)
            if first is None:
                raise InputError("the file holds no JSON value (only blank space)", Location(path))
            if first == ord("["):
                yield from reader.items(start, whole=True)
                return
            if first != ord("{"):
                raise InputError(
                    f"expected a JSON array of objects, got {reader.scalar_type(start)}",
                    Location(path),
                )
            array = reader.find_array(start)
        with path.open("rb") as handle:
            handle.seek(array.offset)
            scanner = Scanner(handle, base=array.offset, line=array.line, line_start=array.start)
            yield from _Reader(path, scanner, limits).items(0, whole=False)


def _open(handle: IO[bytes]) -> Scanner:
    """A scanner on ``handle`` from its first byte, past a UTF-8 byte-order mark."""
    head = handle.read(len(_BOM))
    if head == _BOM:
        return Scanner(handle, base=len(_BOM), line_start=len(_BOM))
    return Scanner(handle, data=strip_bom(head, "utf-8"))


@dataclass(frozen=True)
class _Array:
    """Where the array of rows starts: byte offset, its line and where that line starts."""

    offset: int
    line: int
    start: int


class _Reader:
    def __init__(self, path: Path, scanner: Scanner, limits: Limits) -> None:
        self.path = path
        self.scanner = scanner
        self.limits = limits

    # ------------------------------------------------------------------ the array
    def items(self, pos: int, *, whole: bool) -> Iterator[SourceRow | BadRow]:
        """The items of the array whose ``[`` is at ``pos``; ``whole``: nothing may follow."""
        scanner = self.scanner
        pos = scanner.skip_space(pos + 1)
        if scanner.byte(pos) == _CLOSE_ARRAY:
            self._end(pos + 1, whole)
            return
        number = 0
        while True:
            number += 1
            pos = scanner.skip_space(pos)
            found = self._scan(pos, keep=True)
            if found.problem is None:
                item = self._parse(pos, found.end, number)
            else:
                item = self._bad_item(found, number)
            pos = scanner.skip_space(found.end)
            separator = scanner.byte(pos)
            if separator not in (_COMMA, _CLOSE_ARRAY):
                self._malformed(pos, f"expected ',' or ']' after item {number}")
            pos += 1
            if separator == _CLOSE_ARRAY:
                pos = self._end(pos, whole)
            if pos > CHUNK_BYTES:
                scanner.drop(pos)
                pos = 0
            yield _row(item, number, scanner.base + pos)
            if separator == _CLOSE_ARRAY:
                return

    def _parse(self, start: int, end: int, number: int) -> Any:
        raw = bytes(self.scanner.data[start:end])
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            line, column = self.scanner.where(start + exc.start)
            raise InputError(
                f"invalid UTF-8 at byte {column} of line {line}", Location(self.path, line)
            ) from None
        try:
            return parse_row(raw, text, self.limits, depth_checked=True)
        except RowProblem as exc:
            return exc
        except orjson.JSONDecodeError:
            pass
        try:  # what orjson refuses and Python reads (NaN, Infinity): depth is bounded here
            return json.loads(text)
        except json.JSONDecodeError as exc:
            line, column = self.scanner.where(start)
            if exc.lineno == 1:
                column += exc.colno - 1
            else:
                line, column = line + exc.lineno - 1, exc.colno
            raise InputError(
                f"malformed JSON: {exc.msg} at line {line}, column {column}",
                Location(self.path, line),
            ) from None

    def _bad_item(self, found: Any, number: int) -> RowProblem:
        if found.problem == "deep":
            return RowProblem(depth_message(self.limits.depth), found.key)
        return RowProblem(row_message("item", found.length, self.limits.row_bytes))

    def _end(self, pos: int, whole: bool) -> int:
        """After the array: for a ``whole`` document, only blank space may follow."""
        if not whole:
            return pos
        pos = self.scanner.skip_space(pos)
        if self.scanner.byte(pos) is not None:
            self._malformed(pos, "extra data after the array")
        return pos

    # ------------------------------------------------------------------ an object
    def find_array(self, pos: int) -> _Array:
        """The array of rows in the object whose ``{`` is at ``pos`` (steps over the rest)."""
        scanner = self.scanner
        arrays: dict[str, tuple[_Array, bool]] = {}  # key -> (where, a non-empty list of objects)
        pos = scanner.skip_space(pos + 1)
        if scanner.byte(pos) != _CLOSE_OBJECT:
            while True:
                pos = scanner.skip_space(pos)
                if scanner.byte(pos) != ord('"'):
                    self._malformed(pos, "expected a member name in quotes")
                key, end = self._key(pos)
                pos = scanner.skip_space(end)
                if scanner.byte(pos) != _COLON:
                    self._malformed(pos, f"expected ':' after the member name '{key}'")
                pos = scanner.skip_space(pos + 1)
                if scanner.byte(pos) == ord("["):
                    line, column = scanner.where(pos)
                    where = _Array(scanner.base + pos, line, scanner.base + pos - column + 1)
                    pos, objects = self._step_over_array(pos)
                    arrays[key] = (where, objects)
                else:
                    arrays.pop(key, None)
                    pos = self._scan(pos, keep=False).end
                pos = scanner.skip_space(pos)
                separator = scanner.byte(pos)
                if separator == _CLOSE_OBJECT:
                    break
                if separator != _COMMA:
                    self._malformed(pos, f"expected ',' or '}}' after the member '{key}'")
                pos += 1
        pos = scanner.skip_space(pos + 1)
        if scanner.byte(pos) is not None:
            self._malformed(pos, "extra data after the top-level object", lines_hint=True)
        if "data" in arrays:
            return arrays["data"][0]
        lists = [key for key, (_, objects) in arrays.items() if objects]
        if len(lists) == 1:
            return arrays[lists[0]][0]
        if not lists:
            raise InputError(
                "expected a JSON array of objects, or an object holding one; this object "
                "holds no list of objects",
                Location(self.path),
            )
        names = ", ".join(f"'{key}'" for key in lists)
        raise InputError(
            f"the top-level object holds several lists of objects ({names}); "
            "cannot tell which one is the data",
            Location(self.path),
        )

    def _step_over_array(self, pos: int) -> tuple[int, bool]:
        """Step over the array at ``pos``: where it ends, whether it is a list of objects."""
        scanner = self.scanner
        pos = scanner.skip_space(pos + 1)
        if scanner.byte(pos) == _CLOSE_ARRAY:
            return pos + 1, False
        objects = True
        while True:
            pos = scanner.skip_space(pos)
            objects = objects and scanner.byte(pos) == ord("{")
            pos = scanner.skip_space(self._scan(pos, keep=False).end)
            separator = scanner.byte(pos)
            if separator == _CLOSE_ARRAY:
                return pos + 1, objects
            if separator != _COMMA:
                self._malformed(pos, "expected ',' or ']' in an array")
            pos += 1

    def _key(self, pos: int) -> tuple[str, int]:
        """The member name whose opening quote is at ``pos``, and where it ends."""
        found = self._scan(pos, keep=True)
        if found.problem is not None:
            self._malformed(pos, "a member name longer than max_row_bytes")
        try:
            return orjson.loads(bytes(self.scanner.data[pos : found.end])), found.end
        except orjson.JSONDecodeError as exc:
            self._malformed(pos, f"a member name is not a valid string ({exc.msg})")

    def scalar_type(self, pos: int) -> str:
        """The JSON type of the top-level value at ``pos`` (not an array or object)."""
        found = self._scan(pos, keep=True)
        try:
            value = orjson.loads(bytes(self.scanner.data[pos : found.end]))
        except orjson.JSONDecodeError:
            self._malformed(pos, "not a JSON value")
        return json_type(value)

    # ------------------------------------------------------------------ helpers
    def _scan(self, pos: int, *, keep: bool) -> Any:
        try:
            return self.scanner.value(pos, limits=self.limits if keep else None, keep=keep)
        except ScanError as exc:
            self._malformed(exc.offset - self.scanner.base, exc.message)

    def _malformed(self, pos: int, message: str, *, lines_hint: bool = False) -> NoReturn:
        line, column = self.scanner.where(pos)
        hint = ""
        if lines_hint and _first_line_is_object(self.path, self.limits.row_bytes):
            hint = "; this looks like JSON Lines (one object per line): choose that format"
        raise InputError(
            f"malformed JSON: {message} at line {line}, column {column}{hint}",
            Location(self.path, line),
        )


def _row(item: Any, number: int, position: int) -> SourceRow | BadRow:
    if isinstance(item, RowProblem):
        return BadRow(number=number, message=item.message, field=item.field, position=position)
    if isinstance(item, dict):
        return SourceRow(number=number, data=item, position=position)
    return BadRow(
        number=number,
        message=f"item {number}: expected a JSON object, got {json_type(item)}",
        position=position,
    )


def _first_line_is_object(path: Path, limit: int) -> bool:
    with path.open("rb") as handle:
        first = strip_bom(handle.readline(limit + 1), "utf-8")
    try:
        return isinstance(orjson.loads(first), dict)
    except orjson.JSONDecodeError:
        return False
