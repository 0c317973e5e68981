"""Helpers shared by the built-in importers: source checks and per-line decoding."""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

from vendiscope.api import BadRow, InputError, Location

SNIFF_BYTES = 8192
"""How much of a text source is looked at to tell text from binary."""

UNDECODABLE_SHARE = 0.10
"""Above this share of undecodable bytes in the sample, the whole source is rejected."""

_UTF8_BOM = codecs.BOM_UTF8
_WIDE_BOMS = (codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


def canonical_encoding(encoding: str, path: Path) -> str:
    """Return the codec name of ``encoding``, refusing unknown or non-ASCII-compatible ones.

    Lines are split on ``b"\\n"`` before decoding, so the encoding must be ASCII-compatible
    (UTF-8, Latin-1, cp1252, ...); UTF-16 and UTF-32 are not.

    Raises
    ------
    InputError
        If the encoding is unknown or not ASCII-compatible.
    """
    try:
        name = codecs.lookup(encoding).name
    except LookupError:
        raise InputError(f"unknown text encoding '{encoding}'", Location(path)) from None
    if "\n".encode(name) != b"\n" or 'a,\t"'.encode(name) != b'a,\t"':
        raise InputError(
            f"the text encoding '{encoding}' is not supported here; save the file as UTF-8",
            Location(path),
        )
    return name


def encoding_label(encoding: str) -> str:
    """A human name for an encoding in messages (``UTF-8`` rather than ``utf-8``)."""
    return "UTF-8" if encoding in ("utf-8", "utf-8-sig") else encoding


def check_path_exists(path: Path) -> None:
    """Raise :class:`InputError` if ``path`` names nothing."""
    if not path.exists():
        raise InputError("no such file or folder", Location(path))


def check_file(path: Path) -> int:
    """Check that ``path`` is an existing, non-empty file and return its size in bytes.

    Raises
    ------
    InputError
        If the path is missing, is a folder, or is an empty file.
    """
    check_path_exists(path)
    if path.is_dir():
        raise InputError("this is a folder, but this format reads a single file", Location(path))
    size = path.stat().st_size
    if size == 0:
        raise InputError("file is empty", Location(path))
    return size


def check_folder(path: Path, what: str) -> None:
    """Check that ``path`` is an existing folder; ``what`` says which kind of folder is expected.

    Raises
    ------
    InputError
        If the path is missing or is a file.
    """
    check_path_exists(path)
    if not path.is_dir():
        raise InputError(f"this is a file, but this format reads {what}", Location(path))


def check_text_sample(sample: bytes, encoding: str, path: Path) -> None:
    """Reject a source whose first bytes look binary or not in ``encoding``.

    A NUL byte, a UTF-16/32 byte-order mark, or more than :data:`UNDECODABLE_SHARE` of
    undecodable bytes rejects the whole source; a few bad bytes are left for the per-line
    check, so that one corrupt line is reported as a bad row rather than a bad file.

    Raises
    ------
    InputError
        If the sample does not look like text in ``encoding``.
    """
    if sample.startswith(_WIDE_BOMS):
        raise InputError("looks like UTF-16 or UTF-32 text; save the file as UTF-8", Location(path))
    if b"\x00" in sample:
        raise InputError("looks like a binary file, not text", Location(path))
    bad = undecodable_bytes(sample, encoding)
    if bad > UNDECODABLE_SHARE * len(sample):
        raise InputError(
            f"looks like a binary file, or text in another encoding than "
            f"{encoding_label(encoding)} (choose the file's encoding)",
            Location(path),
        )


def check_text_file(path: Path, encoding: str) -> int:
    """:func:`check_file` plus :func:`check_text_sample` on the first bytes; returns the size."""
    size = check_file(path)
    with path.open("rb") as handle:
        sample = handle.read(SNIFF_BYTES)
    check_text_sample(sample, encoding, path)
    return size


def undecodable_bytes(sample: bytes, encoding: str) -> int:
    """Count the bytes of ``sample`` that do not decode (a cut character at the end is fine)."""
    replaced = codecs.getincrementaldecoder(encoding)(errors="replace").decode(sample)
    kept = codecs.getincrementaldecoder(encoding)(errors="ignore").decode(sample)
    return replaced.count("\ufffd") - kept.count("\ufffd")


def strip_bom(raw: bytes, encoding: str) -> bytes:
    """Drop a UTF-8 byte-order mark from the first line of a UTF-8 source."""
    if encoding in ("utf-8", "utf-8-sig") and raw.startswith(_UTF8_BOM):
        return raw[len(_UTF8_BOM) :]
    return raw


def decode_line(
    raw: bytes, number: int, *, encoding: str = "utf-8", position: int = 0
) -> str | BadRow:
    """Decode one line, or return a :class:`BadRow` naming the line and the first bad byte.

    Parameters
    ----------
    raw
        The line's bytes.
    number
        The 1-based line number, for the message and the bad row.
    encoding
        An ASCII-compatible codec name.
    position
        Bytes consumed so far, stored in the bad row.
    """
    try:
        return raw.decode(encoding)
    except UnicodeDecodeError as exc:
        return BadRow(
            number=number,
            message=(
                f"invalid {encoding_label(encoding)} at byte {exc.start + 1} of line {number}"
            ),
            position=position,
        )


PIECE_BYTES = 1024 * 1024
"""How much of an over-long line is read at a time while stepping over it."""


BUFFER_BYTES = 256 * 1024
"""What a line reader buffers: a run of blank lines is stepped over this much at a time."""


class Readable(Protocol):
    """A buffered binary stream (``io.BufferedReader``): lines, a look ahead, reads."""

    def readline(self, size: int = -1, /) -> bytes: ...

    def peek(self, size: int = 0, /) -> bytes: ...

    def read(self, size: int = -1, /) -> bytes: ...


def skip_blank_lines(handle: Readable) -> tuple[int, int]:
    """Step over the whole blank lines at the stream's position; ``(bytes, lines)`` skipped.

    Works on the stream's buffer a buffer at a time (a run of a gigabyte of newlines costs
    what reading it does, not a Python step per line). A blank line cut by the end of the
    buffer is left for ``readline``.
    """
    skipped = lines = 0
    while True:
        ahead = handle.peek(1)
        blank = len(ahead) - len(ahead.lstrip())  # ASCII whitespace, as in a blank line
        end = ahead.rfind(b"\n", 0, blank) + 1
        if not end:
            return skipped, lines
        lines += ahead.count(b"\n", 0, end)
        skipped += len(handle.read(end))
        if blank < len(ahead):
            return skipped, lines


def bounded_lines(
    handle: Readable, limit: int, *, skip_blank: bool = False
) -> Iterator[tuple[int, bytes | None, int]]:
    """The lines of a binary stream, never holding more than ``limit + 1`` bytes of one.

    Yields each line's number (from 1), the line with its ending, or ``None`` for a line
    longer than ``limit`` bytes (not counting its final newline), and the bytes consumed
    so far. Only when the caller asks for the next line is the rest of a long one read, in
    pieces of :data:`PIECE_BYTES` without keeping them, to its newline: a caller that stops
    at the long line stops at once, and one that goes on is back in step on the next line.
    ``skip_blank``: runs of blank lines are stepped over (:func:`skip_blank_lines`), still
    counted in the numbers; a blank line may still be yielded.
    """
    consumed = number = 0
    while True:
        if skip_blank:
            skipped, lines = skip_blank_lines(handle)
            consumed, number = consumed + skipped, number + lines
        line = handle.readline(limit + 1)
        if not line:
            return
        consumed += len(line)
        number += 1
        if len(line) <= limit or line.endswith(b"\n"):
            yield number, line, consumed
            continue
        del line
        yield number, None, consumed
        while True:
            piece = handle.readline(PIECE_BYTES)
            consumed += len(piece)
            if not piece or piece.endswith(b"\n"):
                break
