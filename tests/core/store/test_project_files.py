"""A project's own files are never read as data, and copies of a project go through SQLite."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import qa_rows, table_counts, write_jsonl
from vendiscope.core.base.errors import InputError
from vendiscope.core.base.project_files import belongs_to, project_files
from vendiscope.core.io.importing import import_dataset
from vendiscope.core.io.sources import preview
from vendiscope.core.store.migrate import copy_project
from vendiscope.core.store.project import Project


@pytest.fixture
def filled(project: Project, tmp_path: Path) -> Project:
    import_dataset(project, write_jsonl(tmp_path / "qa.jsonl", qa_rows(20)), name="qa")
    return project


@pytest.mark.parametrize("member", ["", "-wal", "-shm"])
def test_importing_the_project_into_itself_is_refused(filled: Project, member: str) -> None:
    target = Path(filled.location + member)
    before = table_counts(Path(filled.location))
    with pytest.raises(InputError, match="is a Vendiscope project file"):
        import_dataset(filled, target, format="jsonl")
    assert table_counts(Path(filled.location)) == before


def test_a_link_to_the_project_under_another_name_is_refused(
    filled: Project, tmp_path: Path
) -> None:
    alias = tmp_path / "data.jsonl"
    os.link(filled.location, alias)
    with pytest.raises(InputError, match="project file"):
        import_dataset(filled, alias)
    assert belongs_to(alias, [filled.location]) == Path(filled.location)


def test_preview_never_reads_a_project(filled: Project) -> None:
    with pytest.raises(InputError, match="project file"):
        preview(filled.location, format="jsonl")


def test_a_text_folder_holding_the_project_skips_its_files(tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.txt").write_text("first note")
    (folder / "b.txt").write_text("second note")
    with Project.create(folder / "here.vscope") as project:
        result = import_dataset(
            project, folder, format="txt-folder", importer_params={"pattern": "*"}
        )
        assert result.rows == 2
        assert project.integrity_check() == "ok"


def test_copy_project_is_consistent_while_open(filled: Project, tmp_path: Path) -> None:
    copy = copy_project(filled.location, tmp_path / "copy.vscope")
    with Project.open(copy) as opened:
        assert [d.name for d in opened.datasets()] == ["qa"]
        assert opened.integrity_check() == "ok"
    assert [p.name for p in project_files(copy)][1:] == [
        "copy.vscope-wal",
        "copy.vscope-shm",
        "copy.vscope-journal",
    ]
