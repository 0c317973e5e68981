"""A project is recognised by its content, not its name: no writer replaces one, --force or not.

A copy of a project named ``team.db``, held open by another process as the app would hold it,
survives ``vendiscope export ... team.db --force``; so do a closed copy, any other SQLite
database, and any file with ``-wal``/``-shm`` beside it, whichever writer is pointed at them.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import qa_rows, table_counts, write_jsonl
from tests.core.store.test_store_locks import Holder
from vendiscope.core.base.errors import ExportError
from vendiscope.core.base.project_files import database_kind
from vendiscope.core.io.exporting import export_dataset
from vendiscope.core.io.importing import import_dataset
from vendiscope.core.plugin_host.scaffold import scaffold_plugin
from vendiscope.core.report.build import write_report
from vendiscope.core.store.project import Project
from vendiscope.core.view_data.render import save_chart

CHART = {"kind": "bars", "title": "t", "x": ["a"], "series": [{"name": "n", "values": [1]}]}


@pytest.fixture
def filled(project: Project, tmp_path: Path) -> Project:
    import_dataset(project, write_jsonl(tmp_path / "in.jsonl", qa_rows(12)), name="d")
    return project


def project_named(path: Path, rows: int = 5) -> Path:
    with Project.create(path) as other:
        import_dataset(other, write_jsonl(path.with_suffix(".jsonl"), qa_rows(rows)), name="o")
    return path


@pytest.mark.slow
def test_a_project_held_open_by_another_process_survives_export_force(
    filled: Project, tmp_path: Path
) -> None:
    team = project_named(tmp_path / "team.db")
    holder = Holder(team)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "vendiscope", "export", filled.location, "d", str(team),
             "--format", "jsonl", "--force"],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert done.returncode == 1, done.stdout + done.stderr
        assert "team.db: is a Vendiscope project" in done.stderr
        assert "exported" not in done.stdout
        assert holder.ask("wal") == "intact"  # nobody deleted the file under its connection
        assert holder.ask("count") == "1"
    finally:
        holder.close()
    assert database_kind(team) == "project"
    assert table_counts(team)["records"] == 5


def write_over(writer: str, project: Project, destination: Path) -> None:
    """Point one of the product's writers at ``destination``, as forcefully as it allows."""
    if writer == "export":
        export_dataset(project, "d", destination, format="jsonl", force=True)
    elif writer == "report":
        write_report(project, "d", destination, format="json", force=True)
    elif writer == "image":
        save_chart(CHART, destination, format="png", force=True)
    elif writer == "bad-rows":
        data = destination.with_name("bad.jsonl")
        data.write_text('{"question": "q", "answer": "a"}\nnot json\n')
        import_dataset(project, data, skip_bad=True, bad_report=destination)
    elif writer == "scaffold":  # a file the scaffold would write, inside an existing package
        folder = destination.parent / "vendiscope-mine"
        folder.mkdir(exist_ok=True)
        (folder / "pyproject.toml").unlink(missing_ok=True)
        sqlite3.connect(folder / "pyproject.toml").close()
        destination.rename(folder / "pyproject.toml")
        scaffold_plugin("mine", "metric", destination.parent, force=True)


@pytest.mark.parametrize("writer", ["export", "report", "image", "bad-rows", "scaffold"])
def test_no_writer_replaces_a_closed_project_under_another_name(
    filled: Project, tmp_path: Path, writer: str
) -> None:
    other = project_named(tmp_path / "other.db")
    before = table_counts(other)
    with pytest.raises(ExportError, match="is a Vendiscope project \\(whatever its name\\)"):
        write_over(writer, filled, other)
    moved = tmp_path / "vendiscope-mine" / "pyproject.toml"
    survivor = moved if writer == "scaffold" else other
    assert table_counts(survivor) == before
    assert filled.integrity_check() == "ok"


def test_any_sqlite_database_or_file_in_use_is_refused(filled: Project, tmp_path: Path) -> None:
    plain = tmp_path / "cache.sqlite"
    connection = sqlite3.connect(plain)
    connection.execute("PRAGMA journal_mode=wal")
    connection.execute("CREATE TABLE t (x)")
    connection.execute("INSERT INTO t VALUES (1)")
    connection.commit()  # the connection stays open: -wal and -shm stand beside the file
    with pytest.raises(ExportError, match=r"is a database in use.*cache\.sqlite-wal"):
        export_dataset(filled, "d", plain, format="jsonl", force=True)
    connection.close()  # closed: no -wal left, but it is still a database
    with pytest.raises(ExportError, match="is a SQLite database; Vendiscope never writes"):
        export_dataset(filled, "d", plain, format="jsonl", force=True)
    assert sqlite3.connect(plain).execute("SELECT x FROM t").fetchall() == [(1,)]


def test_ordinary_files_with_database_names_are_still_replaced(
    filled: Project, tmp_path: Path
) -> None:
    for name, content in [("old.db", b"earlier export\n"), ("empty.db", b"")]:
        target = tmp_path / name
        target.write_bytes(content)
        assert database_kind(target) is None
        export_dataset(filled, "d", target, format="jsonl", force=True)
        assert len(target.read_text().splitlines()) == 12


@pytest.mark.slow
def test_a_newline_in_an_output_path_is_shown_escaped(filled: Project, tmp_path: Path) -> None:
    """A name cannot forge a line of the command's output: its newline is shown as ``\\n``."""
    target = tmp_path / "new\nline.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "vendiscope", "export", filled.location, "d", str(target)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert target.is_file()
    for line in (done.stdout + done.stderr).splitlines():
        assert not line.startswith("line.jsonl"), line
    assert "new\\nline.jsonl (jsonl)" in done.stdout
    again = subprocess.run(
        [sys.executable, "-m", "vendiscope", "export", filled.location, "d", str(target)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert "new\\nline.jsonl: already exists" in again.stderr
