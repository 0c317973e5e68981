"""Open a project database: a ``*.vscope`` SQLite file or a database URL (PostgreSQL)."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.pool import QueuePool

from vendiscope.core.base.errors import ProjectError
from vendiscope.core.base.project_files import is_url
from vendiscope.core.store import access, waiting

BUSY_TIMEOUT_MS = waiting.TRY_MS
"""SQLite's busy wait per try; statements then wait on for another process (store/waiting.py)."""
# Larger pages: fewer B-tree splits for text-heavy rows (measured 20% faster bulk inserts).
PAGE_SIZE = 16_384
# Memory-mapped reads: loading a vector set is ~6x faster than through read() calls.
MMAP_BYTES = 2**31 - 2**16


def database_url(location: str | Path) -> str:
    """The SQLAlchemy URL for a database URL: ``postgresql://`` and ``postgres://`` use psycopg 3.

    SQLAlchemy's default PostgreSQL driver is psycopg2, which Vendiscope does not install;
    a URL that names a driver (``postgresql+psycopg2://...``) is kept as it is.
    """
    url = str(location)
    scheme, sep, rest = url.partition("://")
    if sep and scheme in ("postgresql", "postgres"):
        return f"postgresql+psycopg://{rest}"
    return url


def display_location(location: str | Path) -> str:
    """``location`` for messages: a database URL with its password masked."""
    if not is_url(location):
        return str(location)
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        return make_url(str(location)).render_as_string(hide_password=True)
    except ArgumentError:
        return str(location)


def check_sqlite_file(path: Path) -> None:
    """Refuse a file that is not an SQLite database, with a message naming it.

    The probe goes through SQLite, never through ``open()``: closing any descriptor of a
    file drops every POSIX lock this process holds on it, so a header read while the app
    holds a connection lets another process delete the WAL under it (a corrupt project).
    SQLite shares one lock state per file between the connections of a process.
    """
    if path.is_dir():
        raise ProjectError(f"{path}: is a folder, not a Vendiscope project file")
    if not os.access(path, os.R_OK):
        raise ProjectError(f"{path}: cannot be read (permission denied)")
    try:
        probe = sqlite3.connect(access.read_uri(path), uri=True)
        try:
            probe.execute("PRAGMA schema_version").fetchone()
        finally:
            probe.close()
    except sqlite3.OperationalError as exc:
        reason = access.read_only_reason(path)
        why = f"{exc}; {reason}" if reason else str(exc)
        raise ProjectError(f"{path}: cannot be read ({why})") from exc
    except sqlite3.DatabaseError as exc:
        raise ProjectError(
            f"{path}: is not a Vendiscope project (not an SQLite database; "
            "the file may be corrupt or of another kind)"
        ) from exc


class _PatientCursor(sqlite3.Cursor):
    """A cursor whose statements wait while another process holds the write lock."""

    def execute(self, sql: str, parameters: Any = (), /) -> _PatientCursor:
        run = super().execute
        _writing(self.connection, lambda: run(sql, parameters))
        return self

    def executemany(self, sql: str, parameters: Any, /) -> _PatientCursor:
        if not isinstance(parameters, (list, tuple)):
            parameters = list(parameters)  # a retry must see every row again
        run = super().executemany
        _writing(self.connection, lambda: run(sql, parameters))
        return self


class _PatientConnection(sqlite3.Connection):
    """A project connection: its cursors and its commit wait for another writer to finish."""

    location = ""
    read_only: str | None = None
    """Why this project can only be read here (:mod:`vendiscope.core.store.access`)."""

    def cursor(self, factory: Any = None) -> Any:
        return super().cursor(factory or _PatientCursor)

    def execute(self, sql: str, parameters: Any = (), /) -> Any:
        return self.cursor().execute(sql, parameters)

    def executemany(self, sql: str, parameters: Any, /) -> Any:
        return self.cursor().executemany(sql, parameters)

    def commit(self) -> None:
        _writing(self, super().commit)


def _writing(connection: Any, statement: Any) -> None:
    """Run ``statement`` patiently; on a project opened read-only, a write says why it cannot."""
    try:
        waiting.patiently(statement, connection.location)
    except sqlite3.OperationalError as exc:
        reason = getattr(connection, "read_only", None)
        if reason is None or "readonly database" not in str(exc):
            raise
        raise ProjectError(
            f"{connection.location}: cannot be changed here ({reason}); nothing was changed. "
            f"{access.advice(reason)}"
        ) from exc


def _set_sqlite_pragmas(dbapi_connection: sqlite3.Connection, _record: object) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    cursor.execute(f"PRAGMA page_size = {PAGE_SIZE}")  # takes effect on a new file only
    cursor.execute("PRAGMA foreign_keys = ON")
    cursor.execute("PRAGMA journal_mode = WAL")
    cursor.execute("PRAGMA synchronous = NORMAL")
    cursor.execute(f"PRAGMA mmap_size = {MMAP_BYTES}")
    cursor.close()


def _set_read_only_pragmas(dbapi_connection: sqlite3.Connection, _record: object) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    cursor.execute(f"PRAGMA mmap_size = {MMAP_BYTES}")
    cursor.close()


def make_engine(location: str | Path, *, read_only: str | None = None) -> Engine:
    """An engine for a project path or URL, with WAL, foreign keys and a busy timeout on SQLite.

    ``read_only`` (why the file can only be read here) opens it read-only: reads work and a
    write raises a :class:`ProjectError` that gives the reason.
    """
    if is_url(location):
        return create_engine(database_url(location), pool_pre_ping=True)
    path = Path(location)
    connect_args: dict[str, Any] = {
        "timeout": BUSY_TIMEOUT_MS / 1000,
        "check_same_thread": False,
        "factory": _PatientConnection,
    }
    if read_only is None:
        engine = create_engine(f"sqlite:///{path}", connect_args=connect_args)
    else:
        uri = access.read_uri(path)
        engine = create_engine(
            "sqlite://",
            creator=lambda: sqlite3.connect(uri, uri=True, **connect_args),
            poolclass=QueuePool,  # as for a file: "sqlite://" alone would mean one in memory
        )

    def remember_location(dbapi_connection: Any, _record: object) -> None:
        if isinstance(dbapi_connection, _PatientConnection):
            dbapi_connection.location = str(path)
            dbapi_connection.read_only = read_only

    event.listen(engine, "connect", remember_location)
    pragmas = _set_sqlite_pragmas if read_only is None else _set_read_only_pragmas
    event.listen(engine, "connect", pragmas)
    return engine
