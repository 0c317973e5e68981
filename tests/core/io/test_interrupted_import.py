"""A process killed in the middle of an import leaves the project exactly as before."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.conftest import qa_rows, table_counts, write_jsonl
from vendiscope.core.io.importing import import_dataset
from vendiscope.core.store.project import Project

CHILD = textwrap.dedent(
    """
    import sys, time
    from vendiscope.core.io.importing import import_dataset
    from vendiscope.core.base.jobs import NullProgress
    from vendiscope.core.store.project import Project

    class Announce(NullProgress):
        batches = 0
        def update(self, completed, total=None):
            self.batches += 1
            if self.batches == 3:
                print("writing", flush=True)
                time.sleep(60)  # parked mid-transaction until the parent kills us

    with Project.open(sys.argv[1]) as project:
        import_dataset(project, sys.argv[2], name="big", progress=Announce())
    """
)


@pytest.mark.slow
def test_kill_during_import_leaves_project_unchanged(project_path: Path, tmp_path: Path) -> None:
    with Project.create(project_path) as project:
        import_dataset(project, write_jsonl(tmp_path / "kept.jsonl", qa_rows(50)))
    before = table_counts(project_path)
    big = write_jsonl(tmp_path / "big.jsonl", qa_rows(20_000))

    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(project_path), str(big)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "writing"
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL

    with Project.open(project_path) as project:
        assert project.integrity_check() == "ok"
        assert [d.name for d in project.datasets()] == ["kept"]
    assert table_counts(project_path) == before
