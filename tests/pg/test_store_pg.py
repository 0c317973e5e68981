"""The store test suite on a PostgreSQL catalog.

The tests are the SQLite ones from ``tests/core`` (imported, so they stay one suite); the
``project`` fixture of ``tests/pg/conftest.py`` gives each one a fresh PostgreSQL database.
Tests that read the SQLite file directly (pragmas, page size, file checks) stay SQLite-only;
what they check on SQLite is checked here by the PostgreSQL-specific tests below.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import text

from tests.conftest import qa_rows, write_jsonl
from tests.core.io.test_export_job import (  # noqa: F401 - collected here, against PostgreSQL
    test_jsonl_roundtrip_is_exact,
    test_parquet_roundtrip_keeps_types,
    test_subset_export_in_rank_order_with_manifest,
)
from tests.core.io.test_import_job import (  # noqa: F401
    test_chat_and_task_formats_are_detected,
    test_duplicate_dataset_name_refused,
    test_fingerprint_depends_on_content_and_order,
    test_import_jsonl_records_everything,
    test_mapping_overrides,
    test_skip_bad_imports_good_rows_and_reports_bad,
)
from tests.core.store.test_store import (  # noqa: F401
    test_records_page_by_position,
    test_subsets_keep_rank_order,
    test_unknown_dataset_lists_known,
)
from tests.core.store.test_subsets import (  # noqa: F401
    pool,
    test_filter_by_source_and_score_condition,
    test_save_members_and_set_operations,
    test_subset_from_ids_positions_and_filter,
)
from tests.core.store.test_vectors import (  # noqa: F401
    dataset,
    test_bad_chunk_shape_is_refused,
    test_listing_and_deleting,
    test_only_identity_params_must_match,
    test_other_settings_are_never_overwritten,
    test_resume_continues_after_committed_chunks,
    test_write_load_iterate_and_read_rows,
)
from vendiscope.core.base.errors import InputError, ProjectError
from vendiscope.core.io.importing import import_dataset
from vendiscope.core.store import migrate, subsets, vectors
from vendiscope.core.store.project import Project

TABLES = ("datasets", "records", "vector_sets", "vector_chunks", "runs", "subsets",
          "subset_members")  # fmt: skip


def counts(project: Project) -> dict[str, int]:
    with project.engine.connect() as connection:
        return {t: connection.execute(text(f"SELECT COUNT(*) FROM {t}")).scalar() for t in TABLES}


def test_create_open_and_schema_version(pg_url: str) -> None:
    with Project.create(pg_url) as project:
        assert project.engine.dialect.name == "postgresql"
        assert project.datasets() == [] and project.integrity_check() == "ok"
    plain = pg_url.replace("postgresql+psycopg://", "postgresql://")
    with Project.open(plain) as project:  # a plain postgresql:// URL uses psycopg 3
        assert migrate.current_revision(project.engine) == migrate.head_revision()
        assert project.migration_backup is None


def test_empty_or_foreign_database_is_refused(pg_url: str) -> None:
    with pytest.raises(ProjectError, match="empty database, not a Vendiscope project"):
        Project.open(pg_url)
    import psycopg

    with psycopg.connect(pg_url.replace("postgresql+psycopg", "postgresql")) as connection:
        connection.execute("CREATE TABLE inventory (sku text)")
    with pytest.raises(ProjectError, match="not a Vendiscope project"):
        Project.open(pg_url)


def test_newer_schema_is_refused_and_password_is_not_shown(project) -> None:
    with project.engine.begin() as connection:
        connection.execute(text("UPDATE alembic_version SET version_num = '9999_future'"))
    with pytest.raises(ProjectError, match=r"newer version of Vendiscope.*9999_future"):
        Project.open(project.location)
    secret = project.location.replace("postgres@", "postgres:hunter2@")
    with pytest.raises(ProjectError) as error:
        Project.open(secret)
    assert "hunter2" not in str(error.value) and "***" in str(error.value)


def test_older_schema_is_migrated(pg_url: str) -> None:
    from vendiscope.core.store.engine import make_engine

    engine = make_engine(pg_url)
    migrate.upgrade(engine, "0001")
    engine.dispose()
    with Project.open(pg_url) as project:
        assert migrate.current_revision(project.engine) == migrate.head_revision()
        assert project.migration_backup is None  # no file to copy: the server keeps backups
        with project.engine.connect() as connection:
            columns = connection.execute(
                text(
                    "SELECT column_name FROM information_schema.columns "
                    "WHERE table_name = 'records'"
                )
            ).scalars()
            assert "quality" in set(columns)


def test_bad_input_rolls_the_whole_import_back(project, tmp_path: Path) -> None:
    import_dataset(project, write_jsonl(tmp_path / "ok.jsonl", qa_rows(10)), name="ok")
    before = counts(project)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(f'{{"question": "q{i}", "answer": "a"}}\n' for i in range(3000))
                   + "{not json\n")  # fmt: skip
    with pytest.raises(InputError):
        import_dataset(project, bad, name="bad")
    assert counts(project) == before
    assert [d.name for d in project.datasets()] == ["ok"]


def test_delete_dataset_cascades(project, tmp_path: Path) -> None:
    import_dataset(project, write_jsonl(tmp_path / "d.jsonl", qa_rows(20)), name="d")
    subsets.save(project, "d", "s", [1, 2])
    vectors.write_matrix(project, "d", "v", np.ones((20, 3)), kind="embedding", model="m",
                         params={})  # fmt: skip
    project.delete_dataset("d")
    assert all(n == 0 for t, n in counts(project).items() if t != "runs")


def test_vector_chunks_are_bytea_and_a_second_writer_is_skipped(project, tmp_path) -> None:
    import_dataset(project, write_jsonl(tmp_path / "d.jsonl", qa_rows(10)), name="d")
    info = vectors.open_for_writing(project, "d", "v", kind="embedding", model="m", params={},
                                    dim=4, chunk_rows=5)  # fmt: skip
    rows = np.arange(40, dtype=np.float32).reshape(10, 4)
    assert vectors.write_chunk(project, info, 0, rows[:5])
    assert not vectors.write_chunk(project, info, 0, rows[:5] + 1, if_exists="skip")
    with pytest.raises(ProjectError, match="chunk 0 is already written"):
        vectors.write_chunk(project, info, 0, rows[:5])
    vectors.write_chunk(project, info, 1, rows[5:])
    vectors.mark_complete(project, info)
    assert np.array_equal(vectors.load(project, "d", "v"), rows)
    with project.engine.connect() as connection:
        kind = connection.execute(
            text(
                "SELECT data_type FROM information_schema.columns "
                "WHERE table_name = 'vector_chunks' AND column_name = 'data'"
            )
        ).scalar()
    assert kind == "bytea"


def test_the_desktop_app_opens_a_catalog_like_a_file(project, tmp_path: Path) -> None:
    pytest.importorskip("PySide6")
    from vendiscope.gui.windows.document import ProjectDocument

    import_dataset(project, write_jsonl(tmp_path / "d.jsonl", qa_rows(5)), name="d")
    document = ProjectDocument()
    document.open(project.location)
    try:
        assert [d.name for d in document.datasets()] == ["d"]
        assert document.location == project.location
    finally:
        document.close()
