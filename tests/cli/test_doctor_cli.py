"""`vendiscope doctor PROJECT` runs SQLite's checks and says what it found."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import qa_rows, write_jsonl
from vendiscope.cli import app
from vendiscope.core.io.importing import import_dataset
from vendiscope.core.store.project import Project

runner = CliRunner()


def doctor(project: Path):
    return runner.invoke(app, ["doctor", str(project), "--json"])


def imported_project(tmp_path: Path) -> Path:
    location = tmp_path / "p.vscope"
    with Project.create(location) as project:
        import_dataset(project, write_jsonl(tmp_path / "qa.jsonl", qa_rows(300)))
        project.wal_checkpoint()
    return location


def test_sound_project_passes(tmp_path: Path) -> None:
    result = doctor(imported_project(tmp_path))
    assert result.exit_code == 0, result.output
    found = json.loads(result.output)["project"]
    assert found["ok"] is True and found["foreign_keys"] == [] and found["datasets"] == 1


def test_foreign_key_violation_is_reported_and_exits_1(tmp_path: Path) -> None:
    location = imported_project(tmp_path)
    connection = sqlite3.connect(location)
    connection.execute("PRAGMA foreign_keys = OFF")
    connection.execute("UPDATE records SET dataset_id = 999 WHERE seq = 7")
    connection.commit()
    connection.close()

    result = doctor(location)
    assert result.exit_code == 1
    found = json.loads(result.output)["project"]
    assert found["ok"] is False
    assert any("records row" in line and "datasets" in line for line in found["foreign_keys"])
    assert ".recover" in found["advice"]


def test_damaged_pages_are_reported(tmp_path: Path) -> None:
    location = imported_project(tmp_path)
    connection = sqlite3.connect(location)
    page_size = connection.execute("PRAGMA page_size").fetchone()[0]
    pages = connection.execute("PRAGMA page_count").fetchone()[0]
    connection.close()
    damaged = bytearray(location.read_bytes())  # no connection is open in this process
    middle = (pages // 2) * page_size
    damaged[middle : middle + page_size] = b"\x5a" * page_size
    location.write_bytes(bytes(damaged))

    result = runner.invoke(app, ["doctor", str(location)])
    assert result.exit_code == 1
    assert "FAILED" in result.output
    assert "recover" in result.output


def test_a_file_that_is_not_a_project(tmp_path: Path) -> None:
    other = tmp_path / "notes.vscope"
    other.write_text("not a database\n")
    result = doctor(other)
    assert result.exit_code == 1
    assert "not a database" in json.loads(result.output)["project"]["problems"][0]


KILLED = """
import sys, time
from vendiscope.core.store.project import Project
from vendiscope.core.store.runs import start_run

with Project.open(sys.argv[1]) as project:
    start_run(project, key="export:qa", kind="export", plugin="exporter:jsonl",
              dataset_id=project.dataset("qa").id, params={})
    print("running", flush=True)
    time.sleep(60)
"""


@pytest.mark.slow
def test_runs_left_running_by_a_killed_process_are_marked_interrupted(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys

    location = imported_project(tmp_path)
    child = subprocess.Popen(
        [sys.executable, "-c", KILLED, str(location)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "VENDISCOPE_RUN_WATCH": "0"},  # as after a reboot: no watcher
    )
    assert child.stdout is not None and child.stdout.readline().strip() == "running"
    with Project.open(location) as project:
        assert [r.status for r in project.runs("qa")][-1] == "running"  # alive: left alone
    from vendiscope.core.store.runs import interrupted_runs

    with Project.open(location) as project:
        assert interrupted_runs(project) == []
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=30)

    found = json.loads(doctor(location).output)["project"]
    assert len(found["interrupted_runs"]) == 1
    assert "(export, exporter:jsonl): pid" in found["interrupted_runs"][0]
    assert "ended without closing it; marked interrupted" in found["interrupted_runs"][0]
    with Project.open(location) as project:
        assert [r.status for r in project.runs("qa")][-1] == "interrupted"
    assert json.loads(doctor(location).output)["project"]["interrupted_runs"] == []


def test_records_deleted_behind_the_project_s_back_are_found(tmp_path: Path) -> None:
    location = imported_project(tmp_path)
    connection = sqlite3.connect(location)
    connection.execute("DELETE FROM records")  # the file stays sound; its rows do not
    connection.commit()
    connection.close()
    result = doctor(location)
    assert result.exit_code == 1
    found = json.loads(result.stdout)["project"]
    assert found["ok"] is False
    assert "dataset 'qa': says 300 rows but holds 0 records" in found["problems"]
    assert "Import the dataset again" in found["advice"] and ".recover" not in found["advice"]
