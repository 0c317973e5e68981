"""A project on read-only storage, or on a full disk, can still be read.

Read commands (datasets, show, stats, export, doctor) work; a command that would change the
project says why it cannot and leaves it as it was. Read-only storage is a read-only bind
mount, a full disk a 1 MiB tmpfs filled up: both need root (as CI runs), else the tests skip.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import mount, table_counts
from vendiscope.cli import app
from vendiscope.core.store.project import Project

runner = CliRunner()


@pytest.fixture
def full_disk(read_only_source: Path, tmp_path: Path) -> Iterator[Path]:
    place = tmp_path / "full"
    place.mkdir()
    if not mount("-t", "tmpfs", "-o", "size=1M", "tmpfs", str(place)):
        pytest.skip("mounting a tmpfs needs root")
    try:
        (place / "p.vscope").write_bytes((read_only_source / "p.vscope").read_bytes())  # not open
        with (place / "filler").open("wb") as filler, pytest.raises(OSError):
            while True:
                filler.write(b"\0" * 65536)
                filler.flush()
        yield place / "p.vscope"
    finally:
        subprocess.run(["umount", str(place)], check=False)


def cli(*args: object) -> object:
    return runner.invoke(app, [str(a) for a in args])


def reads_work(project: Path, tmp_path: Path) -> None:
    assert "qa" in cli("datasets", project).output
    assert "What is 3 + 3?" in cli("show", project, "qa", "--limit", "5").output
    assert "12 records" in cli("stats", project, "qa").output
    exported = cli("export", project, "qa", tmp_path / "out.jsonl")
    assert exported.exit_code == 0, exported.output
    assert len((tmp_path / "out.jsonl").read_text().splitlines()) == 12


def test_a_project_on_read_only_storage_is_read_and_not_changed(
    read_only: Path, read_only_source: Path, tmp_path: Path
) -> None:
    before = table_counts(read_only_source / "p.vscope")
    reads_work(read_only, tmp_path)
    doctor = cli("doctor", read_only, "--json")
    assert doctor.exit_code == 0, doctor.output
    found = json.loads(doctor.stdout)["project"]
    assert found["ok"] is True and found["read_only"] == "it is on read-only storage"
    changed = cli("import", read_only, tmp_path / "qa.jsonl", "--name", "again")
    assert changed.exit_code == 1
    assert "cannot be changed here (it is on read-only storage); nothing was changed" in (
        changed.output
    )
    assert table_counts(read_only_source / "p.vscope") == before


def test_a_project_on_a_full_disk_is_read_and_says_the_disk_is_full(
    full_disk: Path, tmp_path: Path
) -> None:
    reads_work(full_disk, tmp_path)
    changed = cli("import", full_disk, tmp_path / "qa.jsonl", "--name", "again")
    assert changed.exit_code == 1
    assert "the disk holding it is full" in changed.output
    assert "disk I/O error" not in changed.output
    with Project.open(full_disk) as project:
        assert [d.name for d in project.datasets()] == ["qa"]
        assert project.integrity_check() == "ok"
