"""Input limits of the built-in importers: the one place that holds their defaults.

A source may hold anything: one line of a gigabyte, a value nested ten thousand levels
deep, a NUL byte in the middle of a text. Every built-in importer reads within three limits,
each an importer parameter (``--param NAME=VALUE`` on the command line, the importer's
options in the app), so a user can raise one for a source that needs it:

``max_row_bytes``
    The longest row, in bytes of the source: a line of JSON Lines (without its line end,
    after decompression for ``.gz``), a row of CSV/TSV (quoted line breaks included), an item
    of a JSON array. The reader never holds more than this much of a row: a longer one is
    reported as a bad row and stepped over in bounded pieces, without being kept, to the
    next line (the end of the row for CSV, of the item for JSON).
``max_field_bytes``
    The longest single value, in bytes of UTF-8 (raw bytes for a binary column): a string at
    any depth of a JSON row, a CSV field, a Parquet or Hugging Face cell, a whole text file of
    a text folder.
``max_depth``
    The deepest nesting of lists and objects in a row; the row itself is level 1, so
    ``{"a": [1]}`` is 2 levels deep. At most :data:`DEPTH_CEILING`: deeper rows could not be
    stored.

A compressed source (``.jsonl.gz``) is read within two more, so that a small file cannot
make the reader work for hours (1 MB of gzip holds 1 GiB of newlines):

``max_gzip_ratio``
    What the file may decompress to, as a multiple of its size on disk; a small file may
    always decompress to :data:`GZIP_FLOOR_BYTES`. Text data compresses 4 to 10 times, rows
    repeating a long prompt around 100 times; a gzip bomb about 1,000 times.
``max_gzip_bytes``
    What any file may decompress to, whatever its size.

A source over either is refused as a whole (it is no bad row): the import stops, and
nothing of it is imported.

A row over a limit is a :class:`~vendiscope.api.BadRow` naming the row
and, where there is one, the field: the import stops on it, or skips and reports it with
``--skip-bad``. So is a NUL byte in the text of a text source (JSON Lines, JSON, CSV/TSV, a
text file): it is the mark of binary data or damage, not of text. JSON's escape ``\\u0000``
is text, and imports unchanged (a JSON Lines export reads back as it was written).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any

from vendiscope.api import Range

MiB = 1024 * 1024

MAX_ROW_BYTES = 64 * MiB
"""Default of ``max_row_bytes``: the longest row (line, CSV row, JSON item)."""

MAX_FIELD_BYTES = 64 * MiB
"""Default of ``max_field_bytes``: the longest value (string, bytes, text file)."""

MAX_DEPTH = 64
"""Default of ``max_depth``: the deepest nesting of lists and objects in a row."""

MAX_GZIP_RATIO = 200
"""Default of ``max_gzip_ratio``: decompressed bytes per byte of a ``.gz`` file."""

MAX_GZIP_BYTES = 64 * 1024 * MiB
"""Default of ``max_gzip_bytes``: the most a ``.gz`` file may decompress to (64 GiB)."""

GZIP_FLOOR_BYTES = 64 * MiB
"""What a ``.gz`` file may always decompress to, whatever its size (up to ``max_gzip_bytes``)."""

DEPTH_CEILING = 200
"""The highest ``max_depth`` accepted: stored rows are written as JSON by orjson, which
stops at 254 levels (the stored form may add one)."""

RowBytes = Annotated[
    int,
    Range(1),
    "Longest row in bytes (a line, a CSV row, a JSON item); a longer one is a bad row.",
]
FieldBytes = Annotated[
    int,
    Range(1),
    "Longest single value in bytes (a string, a CSV field, a cell, a text file); "
    "a longer one is a bad row.",
]
Depth = Annotated[
    int,
    Range(1, DEPTH_CEILING),
    "Deepest nesting of lists and objects in a row (the row is level 1); "
    "a deeper row is a bad row.",
]

GzipRatio = Annotated[
    int,
    Range(1),
    "Most a .gz file may decompress to, as a multiple of its size (a compression bomb is refused).",
]
GzipBytes = Annotated[int, Range(1), "Most a .gz file may decompress to, in bytes."]

NUL_MESSAGE = "holds a NUL byte (binary data or a damaged file, not text)"


@dataclass(frozen=True)
class Limits:
    """The limits one importer reads within (see the module docstring)."""

    row_bytes: int = MAX_ROW_BYTES
    field_bytes: int = MAX_FIELD_BYTES
    depth: int = MAX_DEPTH


class RowProblem(ValueError):
    """A row over a limit, or holding NUL: ``message`` and the ``field`` (a path) or None."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


