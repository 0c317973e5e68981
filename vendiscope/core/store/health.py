"""Is a project file sound? SQLite's own checks, read through SQLite (never ``open()``)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from vendiscope.core.store.access import read_uri

# integrity_check stops after this many problems; a damaged file can report thousands.
MAX_PROBLEMS = 100


@dataclass(frozen=True)
class StoreHealth:
    """What ``PRAGMA integrity_check`` and ``PRAGMA foreign_key_check`` found."""

    location: str
    integrity: list[str] = field(default_factory=list)
    foreign_keys: list[str] = field(default_factory=list)
    error: str | None = None
    counts: list[str] = field(default_factory=list)
    """Datasets whose records disagree with their recorded row count (changed outside)."""

    @property
    def sound(self) -> bool:
        """SQLite finds the file itself intact (whatever was done to its rows)."""
        return self.error is None and self.integrity == ["ok"] and not self.foreign_keys

    @property
    def ok(self) -> bool:
        return self.sound and not self.counts

    @property
    def problems(self) -> list[str]:
        found = [] if self.error is None else [self.error]
        found += [line for line in self.integrity if line != "ok"]
        return found + self.foreign_keys + self.counts


def check_project_file(path: str | Path) -> StoreHealth:
    """Run SQLite's integrity and foreign-key checks on a project file, read-only.

    Works on a file that :class:`~vendiscope.core.store.project.Project` refuses to open, so a
    damaged project can still be diagnosed.
    """
    path = Path(path)
    location = str(path)
    if not path.is_file():
        return StoreHealth(location, error=f"{path}: no such project file")
    try:
        connection = sqlite3.connect(read_uri(path), uri=True)
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
        counts = _count_mismatches(connection) if integrity == ["ok"] else []
    except sqlite3.DatabaseError as exc:
        return StoreHealth(location, error=f"{path}: cannot be checked ({exc})")
    finally:
        connection.close()
    return StoreHealth(location, integrity, foreign_keys[:MAX_PROBLEMS], counts=counts)


def _count_mismatches(connection: sqlite3.Connection) -> list[str]:
    """Each dataset's records must number its ``row_count``, at positions 0 to n - 1."""
    rows = connection.execute(
        "SELECT d.name, d.row_count, COUNT(r.id), MAX(r.seq) FROM datasets d "
        "LEFT JOIN records r ON r.dataset_id = d.id GROUP BY d.id ORDER BY d.id"
    ).fetchall()
    found = []
    for name, expected, held, last in rows:
        if held != expected:
            found.append(f"dataset '{name}': says {expected:,} rows but holds {held:,} records")
        elif held and last != held - 1:
            found.append(f"dataset '{name}': its records' positions have gaps")
    return found[:MAX_PROBLEMS]


# SQLite's words for a failure of the file itself, lower-cased, and what kind it is.
_FAILURE_WORDS = (
    ("database disk image is malformed", "damaged"),
    ("file is not a database", "damaged"),
    ("disk i/o error", "unreadable"),
    ("unable to open database file", "unreadable"),
    ("database or disk is full", "full"),
    ("attempt to write a readonly database", "read-only"),
    ("database is locked", "busy"),
    ("database table is locked", "busy"),
)

WHAT_TO_DO = {
    "damaged": (
        "Vendiscope has stopped writing to this project so that nothing more is lost. "
        "Close the project, keep a copy of the file (and its -wal file, if there is one), "
        "and check it with `vendiscope doctor {location}`."
    ),
    "unreadable": (
        "Vendiscope has stopped writing to this project. Check that the disk or network "
        "share holding it is still there, close the project, and check it with "
        "`vendiscope doctor {location}`."
    ),
    "full": "The disk holding the project is full; the project is unchanged. Free some "
    "space, then run the operation again.",
    "read-only": "The project file or its folder is read-only; the project is unchanged. "
    "Make it writable, or copy it somewhere writable and open the copy.",
    "busy": "Another program held the project for more than 30 seconds (a long import, "
    "perhaps); nothing was changed. Wait for it to finish, then try again.",
}


@dataclass(frozen=True)
class StoreFailure:
    """A failure of the project file (not of the operation's input): its kind and words."""

    kind: str  # damaged | unreadable | full | read-only | busy
    message: str

    @property
    def stops_writing(self) -> bool:
        """Whether writing more could lose data: the file is damaged or has gone away."""
        return self.kind in ("damaged", "unreadable")

    def advice(self, location: str) -> str:
        return WHAT_TO_DO[self.kind].format(location=location)


def store_failure(error: BaseException | None) -> StoreFailure | None:
    """The store failure behind ``error`` (through causes and wrapped driver errors), if any."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        text = str(getattr(error, "orig", None) or error)
        for words, kind in _FAILURE_WORDS:
            if words in text.lower():
                return StoreFailure(kind, text.strip().splitlines()[0])
        error = error.__cause__ or error.__context__
    return None
