"""JSON within limits: one row parsed and checked, and a scanner that finds where values end.

The scanner walks the structure of JSON text (strings, brackets) without building values, in
bounded memory and without recursion, so a value of any length or depth can be measured or
stepped over: the JSON array importer streams its items with it, and a JSON Lines row with
many brackets is checked with it before it is parsed.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from typing import IO, Any

import orjson

from vendiscope.plugins.importers.limits import (
    NUL_MESSAGE,
    Limits,
    RowProblem,
    check_value,
    depth_message,
)

CHUNK_BYTES = 1024 * 1024
"""How much the scanner reads at a time."""

NUL_MARKER = "\ufdd0"
"""A noncharacter that stands for a NUL byte while a row is parsed to find its field."""

KEY_BYTES = 1024
"""Longest object key remembered to name the field of a too-deep value."""

_STRUCTURE = re.compile(rb'["\[\]{}]')
_STRING_END = re.compile(rb'["\\]')
_SKIP = re.compile(rb'(?:[^"\[\]{}]+|"[^"\\]*(?:\\.[^"\\]*)*")*', re.DOTALL)
_SCALAR_END = re.compile(rb"[\s,\]}:]")
_NOT_SPACE = re.compile(rb"[^ \t\r\n]")
_OPEN = frozenset(b"[{")
_SPACE = frozenset(b" \t\r\n")


def _shallow_value(levels: int) -> re.Pattern[bytes] | None:
    """A pattern matching a whole array or object at most ``levels`` deep, or None.

    Possessive quantifiers (Python 3.11) make it fail fast instead of backtracking; without
    them there is no such pattern and every value takes the bracket-by-bracket scan.
    """
    if sys.version_info < (3, 11):
        return None
    flat = rb"[^\"\[\]{}]++"
    string = rb'"[^"\\]*+(?:\\.[^"\\]*+)*+"'
    inner = rb"(?:" + flat + rb"|" + string + rb")*+"
    for _ in range(levels - 1):
        inner = rb"(?:" + flat + rb"|" + string + rb"|\[" + inner + rb"\]|\{" + inner + rb"\})*+"
    return re.compile(rb"\{" + inner + rb"\}|\[" + inner + rb"\]", re.DOTALL)


SHALLOW_LEVELS = 4
"""Values at most this deep are matched in one step (see :func:`_shallow_value`)."""

_SHALLOW = _shallow_value(SHALLOW_LEVELS)
_QUOTE = ord('"')
_BACKSLASH = ord("\\")
_SCALAR_START = frozenset(b"-0123456789tfnNI")


def parse_row(raw: bytes, text: str, limits: Limits, *, depth_checked: bool = False) -> Any:
    """Parse one JSON row (``text``, decoded from ``raw``) within ``limits``.

    Raises :class:`RowProblem` for a row too deep, a value too long, or a NUL byte (the field
    named), and ``orjson.JSONDecodeError`` for malformed JSON. Cheap byte counts on ``raw``
    skip each check that cannot fail, so an ordinary row costs one parse.
    """
    if not depth_checked and raw.count(b"[") + raw.count(b"{") > limits.depth:
        scanner = Scanner.of(raw)
        try:
            found = scanner.value(scanner.skip_space(0), limits=limits)
        except ScanError:
            pass  # malformed: orjson says how, below
        else:
            if found.problem == "deep":
                raise RowProblem(depth_message(limits.depth), found.key)
    nul = None
    if "\x00" in text:  # invalid in JSON; parsed as a marker to name the field holding it
        nul = NUL_MARKER if NUL_MARKER not in text else "\x00"
        text = text.replace("\x00", "\\u" + f"{ord(nul):04x}")
    value = orjson.loads(text)
    if nul is not None or len(raw) > limits.field_bytes // 4:
        if isinstance(value, dict):
            check_value(value, limits, depth=False, nul=nul)
        if nul is not None:  # not in a value: in a key
            raise RowProblem(NUL_MESSAGE)
    return value


@dataclass(frozen=True)
class Found:
    """Where a value ends (an index into :attr:`Scanner.data`) and what is wrong with it.

    ``problem`` is ``None``, ``"long"`` (over the byte limit) or ``"deep"`` (over the depth
    limit); a value with a problem was stepped over, not kept. ``key`` names the top-level
    member holding the too-deep part; ``length`` is the value's length in bytes.
    """

    end: int
    length: int
    problem: str | None = None
    key: str | None = None


class ScanError(ValueError):
    """The JSON text is malformed at absolute byte offset ``offset``."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset


