"""Schema versions: create a new project, refuse a newer one, migrate an older one with a backup."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, inspect

from vendiscope.core.base.errors import ProjectError
from vendiscope.core.base.project_files import PROJECT_TABLES
from vendiscope.core.store.access import read_uri

MIGRATIONS_DIR = Path(__file__).with_name("migrations")


def alembic_config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    return config


def head_revision() -> str:
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None
    return head


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Run migrations up to ``revision`` in the database behind ``engine``."""
    config = alembic_config()
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, revision)


def backup_sqlite(path: Path, revision: str) -> Path:
    """Copy a SQLite project (consistently, with the backup API) before migrating it."""
    backup = path.with_name(f"{path.name}.schema-{revision}.bak")
    counter = 1
    while backup.exists():
        backup = path.with_name(f"{path.name}.schema-{revision}.bak{counter}")
        counter += 1
    return copy_project(path, backup)


# Key of the PostgreSQL advisory lock held while a catalog's schema is checked or migrated.
SCHEMA_LOCK_KEY = 0x56534350  # "VSCP"


@contextmanager
def _schema_lock(engine: Engine) -> Iterator[None]:
    """On PostgreSQL, serialise schema checks and migrations between processes.

    Two team members opening a new or older catalog at once would otherwise both create
    (or upgrade) its tables. SQLite needs nothing: its write lock already does this.
    """
    if engine.dialect.name != "postgresql":
        yield
        return
    with engine.connect() as connection:
        connection.exec_driver_sql(f"SELECT pg_advisory_lock({SCHEMA_LOCK_KEY})")
        connection.commit()
        try:
            yield
        finally:
            connection.exec_driver_sql(f"SELECT pg_advisory_unlock({SCHEMA_LOCK_KEY})")
            connection.commit()


def ensure_schema(
    engine: Engine,
    *,
    where: str,
    create: bool,
    sqlite_path: Path | None,
    read_only: str | None = None,
) -> Path | None:
    """Bring the schema to the head revision. Returns the backup path when a migration ran.

    A database that holds anything but no Vendiscope schema is another application's: it
    is refused even with ``create`` (only an empty database becomes a new project), and an
    SQLite file is looked at read-only first, so that it is left byte for byte as it was
    (opening the engine's connection would already switch it to WAL).
    """
    if sqlite_path is not None:
        _refuse_foreign_sqlite(sqlite_path, where)
    with _schema_lock(engine):
        return _ensure_schema(
            engine, where=where, create=create, sqlite_path=sqlite_path, read_only=read_only
        )


def _ensure_schema(
    engine: Engine,
    *,
    where: str,
    create: bool,
    sqlite_path: Path | None,
    read_only: str | None,
) -> Path | None:
    script = ScriptDirectory.from_config(alembic_config())
    head = script.get_current_head()
    current = current_revision(engine)
    if current is None:
        tables = set(inspect(engine).get_table_names())
        if tables and "datasets" in tables:
            raise ProjectError(f"{where}: has Vendiscope tables but no schema version")
        if tables:  # even with create: never add our tables to another application's database
            raise ProjectError(_foreign_message(where, sorted(tables)))
        if not create:
            raise ProjectError(f"{where}: is an empty database, not a Vendiscope project")
        upgrade(engine)
        return None
    try:
        script.get_revision(current)
    except Exception as exc:
        raise ProjectError(
            f"{where}: was written by a newer version of Vendiscope (schema revision "
            f"'{current}'; this version knows revisions up to '{head}'). "
            "Upgrade Vendiscope to open it."
        ) from exc
    if current == head:
        return None
    if read_only is not None:
        raise ProjectError(
            f"{where}: was written by an older version of Vendiscope and must be upgraded to "
            f"open here, which changes it, but {read_only}. Copy it somewhere writable and "
            "open the copy"
        )
    backup = backup_sqlite(sqlite_path, current) if sqlite_path is not None else None
    upgrade(engine)
    return backup


def _foreign_message(where: str, names: list[str]) -> str:
    shown = ", ".join(f"'{name}'" for name in names[:5]) + (", ..." if len(names) > 5 else "")
    return (
        f"{where}: is a database but not a Vendiscope project (it holds {shown} and no "
        "Vendiscope schema version: another application's data); it was left unchanged. "
        "Import into a new project file instead (e.g. data.vscope)"
    )


def _refuse_foreign_sqlite(path: Path, where: str) -> None:
    """Refuse an SQLite file of another application, reading it read-only (no change at all).

    Anything in its schema but no ``alembic_version`` table, or one whose revision is not
    ours in a database without our tables, is foreign. Unreadable files are left to the
    ordinary checks, which say what is wrong.
    """
    try:
        if not path.is_file() or path.stat().st_size == 0:
            return
        probe = sqlite3.connect(read_uri(path), uri=True)
    except (OSError, sqlite3.Error):
        return
    try:
        objects = dict(
            probe.execute(
                "SELECT name, type FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"
            ).fetchall()
        )
        tables = {name for name, kind in objects.items() if kind == "table"}
        revision = None
        if "alembic_version" in tables:
            row = probe.execute("SELECT version_num FROM alembic_version").fetchone()
            revision = row[0] if row else None
    except sqlite3.Error:
        return
    finally:
        probe.close()
    if not objects or tables & PROJECT_TABLES:
        return  # empty (a new project), or ours: the ordinary checks take over
    if revision is not None and _known_revision(revision):
        return
    raise ProjectError(_foreign_message(where, sorted(objects)))


def _known_revision(revision: str) -> bool:
    try:
        return ScriptDirectory.from_config(alembic_config()).get_revision(revision) is not None
    except Exception:
        return False


def copy_project(source: str | Path, target: str | Path) -> Path:
    """Copy a project consistently through SQLite's backup API (safe while it is open)."""
    target = Path(target)
    reader = sqlite3.connect(read_uri(Path(source)), uri=True)
    try:
        writer = sqlite3.connect(target)
        try:
            reader.backup(writer)
        finally:
            writer.close()
    finally:
        reader.close()
    return target
