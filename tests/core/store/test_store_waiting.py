"""A command that writes while another process holds the project's write lock waits for
it, says so, and goes on — it never fails because another command is running."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import qa_rows, write_jsonl
from vendiscope.core.base.jobs import CancelToken, RecordingProgress
from vendiscope.core.io.importing import import_dataset
from vendiscope.core.store import waiting
from vendiscope.core.store.project import Project

HOLDER = Path(__file__).with_name("_lock_holder.py")


def imported(tmp_path: Path) -> Path:
    location = tmp_path / "p.vscope"
    with Project.create(location) as project:
        import_dataset(project, write_jsonl(tmp_path / "qa.jsonl", qa_rows(40)))
    return location


def hold_lock(location: Path, seconds: float) -> subprocess.Popen[str]:
    holder = subprocess.Popen(
        [sys.executable, str(HOLDER), str(location), str(seconds)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
    return holder


@pytest.mark.slow
def test_a_cli_import_waits_out_a_lock_held_past_the_old_timeout(tmp_path: Path) -> None:
    """The lock is held 33 s: longer than the 30 s busy timeout that used to end the command
    with "database is locked"."""
    location = imported(tmp_path)
    more = write_jsonl(tmp_path / "more.jsonl", qa_rows(30, start=1000))
    holder = hold_lock(location, 33)
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "vendiscope", "import", str(location), str(more)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert time.monotonic() - started > 25
    assert holder.wait(timeout=30) == 0
    words = " ".join(done.stderr.split())
    assert f"waiting: {location}: waiting for python (pid {holder.pid}), which is writing" in words
    assert "still waiting for" in words and "going on" in words
    with Project.open(location) as project:
        assert [d.name for d in project.datasets()] == ["qa", "more"]
        assert project.dataset("more").row_count == 30
    with sqlite3.connect(location) as check:
        assert check.execute("PRAGMA integrity_check").fetchone() == ("ok",)


@pytest.mark.slow
def test_a_second_import_waits_for_a_real_import(tmp_path: Path) -> None:
    location = imported(tmp_path)
    big = write_jsonl(tmp_path / "big.jsonl", qa_rows(150_000, start=10_000))
    small = write_jsonl(tmp_path / "small.jsonl", qa_rows(20, start=5_000))
    first = subprocess.Popen(
        [sys.executable, "-m", "vendiscope", "import", str(location), str(big)],
        stderr=subprocess.PIPE,
        text=True,
    )
    assert first.stderr is not None
    while "Importing big.jsonl:" not in first.stderr.readline():  # progress: it is writing
        assert first.poll() is None
    second = subprocess.run(
        [sys.executable, "-m", "vendiscope", "import", str(location), str(small)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    first.stderr.read()
    assert first.wait(timeout=300) == 0 and second.returncode == 0, second.stderr
    with Project.open(location) as project:
        sizes = {d.name: d.row_count for d in project.datasets()}
    assert sizes == {"qa": 40, "big": 150_000, "small": 20}


@pytest.mark.slow
def test_a_statement_waits_and_says_so_then_goes_on(tmp_path: Path) -> None:
    location = imported(tmp_path)
    heard: list[str | None] = []
    forget = waiting.add_notice(heard.append)
    holder = hold_lock(location, 4)
    try:
        with Project.open(location) as project:
            import_dataset(project, write_jsonl(tmp_path / "b.jsonl", qa_rows(5, start=99)))
            assert [d.name for d in project.datasets()] == ["qa", "b"]
    finally:
        forget()
    assert holder.wait(timeout=30) == 0
    assert heard[0] is not None and f"python (pid {holder.pid})" in heard[0]
    assert heard[-1] is None  # and then it went on


@pytest.mark.slow
def test_a_lock_held_by_this_process_still_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No other process has the file open: the holder is this process, which no wait can end."""
    monkeypatch.setattr(waiting, "SAME_PROCESS_LIMIT_S", 3.0)
    location = imported(tmp_path)
    mine = sqlite3.connect(location, isolation_level=None)
    mine.execute("BEGIN IMMEDIATE")
    try:
        with Project.open(location) as project, pytest.raises(Exception, match="locked"):
            import_dataset(project, write_jsonl(tmp_path / "b.jsonl", qa_rows(5, start=99)))
    finally:
        mine.execute("ROLLBACK")
        mine.close()
    with Project.open(location) as project:
        assert [d.name for d in project.datasets()] == ["qa"]


@pytest.mark.slow
def test_a_gui_job_shows_the_wait_as_its_description(tmp_path: Path) -> None:
    from tests.gui import _process_tasks
    from vendiscope.gui.jobs.process import run_in_process

    location = imported(tmp_path)
    more = write_jsonl(tmp_path / "more.jsonl", qa_rows(10, start=500))
    holder = hold_lock(location, 4)
    progress = RecordingProgress()
    result = run_in_process(
        _process_tasks.import_file, (str(location), str(more)), {}, progress=progress,
        cancel=CancelToken(),
    )  # fmt: skip
    assert result == 10 and holder.wait(timeout=30) == 0
    waits = [d for d in progress.descriptions if "waiting for python" in d]
    assert waits, progress.descriptions
    assert (
        progress.descriptions[-1]
        == progress.descriptions[progress.descriptions.index(waits[0]) - 1]
    )