class Scanner:
    """A window (:attr:`data`) on a binary stream read in chunks, with line bookkeeping.

    Indices are into :attr:`data`; :attr:`base` is the absolute offset of ``data[0]``.
    :meth:`drop` forgets consumed bytes, counting the lines they held, so that
    :meth:`where` can name the line and column of any byte still in the window.
    """

    def __init__(
        self,
        handle: IO[bytes] | None,
        *,
        base: int = 0,
        line: int = 1,
        line_start: int = 0,
        data: bytes = b"",
    ) -> None:
        self._handle = handle
        self.data = bytearray(data)
        self.base = base
        self._line = line  # the line number of data[0]
        self._line_start = line_start  # absolute offset where that line starts
        self.eof = handle is None

    @classmethod
    def of(cls, raw: bytes) -> Scanner:
        """A scanner over bytes already in memory."""
        return cls(None, data=raw)

    # ------------------------------------------------------------------ window
    def fill(self) -> bool:
        """Read one more chunk; False at the end of the stream."""
        if self.eof:
            return False
        assert self._handle is not None
        chunk = self._handle.read(CHUNK_BYTES)
        if not chunk:
            self.eof = True
            return False
        self.data += chunk
        return True

    def drop(self, upto: int) -> None:
        """Forget ``data[:upto]``."""
        if upto <= 0:
            return
        newlines = self.data.count(b"\n", 0, upto)
        if newlines:
            self._line += newlines
            self._line_start = self.base + self.data.rfind(b"\n", 0, upto) + 1
        del self.data[:upto]
        self.base += upto

    def where(self, index: int) -> tuple[int, int]:
        """The 1-based line and byte column of ``data[index]``."""
        index = max(0, min(index, len(self.data)))
        line = self._line + self.data.count(b"\n", 0, index)
        newline = self.data.rfind(b"\n", 0, index)
        start = self.base + newline + 1 if newline >= 0 else self._line_start
        return line, self.base + index - start + 1

    def skip_space(self, pos: int) -> int:
        """The index of the next non-blank byte at or after ``pos`` (``len(data)`` at the end)."""
        if pos < len(self.data) and self.data[pos] not in _SPACE:
            return pos
        while True:
            match = _NOT_SPACE.search(self.data, pos)
            if match is not None:
                return match.start()
            pos = max(pos, len(self.data))
            if not self.fill():
                return pos

    def byte(self, pos: int) -> int | None:
        """``data[pos]``, reading on if needed; None at the end of the stream."""
        if pos < len(self.data):
            return self.data[pos]
        while pos >= len(self.data):
            if not self.fill():
                return None
        return self.data[pos]

    # ------------------------------------------------------------------ values
    def value(self, pos: int, *, limits: Limits | None = None, keep: bool = True) -> Found:
        """Step over the JSON value starting at ``data[pos]``; see :class:`Found`.

        With ``keep``, the value stays in :attr:`data` (``data[pos:found.end]``) unless it
        breaks ``limits``; then, or without ``keep``, consumed bytes are dropped as the scan
        goes (so memory stays within the row limit and a chunk), and only ``found.end`` is
        an index into what is left. Only the structure is checked: the caller parses a kept
        value.

        Raises
        ------
        ScanError
            If no value starts at ``pos`` or the stream ends inside the value.
        """
        first = self.byte(pos)
        if first is None:
            raise ScanError("the file ends where a value was expected", self.base + pos)
        if first not in _OPEN and first != _QUOTE and first not in _SCALAR_START:
            raise ScanError(f"unexpected character {chr(first)!r}", self.base + pos)
        max_bytes = limits.row_bytes if limits is not None else None
        max_depth = limits.depth if limits is not None else None
        start = self.base + pos  # absolute: indices move when bytes are dropped
        discard = not keep
        problem: str | None = None
        problem_key: str | None = None
        if first not in _OPEN and first != _QUOTE:
            return self._scalar(pos, start, max_bytes, discard)
        data = self.data
        if (
            _SHALLOW is not None
            and keep
            and first != _QUOTE
            and (max_depth is None or max_depth >= SHALLOW_LEVELS)
        ):
            shallow = _SHALLOW.match(data, pos)
            if shallow is not None:  # the whole value is here, and not deep
                length = shallow.end() - pos
                long = max_bytes is not None and length > max_bytes
                return Found(shallow.end(), length, "long" if long else None)
        depth = 0 if first == _QUOTE else 1
        in_string = first == _QUOTE
        pos += 1
        while True:
            if in_string:
                match = _STRING_END.search(data, pos)
                found = match.start() if match is not None else -1
            else:  # blank space, scalars, whole strings: at C speed, to the next bracket
                # mypy, on the next line: _SKIP matches the empty string, never None
                found = _SKIP.match(data, pos).end()  # type: ignore[union-attr]
                if found >= len(data):
                    found = -1
            if found < 0:  # read on; bytes before pos are no longer needed
                pos = max(pos, len(data))
                over = max_bytes is not None and self.base + pos - start > max_bytes
                if problem is None and over:
                    problem, discard = "long", True
                if discard:
                    cut = len(data)
                    self.drop(cut)
                    pos -= cut
                if not self.fill():
                    raise ScanError(
                        "the file ends inside a value (a closing bracket or quote is missing)",
                        start,
                    )
                data = self.data
                continue
            char = data[found]
            pos = found + 1
            if in_string:
                if char == _BACKSLASH:
                    pos += 1  # the escaped byte, perhaps in the next chunk
                    continue
                in_string = False
                if depth == 0:
                    break
            elif char == _QUOTE:  # a string not closed in what has been read yet
                in_string = True
            elif char in _OPEN:
                depth += 1
                if max_depth is not None and depth > max_depth and problem is None:
                    if first == ord("{") and not discard:  # the value is all still here
                        problem_key = _member_at(data, start - self.base, found)
                    problem, discard = "deep", True
            else:
                depth -= 1
                if depth == 0:
                    break
        length = self.base + pos - start
        if problem is None and max_bytes is not None and length > max_bytes:
            problem = "long"
        return Found(pos, length, problem, problem_key)

    def _scalar(self, pos: int, start: int, max_bytes: int | None, discard: bool) -> Found:
        problem = None
        while True:
            match = _SCALAR_END.search(self.data, pos)
            if match is not None:
                pos = match.start()
                break
            pos = max(pos, len(self.data))
            if problem is None and max_bytes is not None and self.base + pos - start > max_bytes:
                problem, discard = "long", True
            if discard:
                cut = len(self.data)
                self.drop(cut)
                pos -= cut
            if not self.fill():
                break
        length = self.base + pos - start
        if problem is None and max_bytes is not None and length > max_bytes:
            problem = "long"
        return Found(pos, length, problem)


def _member_at(data: bytearray, start: int, index: int) -> str | None:
    """The name of the member of the object at ``data[start]`` that holds ``data[index]``."""
    depth = 0
    pos = start
    key: bytes | None = None
    while pos < index:
        match = _STRUCTURE.search(data, pos, index)
        if match is None:
            break
        char = data[match.start()]
        if char == _QUOTE:
            end = _string_end(data, match.start() + 1, index)
            if depth == 1 and end - match.start() <= KEY_BYTES:
                key = bytes(data[match.start() : end])
            pos = end
            continue
        depth += 1 if char in _OPEN else -1
        pos = match.start() + 1
    return _key(key)


def _string_end(data: bytearray, pos: int, limit: int) -> int:
    """The index after the closing quote of the string whose body starts at ``pos``."""
    while True:
        match = _STRING_END.search(data, pos, limit)
        if match is None:
            return limit
        if data[match.start()] == _QUOTE:
            return match.start() + 1
        pos = match.start() + 2


def _key(raw: bytes | None) -> str | None:
    if raw is None:
        return None
    try:
        key = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return raw[1:-1].decode("utf-8", errors="replace")
    return key if isinstance(key, str) else None
