"""The project file: creation, pragmas, schema versions, bad files."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.conftest import qa_rows, table_counts, write_jsonl
from vendiscope.core.base.errors import ProjectError
from vendiscope.core.io.importing import import_dataset
from vendiscope.core.store import migrate, subsets
from vendiscope.core.store.project import Project


def test_create_then_open(project_path: Path) -> None:
    with Project.create(project_path) as project:
        assert project.datasets() == []
        assert project.integrity_check() == "ok"
    with Project.open(project_path) as project:
        assert project.datasets() == []
        assert project.migration_backup is None


def test_pragmas_wal_foreign_keys_busy_timeout(project) -> None:
    with project.engine.connect() as connection:
        pragma = lambda name: connection.exec_driver_sql(f"PRAGMA {name}").scalar()  # noqa: E731
        assert pragma("journal_mode") == "wal"
        assert pragma("foreign_keys") == 1
        assert pragma("busy_timeout") == 2_000  # each try; statements then wait on (waiting.py)


def test_create_refuses_existing_file(project_path: Path) -> None:
    Project.create(project_path).close()
    with pytest.raises(ProjectError, match="already exists"):
        Project.create(project_path)


def test_open_missing_file_names_it(tmp_path: Path) -> None:
    with pytest.raises(ProjectError, match=r"nope\.vscope: no such project file"):
        Project.open(tmp_path / "nope.vscope")


def test_text_file_is_not_a_project(tmp_path: Path) -> None:
    bogus = tmp_path / "notes.vscope"
    bogus.write_text("just some notes\n")
    with pytest.raises(ProjectError, match="not a Vendiscope project"):
        Project.open(bogus)


def test_folder_is_not_a_project(tmp_path: Path) -> None:
    with pytest.raises(ProjectError, match="is a folder"):
        Project.open(tmp_path)


def test_other_sqlite_database_is_not_a_project(tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    connection = sqlite3.connect(other)
    connection.execute("CREATE TABLE t (x)")
    connection.commit()
    connection.close()
    with pytest.raises(ProjectError, match="not a Vendiscope project"):
        Project.open(other)


def test_corrupt_project_gives_clear_error(project_path: Path, tmp_path: Path) -> None:
    with Project.create(project_path) as project:
        import_dataset(project, write_jsonl(tmp_path / "d.jsonl", qa_rows(500)))
        project.wal_checkpoint()
    data = bytearray(project_path.read_bytes())
    # Keep the header, wreck every page after the first: sqlite sees a damaged file.
    for offset in range(4096, len(data)):
        data[offset] = 0xA5
    project_path.write_bytes(bytes(data))
    with pytest.raises(ProjectError, match="cannot be opened"):
        Project.open(project_path)


def test_newer_schema_is_refused(project_path: Path) -> None:
    Project.create(project_path).close()
    connection = sqlite3.connect(project_path)
    connection.execute("UPDATE alembic_version SET version_num = '9999_future'")
    connection.commit()
    connection.close()
    with pytest.raises(ProjectError, match=r"newer version of Vendiscope.*9999_future"):
        Project.open(project_path)


def test_older_schema_is_migrated_with_backup(project_path: Path) -> None:
    from vendiscope.core.store.engine import make_engine

    engine = make_engine(project_path)
    migrate.upgrade(engine, "0001")
    with engine.begin() as connection:
        connection.exec_driver_sql(
            "INSERT INTO datasets (name, source_uri, format, field_mapping, row_count, "
            "duplicate_count, skipped_count, fingerprint, created_at) VALUES "
            "('old', 'x.jsonl', 'jsonl', '{\"roles\": {\"text\": \"text\"}}', 1, 0, 0, 'f', "
            "'2025-01-01 00:00:00')"
        )
        connection.exec_driver_sql(
            "INSERT INTO records (dataset_id, seq, row_index, text, raw, content_hash) "
            "VALUES (1, 0, 1, 'hello', '{\"text\": \"hello\"}', 'abc')"
        )
    engine.dispose()
    assert migrate.current_revision(make_engine(project_path)) == "0001"

    with Project.open(project_path) as project:
        backup = project.migration_backup
        assert backup is not None and backup.exists()
        assert migrate.current_revision(project.engine) == migrate.head_revision()
        assert [r.text for r in project.records("old")] == ["hello"]
        with project.engine.connect() as connection:
            columns = [row[1] for row in connection.exec_driver_sql("PRAGMA table_info(records)")]
        assert "quality" in columns
        with project.engine.connect() as connection:
            columns = [row[1] for row in connection.exec_driver_sql("PRAGMA table_info(runs)")]
        assert "owner" in columns  # 0003: who runs a job, to tell interrupted from running
    # The backup is the untouched old file.
    assert migrate.current_revision(make_engine(backup)) == "0001"
    assert table_counts(backup)["records"] == 1


def test_records_page_by_position(project, tmp_path: Path) -> None:
    import_dataset(project, write_jsonl(tmp_path / "d.jsonl", qa_rows(1000)), name="d")
    page = project.records("d", offset=700, limit=200)
    assert [r.seq for r in page] == list(range(700, 900))
    assert page[0].prompt == "What is 700 + 700?"
    assert page[0].original()["id"] == "r700"
    assert project.records("d", offset=990, limit=200)[-1].seq == 999


def test_subsets_keep_rank_order(project, tmp_path: Path) -> None:
    import_dataset(project, write_jsonl(tmp_path / "d.jsonl", qa_rows(50)), name="d")
    subset = subsets.save(project, "d", "picked", [40, 3, 17], gains=[0.5, 0.25, 0.125])
    assert subset.size == 3
    assert [r.seq for r in project.iter_records("d", subset="picked")] == [40, 3, 17]
    with pytest.raises(ProjectError, match="already has a subset"):
        subsets.save(project, "d", "picked", [1])
    with pytest.raises(ProjectError, match="out of range"):
        subsets.save(project, "d", "bad", [10_000])
    assert [s.name for s in project.subsets("d")] == ["picked"]


def test_unknown_dataset_lists_known(project, tmp_path: Path) -> None:
    import_dataset(project, write_jsonl(tmp_path / "d.jsonl", qa_rows(3)), name="alpha")
    with pytest.raises(ProjectError, match=r"no dataset named 'beta' \(alpha\)"):
        project.dataset("beta")


def test_delete_dataset_cascades(project, project_path: Path, tmp_path: Path) -> None:
    import_dataset(project, write_jsonl(tmp_path / "d.jsonl", qa_rows(20)), name="d")
    subsets.save(project, "d", "s", [1, 2])
    project.delete_dataset("d")
    counts = table_counts(project_path)
    assert counts["records"] == counts["subset_members"] == counts["datasets"] == 0
