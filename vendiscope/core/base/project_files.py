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


PROJECT_TABLES = frozenset({"datasets", "records", "runs"})
"""Tables every project's schema has had: a SQLite file holding them is a project, whatever
its name."""


def sidecars_present(path: str | Path) -> list[Path]:
    """The SQLite ``-wal``/``-shm``/``-journal`` files beside ``path``: a database in use, or
    one whose last writer was killed (its committed data may still be in the ``-wal``)."""
    return [member for member in project_files(path)[1:] if member.exists()]


def database_kind(path: str | Path) -> str | None:
    """``"project"`` or ``"database"`` when ``path`` is a SQLite database, else ``None``.

    Read through SQLite itself (``immutable``: no lock taken, no file created), never with
    ``open()``. Call it only for a file this process holds no connection to
    (:func:`belongs_to` over :func:`open_projects` first).
    """
    import sqlite3
    from urllib.parse import quote

    uri = f"file:{quote(str(Path(path).resolve()))}?mode=ro&immutable=1"
    try:
        connection = sqlite3.connect(uri, uri=True)
    except sqlite3.Error:
        return None  # cannot be opened at all (unreadable): not something SQLite owns
    try:
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master")}
    except sqlite3.DatabaseError as exc:
        # a file with another header is "not a database"; a SQLite header with a damaged
        # schema is still a database
        return None if _not_a_database(exc) else "database"
    finally:
        connection.close()
    if tables >= PROJECT_TABLES:
        return "project"
    return "database" if tables else None


def _not_a_database(exc: Exception) -> bool:
    name = getattr(exc, "sqlite_errorname", "")
    return name == "SQLITE_NOTADB" or "not a database" in str(exc)


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
