"""The project: one SQLite ``*.vscope`` file (or a PostgreSQL URL) holding everything.

>>> with Project.create("audit.vscope") as project:   # doctest: +SKIP
...     project.datasets()
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, func, select, text
from sqlalchemy.exc import ArgumentError, DatabaseError, OperationalError
from sqlalchemy.orm import Session, sessionmaker

from vendiscope.core.base import project_files as files
from vendiscope.core.base.errors import ProjectError
from vendiscope.core.base.project_files import PROJECT_SUFFIX, is_url
from vendiscope.core.store import access, migrate
from vendiscope.core.store.engine import check_sqlite_file, display_location, make_engine
from vendiscope.core.store.models import DatasetInfo, RecordRow, RunInfo, SubsetInfo
from vendiscope.core.store.schema import Dataset, Record, Run, Subset, SubsetMember

_STATS_CACHE: dict[tuple[Any, ...], dict[str, Any]] = {}

RECORD_COLUMNS = (
    Record.id,
    Record.seq,
    Record.row_index,
    Record.prompt,
    Record.response,
    Record.text,
    Record.label,
    Record.source,
    Record.ext_id,
    Record.content_hash,
    Record.raw,
)


class Project:
    """An open project. Use :meth:`create` or :meth:`open`; close it (or use ``with``)."""

    def __init__(
        self,
        engine: Engine,
        location: str,
        backup: Path | None = None,
        *,
        read_only: str | None = None,
    ) -> None:
        self.engine = engine
        self.location = location
        self.read_only = read_only
        """Why this project can only be read here (None: it can be changed)."""
        self.migration_backup = backup
        self._sessions = sessionmaker(engine, expire_on_commit=False)
        self._closed = False
        files.opened(location)

    # ------------------------------------------------------------------ lifecycle
    @classmethod
    def create(cls, location: str | Path) -> Project:
        """Create a new, empty project; refuses to overwrite an existing file."""
        if not is_url(location):
            path = Path(location)
            if path.exists():
                raise ProjectError(
                    f"{path}: already exists; open it instead, or choose another name"
                )
            if not path.parent.exists():
                raise ProjectError(f"{path}: folder {path.parent} does not exist")
        return cls._connect(location, create=True)

    @classmethod
    def open(cls, location: str | Path, *, create: bool = False) -> Project:
        """Open a project (migrating an older schema after a backup copy)."""
        if not is_url(location):
            path = Path(location)
            if not path.exists():
                if create:
                    return cls.create(path)
                hint = (
                    "" if path.suffix == PROJECT_SUFFIX else f" (projects end in {PROJECT_SUFFIX})"
                )
                raise ProjectError(f"{path}: no such project file{hint}")
            check_sqlite_file(path)
        return cls._connect(location, create=create)

    @classmethod
    def _connect(cls, location: str | Path, *, create: bool) -> Project:
        where = display_location(location)
        sqlite_path = None if is_url(location) else Path(location)
        read_only = None
        if sqlite_path is not None and sqlite_path.exists():
            read_only = access.read_only_reason(sqlite_path)
        elif sqlite_path is not None and create:
            refused = access.folder_refuses_new_files(sqlite_path.resolve().parent)
            if refused is not None:
                raise ProjectError(f"{where}: cannot be created here ({refused})")
        try:
            engine = make_engine(location, read_only=read_only)
        except (ArgumentError, ImportError) as exc:
            raise ProjectError(f"{where}: not a usable database URL ({exc})") from exc
        try:
            backup = migrate.ensure_schema(
                engine, where=where, create=create, sqlite_path=sqlite_path, read_only=read_only
            )
        except ProjectError:
            engine.dispose()
            raise
        except (DatabaseError, OperationalError) as exc:
            engine.dispose()
            raise ProjectError(f"{where}: cannot be opened as a project ({exc.orig})") from exc
        return cls(engine, str(location), backup, read_only=read_only)

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            files.closed(self.location)
        self.engine.dispose()

    def __enter__(self) -> Project:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def session(self) -> Session:
        return self._sessions()

    @property
    def is_sqlite(self) -> bool:
        return self.engine.dialect.name == "sqlite"

    def integrity_check(self) -> str:
        """SQLite's ``integrity_check`` ("ok" when the file is sound)."""
        if not self.is_sqlite:
            return "ok"
        with self.engine.connect() as connection:
            rows = connection.exec_driver_sql("PRAGMA integrity_check").fetchall()
        return "; ".join(str(row[0]) for row in rows)

    # ------------------------------------------------------------------ datasets
    def datasets(self) -> list[DatasetInfo]:
        with self.session() as session:
            return [_dataset_info(d) for d in session.scalars(select(Dataset).order_by(Dataset.id))]

    def dataset(self, name: str) -> DatasetInfo:
        with self.session() as session:
            found = session.scalars(select(Dataset).where(Dataset.name == name)).first()
            if found is None:
                names = session.scalars(select(Dataset.name).order_by(Dataset.id)).all()
                listing = ", ".join(names) if names else "the project has no datasets yet"
                raise ProjectError(f"no dataset named '{name}' ({listing})")
            return _dataset_info(found)

    def delete_dataset(self, name: str) -> None:
        info = self.dataset(name)
        with self.session() as session, session.begin():
            session.execute(Dataset.__table__.delete().where(Dataset.id == info.id))

    # ------------------------------------------------------------------ records
    def records(self, dataset: str, offset: int = 0, limit: int = 200) -> list[RecordRow]:
        """A page of records in dataset order (``offset`` is a position, not an id)."""
        info = self.dataset(dataset)
        query = (
            select(*RECORD_COLUMNS)
            .where(Record.dataset_id == info.id, Record.seq >= offset)
            .order_by(Record.seq)
            .limit(limit)
        )
        with self.engine.connect() as connection:
            return [RecordRow(*row) for row in connection.execute(query)]

    def iter_records(
        self, dataset: str, *, subset: str | None = None, batch_size: int = 2000
    ) -> Iterator[RecordRow]:
        """Every record of a dataset (in order) or of a subset (in rank order), memory-bounded."""
        info = self.dataset(dataset)
        if subset is None:
            position = 0
            while True:
                page = self.records(dataset, position, batch_size)
                yield from page
                if len(page) < batch_size:
                    return
                position = page[-1].seq + 1
        subset_info = self.subset(dataset, subset)
        last_rank = -1
        while True:
            query = (
                select(*RECORD_COLUMNS, SubsetMember.rank)
                .join(SubsetMember, SubsetMember.record_id == Record.id)
                .where(
                    SubsetMember.subset_id == subset_info.id,
                    SubsetMember.rank > last_rank,
                    Record.dataset_id == info.id,
                )
                .order_by(SubsetMember.rank)
                .limit(batch_size)
            )
            with self.engine.connect() as connection:
                rows = connection.execute(query).fetchall()
            for row in rows:
                yield RecordRow(*row[:-1])
            if len(rows) < batch_size:
                return
            last_rank = rows[-1][-1]

    def stats(self, dataset: str) -> dict[str, Any]:
        """Counts a user wants first: rows, duplicates, roles filled, sources, lengths.

        A dataset's records never change after its import, so the counts (a full scan:
        seconds for a million records) are kept per process, keyed by the dataset's id and
        fingerprint, and later calls return a copy at once.
        """
        info = self.dataset(dataset)
        key = (self.location, info.id, info.fingerprint, info.row_count)
        if key not in _STATS_CACHE:
            _STATS_CACHE[key] = self._scan_stats(info)
            while len(_STATS_CACHE) > 64:
                _STATS_CACHE.pop(next(iter(_STATS_CACHE)))
        return copy.deepcopy(_STATS_CACHE[key])

    def _scan_stats(self, info: DatasetInfo) -> dict[str, Any]:
        where = Record.dataset_id == info.id
        with self.engine.connect() as connection:
            filled = connection.execute(
                select(
                    func.count(Record.prompt),
                    func.count(Record.response),
                    func.count(Record.text),
                    func.count(Record.label),
                    func.count(Record.source),
                    func.avg(func.length(Record.prompt)),
                    func.avg(func.length(Record.response)),
                    func.avg(func.length(Record.text)),
                    func.count(func.distinct(Record.content_hash)),
                ).where(where)
            ).one()
            sources = connection.execute(
                select(Record.source, func.count())
                .where(where)
                .group_by(Record.source)
                .order_by(func.count().desc())
            ).all()
        return {
            "dataset": info.name,
            "rows": info.row_count,
            "unique": filled[8],
            "exact_duplicates": info.row_count - filled[8],
            "skipped_rows": info.skipped_count,
            "filled": dict(
                zip(("prompt", "response", "text", "label", "source"), filled[:5], strict=True)
            ),
            "mean_chars": {
                role: round(float(value), 1) if value is not None else None
                for role, value in zip(("prompt", "response", "text"), filled[5:8], strict=True)
            },
            "sources": {(name if name is not None else "(none)"): count for name, count in sources},
        }

    def record_ids(self, dataset: str, positions: Sequence[int]) -> list[int]:
        """Record ids for dataset positions (``seq``), in the given order."""
        info = self.dataset(dataset)
        wanted = list(positions)
        found: dict[int, int] = {}
        with self.engine.connect() as connection:
            for start in range(0, len(wanted), 900):
                batch = wanted[start : start + 900]
                query = select(Record.seq, Record.id).where(
                    Record.dataset_id == info.id, Record.seq.in_(batch)
                )
                found.update(dict(connection.execute(query).all()))
        missing = [p for p in wanted if p not in found]
        if missing:
            raise ProjectError(
                f"dataset '{dataset}' has {info.row_count} records; "
                f"position {missing[0]} is out of range"
            )
        return [found[p] for p in wanted]

    def content_hash_positions(self, dataset: str) -> dict[str, int]:
        """Content hash -> position of its first record (for reusing computed vectors)."""
        info = self.dataset(dataset)
        positions: dict[str, int] = {}
        query = (
            select(Record.content_hash, Record.seq)
            .where(Record.dataset_id == info.id)
            .order_by(Record.seq.desc())
        )
        with self.engine.connect() as connection:
            for digest, seq in connection.execute(query):
                positions[digest] = seq
        return positions

    # ------------------------------------------------------------------ subsets
    def subsets(self, dataset: str) -> list[SubsetInfo]:
        info = self.dataset(dataset)
        with self.session() as session:
            rows = session.execute(
                select(Subset, func.count(SubsetMember.record_id))
                .outerjoin(SubsetMember, SubsetMember.subset_id == Subset.id)
                .where(Subset.dataset_id == info.id)
                .group_by(Subset.id)
                .order_by(Subset.id)
            ).all()
            return [_subset_info(subset, size) for subset, size in rows]

    def subset(self, dataset: str, name: str) -> SubsetInfo:
        for found in self.subsets(dataset):
            if found.name == name:
                return found
        names = ", ".join(s.name for s in self.subsets(dataset)) or "none yet"
        raise ProjectError(f"dataset '{dataset}' has no subset named '{name}' (subsets: {names})")

    # ------------------------------------------------------------------ runs
    def runs(self, dataset: str | None = None) -> list[RunInfo]:
        query = select(Run).order_by(Run.id)
        if dataset is not None:
            query = query.where(Run.dataset_id == self.dataset(dataset).id)
        with self.session() as session:
            return [_run_info(run) for run in session.scalars(query)]

    def run(self, run_id: int) -> RunInfo:
        with self.session() as session:
            found = session.get(Run, run_id)
            if found is None:
                raise ProjectError(f"no run with id {run_id}")
            return _run_info(found)

    def wal_checkpoint(self) -> None:
        """Fold the write-ahead log back into the file (after large writes)."""
        if self.is_sqlite:
            with self.engine.connect() as connection:
                connection.execute(text("PRAGMA wal_checkpoint(TRUNCATE)"))


def _dataset_info(d: Dataset) -> DatasetInfo:
    return DatasetInfo(
        d.id,
        d.name,
        d.source_uri,
        d.format,
        d.field_mapping,
        d.source_schema,
        d.row_count,
        d.duplicate_count,
        d.skipped_count,
        d.fingerprint,
        d.created_at,
    )


def _subset_info(s: Subset, size: int) -> SubsetInfo:
    return SubsetInfo(s.id, s.dataset_id, s.name, s.description, s.run_id, size, s.created_at)


def _run_info(r: Run) -> RunInfo:
    return RunInfo(
        r.id,
        r.key,
        r.kind,
        r.plugin,
        r.dataset_id,
        r.params,
        r.versions,
        r.seed,
        r.status,
        r.result,
        r.error,
        r.started_at,
        r.finished_at,
    )
