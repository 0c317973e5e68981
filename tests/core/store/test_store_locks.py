"""The project survives the app holding it open while jobs and other processes write.

Closing any descriptor of a file drops every POSIX lock the process holds on it. When the
app read a project's header with ``open()`` while it held a connection, the next process to
close its connection believed it was the last, checkpointed and deleted the WAL under the
app's feet: later writes went to a deleted file and the project came apart. These tests run
the real scenario: an app-like process (long-lived connection plus a job's open/close),
another process that writes and exits, and the app writing afterwards.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import qa_rows, table_counts, write_jsonl
from vendiscope.core.store.health import check_project_file
from vendiscope.core.store.project import Project

HOLDER = Path(__file__).with_name("_app_holder.py")

WRITER = """
import sys
from vendiscope.core.io.importing import import_dataset
from vendiscope.core.store.project import Project
with Project.open(sys.argv[1]) as project:
    import_dataset(project, sys.argv[2], name=sys.argv[3])
"""


class Holder:
    """Drives the app-like process line by line."""

    def __init__(self, location: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, str(HOLDER), str(location)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.read() == "ready"

    def read(self) -> str:
        assert self.process.stdout is not None
        return self.process.stdout.readline().strip()

    def ask(self, line: str) -> str:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        return self.read()

    def close(self) -> None:
        if self.process.poll() is None:
            assert self.ask("quit") == "bye"
        self.process.wait(timeout=60)


def write_from_another_process(location: Path, data: Path, name: str) -> None:
    subprocess.run([sys.executable, "-c", WRITER, str(location), str(data), name], check=True)


@pytest.fixture
def holder(project_path: Path) -> Holder:
    Project.create(project_path).close()
    running = Holder(project_path)
    yield running
    running.close()


@pytest.mark.slow
def test_wal_survives_a_job_open_close_and_another_writer(
    holder: Holder, project_path: Path, tmp_path: Path
) -> None:
    data = write_jsonl(tmp_path / "rows.jsonl", qa_rows(40))
    assert holder.ask("open-close") == "done"  # a job thread opened and closed the project
    write_from_another_process(project_path, data, "cli")  # a CLI command writes and exits
    assert holder.ask("wal") == "intact"
    assert Path(f"{project_path}-wal").exists()

    assert holder.ask(f"import app-1 {data}") == "40"  # the app writes after the CLI left
    write_from_another_process(project_path, data, "cli-2")  # and the CLI again, meanwhile
    assert holder.ask(f"import app-2 {data}") == "40"
    assert holder.ask("count") == "4"
    holder.close()

    health = check_project_file(project_path)
    assert health.ok, health.problems
    counts = table_counts(project_path)
    assert counts["datasets"] == 4
    assert counts["records"] == 4 * 40


@pytest.mark.slow
def test_repeated_opens_in_the_holder_keep_its_locks(
    holder: Holder, project_path: Path, tmp_path: Path
) -> None:
    data = write_jsonl(tmp_path / "rows.jsonl", qa_rows(10))
    for round_ in range(3):
        assert holder.ask("open-close") == "done"
        write_from_another_process(project_path, data, f"cli-{round_}")
        assert holder.ask("wal") == "intact"
        assert holder.ask(f"import app-{round_} {data}") == "10"
    holder.close()
    assert check_project_file(project_path).ok
    assert table_counts(project_path)["datasets"] == 6
