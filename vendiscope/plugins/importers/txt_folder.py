"""Text-folder importer: every matching file becomes one row ``{"path", "text"}``."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from vendiscope.api import (
    BadRow,
    Importer,
    InputError,
    Location,
    SourceInfo,
    SourceRow,
    looks_like_project_file,
)
from vendiscope.plugins.importers._common import (
    canonical_encoding,
    check_folder,
    encoding_label,
    strip_bom,
)
from vendiscope.plugins.importers.limits import MAX_FIELD_BYTES, FieldBytes, field_message


class TxtFolderImporter(Importer):
    """Read a folder of text files, one row per file, in order of relative path.

    Each row is ``{"path": <path relative to the folder, with "/">, "text": <content>}``;
    the content is kept exactly (newlines untouched, a UTF-8 byte-order mark dropped).
    Hidden files and folders (names starting with ``.``) are left out. Rows are numbered
    from 1 (unit ``"file"``); progress is in files. A file that does not decode, holds
    NUL bytes, or is larger than ``max_field_bytes`` (checked before it is read) is a
    :class:`BadRow` naming it.

    Parameters
    ----------
    pattern
        A glob pattern for the file names to read.
    recursive
        Whether to look into sub-folders too.
    encoding
        The text encoding of the files.
    max_field_bytes
        The largest file read (:mod:`vendiscope.plugins.importers.limits`): a file is the
        ``text`` field of its row.
    """

    def __init__(
        self,
        pattern: str = "*.txt",
        recursive: bool = True,
        encoding: str = "utf-8",
        max_field_bytes: FieldBytes = MAX_FIELD_BYTES,
    ) -> None:
        self.pattern = pattern
        self.recursive = recursive
        self.encoding = encoding
        self.max_field_bytes = max_field_bytes

    def inspect(self, path: Path) -> SourceInfo:
        """The number of matching files as the progress total."""
        path = Path(path)
        files = self._files(path)
        return SourceInfo(
            unit="file", total=len(files), progress_unit="files", columns=("path", "text")
        )

    def read(self, path: Path) -> Iterator[SourceRow | BadRow]:
        """Yield one row per matching file, or a :class:`BadRow` for an unreadable one."""
        path = Path(path)
        files = self._files(path)
        encoding = canonical_encoding(self.encoding, path)
        for number, relative in enumerate(files, start=1):
            yield _read_one(path, relative, number, encoding, self.max_field_bytes)

    def _files(self, path: Path) -> list[str]:
        """Relative POSIX paths of the matching files, sorted."""
        check_folder(path, "a folder of text files")
        found = path.rglob(self.pattern) if self.recursive else path.glob(self.pattern)
        files = sorted(
            relative
            for relative in (f.relative_to(path) for f in found if f.is_file())
            if not any(part.startswith(".") for part in relative.parts)
            and not looks_like_project_file(relative)  # a project is never read as text
        )
        if not files:
            where = "in this folder or its sub-folders" if self.recursive else "in this folder"
            raise InputError(f"no files matching '{self.pattern}' {where}", Location(path))
        return [relative.as_posix() for relative in files]


def _read_one(
    root: Path, relative: str, number: int, encoding: str, limit: int
) -> SourceRow | BadRow:
    try:
        with (root / relative).open("rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            raw = handle.read(limit + 1) if size <= limit else b""
    except OSError as exc:
        return _bad(number, f"{relative}: cannot be read ({exc.strerror or exc})")
    if size > limit or len(raw) > limit:  # checked again: the file may have grown
        return _bad(number, f"{relative}: {field_message(max(size, len(raw)), limit)}")
    if b"\x00" in raw:
        return _bad(number, f"{relative}: looks like a binary file, not text")
    try:
        text = strip_bom(raw, encoding).decode(encoding)
    except UnicodeDecodeError as exc:
        label = encoding_label(encoding)
        return _bad(number, f"{relative}: invalid {label} at byte {exc.start + 1}")
    return SourceRow(number=number, data={"path": relative, "text": text}, position=number)


def _bad(number: int, message: str) -> BadRow:
    return BadRow(number=number, message=message, field="text", position=number)
