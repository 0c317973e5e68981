"""A project's files on disk: which paths belong to it, and which projects this process has open.

A project is its ``*.vscope`` file plus SQLite's ``-wal``, ``-shm`` and ``-journal``
files beside it. No code may read or write these outside SQLite while this process may
hold a connection to the project: closing any descriptor of a file drops every POSIX lock
the process holds on it, and another process then deletes the WAL under the open
connection. Inputs and outputs of every command are checked against them here.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

PROJECT_SUFFIX = ".vscope"

SIDECAR_SUFFIXES = ("-wal", "-shm", "-journal")


def is_url(location: str | Path) -> bool:
    """A database URL (``postgresql://...``) rather than a project file."""
    return "://" in str(location)


def project_files(location: str | Path) -> list[Path]:
    """The project file and the SQLite files that belong with it (existing or not)."""
    path = Path(location)
    return [path, *(path.with_name(path.name + suffix) for suffix in SIDECAR_SUFFIXES)]


def looks_like_project_file(path: str | Path) -> bool:
    """Named like a project or one of its SQLite files (decided without opening it)."""
    name = Path(path).name
    return name.endswith(PROJECT_SUFFIX) or any(
        name.endswith(PROJECT_SUFFIX + suffix) for suffix in SIDECAR_SUFFIXES
    )


def same_file(a: Path, b: Path) -> bool:
    """Whether two paths name one file (hard links and symbolic links included)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


def belongs_to(path: str | Path, locations: Iterable[str | Path]) -> Path | None:
    """The project among ``locations`` that ``path`` is a file of, if any."""
    for location in locations:
        if location is None or is_url(location):
            continue
        if any(same_file(Path(path), member) for member in project_files(location)):
            return Path(location)
    return None


_open_projects: dict[str, int] = {}


def opened(location: str | Path) -> None:
    """Note that this process holds a connection to ``location`` (see :func:`open_projects`)."""
    key = str(location)
    _open_projects[key] = _open_projects.get(key, 0) + 1


def closed(location: str | Path) -> None:
    key = str(location)
    if _open_projects.get(key, 0) <= 1:
        _open_projects.pop(key, None)
    else:
        _open_projects[key] -= 1


def open_projects() -> list[str]:
    """The projects this process has open: no writer may touch their files."""
    return list(_open_projects)
