"""A ``.gz`` source read within a bound on what it decompresses to (no compression bombs).

:func:`open_bounded` gives the decompressed bytes as a buffered stream (``readline``,
``peek``) that raises :class:`~vendiscope.api.InputError` naming the file as soon as more
than :func:`~vendiscope.plugins.importers.limits.gzip_bound` bytes come out: at once, not
after the rest of the file has been read.
"""

from __future__ import annotations

import gzip
import io
from pathlib import Path
from typing import BinaryIO

from vendiscope.api import InputError, Location
from vendiscope.plugins.importers._common import BUFFER_BYTES
from vendiscope.plugins.importers.limits import gzip_bound


class _Bounded(io.RawIOBase):
    """The decompressed bytes of ``unzipped``; more than ``limit`` of them is an error."""

    def __init__(self, unzipped: gzip.GzipFile, limit: int, message: str, path: Path) -> None:
        self._unzipped = unzipped
        self._limit = limit
        self._message = message
        self._path = path
        self.count = 0

    def readable(self) -> bool:
        return True

    def close(self) -> None:
        self._unzipped.close()
        super().close()

    # mypy, on the next line: io.RawIOBase declares a wider buffer type
    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        data = self._unzipped.read(min(len(buffer), self._limit - self.count + 1))
        self.count += len(data)
        if self.count > self._limit:
            raise InputError(self._message, Location(self._path))
        buffer[: len(data)] = data
        return len(data)


def open_bounded(raw: BinaryIO, path: Path, ratio: int, cap: int) -> io.BufferedReader:
    """The decompressed stream of the gzip file open as ``raw`` (``path`` names it).

    It may decompress to ``ratio`` times the file's size (at least
    :data:`~vendiscope.plugins.importers.limits.GZIP_FLOOR_BYTES`), and to at most ``cap``
    bytes; reading past that raises an :class:`InputError` that says which limit it broke.
    """
    limit, message = gzip_bound(path.stat().st_size, ratio, cap)
    unzipped = gzip.GzipFile(fileobj=raw, mode="rb")
    return io.BufferedReader(_Bounded(unzipped, limit, message, path), BUFFER_BYTES)