def row_message(what: str, length: int | None, limit: int) -> str:
    """``"the line is 10,485,773 bytes long, over the limit of 1,048,576 bytes ..."``.

    ``length`` is None when the reader stopped at the limit, without reading the rest.
    """
    if length is None:
        return (
            f"the {what} is longer than the limit of {limit:,} bytes "
            "(importer option max_row_bytes)"
        )
    return (
        f"the {what} is {length:,} bytes long, over the limit of {limit:,} bytes "
        "(importer option max_row_bytes)"
    )


def field_message(length: int, limit: int) -> str:
    return (
        f"the value is {length:,} bytes long, over the limit of {limit:,} bytes "
        "(importer option max_field_bytes)"
    )


def gzip_bound(size: int, ratio: int, cap: int) -> tuple[int, str]:
    """The most a ``.gz`` file of ``size`` bytes may decompress to, and the message when it
    decompresses to more (the limits are ``max_gzip_ratio`` and ``max_gzip_bytes``)."""
    allowed = max(GZIP_FLOOR_BYTES, ratio * size)
    if allowed <= cap:
        return allowed, (
            f"decompresses to more than {ratio:,} times its size (a compression bomb?); "
            "nothing was imported (importer option max_gzip_ratio)"
        )
    return cap, (
        f"decompresses to more than {cap:,} bytes; nothing was imported "
        "(importer option max_gzip_bytes)"
    )


def depth_message(limit: int) -> str:
    return f"nested deeper than {limit} levels (importer option max_depth)"


def text_bytes(value: str) -> int:
    """The UTF-8 length of ``value`` (lone surrogates counted as three bytes)."""
    return len(value.encode("utf-8", "surrogatepass"))


def field_too_long(value: str | bytes, limit: int) -> int | None:
    """The byte length of ``value`` if it is over ``limit``, else None (cheap when short)."""
    if isinstance(value, str):
        if 4 * len(value) <= limit:  # a character is at most four bytes of UTF-8
            return None
        length = text_bytes(value)
    else:
        length = len(value)
    return length if length > limit else None


def check_value(
    row: Mapping[str, Any],
    limits: Limits,
    *,
    depth: bool = True,
    sizes: bool = True,
    nul: str | None = None,
) -> None:
    """Raise :class:`RowProblem` if a value of ``row`` breaks a limit or holds ``nul``.

    Walks the row without recursion (so any depth is safe); ``depth`` and ``sizes`` choose
    the checks, so callers that know a check cannot fail skip its cost. ``nul`` is the
    character that stands for a NUL byte of the source in a string (``"\\x00"`` for CSV), or
    None for no NUL check. The field named is the path of the value: ``meta.q``,
    ``messages[2].content``.
    """
    stack: list[tuple[Any, int, str]] = [
        (value, 2, str(key)) for key, value in reversed(list(row.items()))
    ]
    while stack:
        value, level, path = stack.pop()
        if isinstance(value, str):
            if sizes and (length := field_too_long(value, limits.field_bytes)) is not None:
                raise RowProblem(field_message(length, limits.field_bytes), path)
            if nul is not None and nul in value:
                raise RowProblem(NUL_MESSAGE, path)
        elif isinstance(value, bytes | bytearray):
            if sizes and len(value) > limits.field_bytes:
                raise RowProblem(field_message(len(value), limits.field_bytes), path)
        elif isinstance(value, Mapping):
            if depth and level > limits.depth:
                raise RowProblem(depth_message(limits.depth), _top(path))
            stack.extend(
                (item, level + 1, f"{path}.{key}") for key, item in reversed(list(value.items()))
            )
        elif isinstance(value, list | tuple):
            if depth and level > limits.depth:
                raise RowProblem(depth_message(limits.depth), _top(path))
            stack.extend(
                (item, level + 1, f"{path}[{index}]")
                for index, item in reversed(list(enumerate(value)))
            )


def _top(path: str) -> str:
    """The top-level column of a value's path (where the too-deep nesting starts)."""
    for index, char in enumerate(path):
        if char in ".[" and index:
            return path[:index]
    return path
