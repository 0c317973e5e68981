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

from vendiscope.core.errors import ProjectError

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
    source = sqlite3.connect(path)
    try:
        target = sqlite3.connect(backup)
        try:
            source.backup(target)
        finally:
            target.close()
    finally:
        source.close()
    return backup


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
    engine: Engine, *, where: str, create: bool, sqlite_path: Path | None
) -> Path | None:
    """Bring the schema to the head revision. Returns the backup path when a migration ran."""
    with _schema_lock(engine):
        return _ensure_schema(engine, where=where, create=create, sqlite_path=sqlite_path)


def _ensure_schema(
    engine: Engine, *, where: str, create: bool, sqlite_path: Path | None
) -> Path | None:
    script = ScriptDirectory.from_config(alembic_config())
    head = script.get_current_head()
    current = current_revision(engine)
    if current is None:
        tables = set(inspect(engine).get_table_names())
        if tables and not create:
            raise ProjectError(
                f"{where}: is a database but not a Vendiscope project (no schema version found)"
            )
        if tables and "datasets" in tables:
            raise ProjectError(f"{where}: has Vendiscope tables but no schema version")
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
    backup = backup_sqlite(sqlite_path, current) if sqlite_path is not None else None
    upgrade(engine)
    return backup
