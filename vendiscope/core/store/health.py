"""Is a project file sound? SQLite's own checks, read through SQLite (never ``open()``)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

# integrity_check stops after this many problems; a damaged file can report thousands.
MAX_PROBLEMS = 100


@dataclass(frozen=True)
class StoreHealth:
    """What ``PRAGMA integrity_check`` and ``PRAGMA foreign_key_check`` found."""

    location: str
    integrity: list[str] = field(default_factory=list)
    foreign_keys: list[str] = field(default_factory=list)
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and self.integrity == ["ok"] and not self.foreign_keys

    @property
    def problems(self) -> list[str]:
        found = [] if self.error is None else [self.error]
        found += [line for line in self.integrity if line != "ok"]
        return found + self.foreign_keys


def check_project_file(path: str | Path) -> StoreHealth:
    """Run SQLite's integrity and foreign-key checks on a project file, read-only.

    Works on a file that :class:`~vendiscope.core.project.Project` refuses to open, so a
    damaged project can still be diagnosed.
    """
    path = Path(path)
    location = str(path)
    if not path.is_file():
        return StoreHealth(location, error=f"{path}: no such project file")
    try:
        connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        return StoreHealth(location, error=f"{path}: cannot be opened ({exc})")
    try:
        integrity = [
            str(row[0]) for row in connection.execute(f"PRAGMA integrity_check({MAX_PROBLEMS})")
        ]
        foreign_keys = [
            f"{table} row {rowid}: no row in {parent} for foreign key #{key}"
            for table, rowid, parent, key in connection.execute("PRAGMA foreign_key_check")
        ]
    except sqlite3.DatabaseError as exc:
        return StoreHealth(location, error=f"{path}: cannot be checked ({exc})")
    finally:
        connection.close()
    return StoreHealth(location, integrity, foreign_keys[:MAX_PROBLEMS])
