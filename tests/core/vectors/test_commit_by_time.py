"""A slow featurizer's job sizes its chunks from the first row it times, so it commits about
every ``commit_seconds``; a process killed mid-job resumes right after its last commit, with
no row lost, repeated or moved, and the project file intact."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import qa_rows, write_jsonl
from tests.core.vectors import _reuse_plugins
from tests.core.vectors._reuse_plugins import expected_row, logged
from vendiscope.core.io.importing import import_dataset
from vendiscope.core.plugin_host import PluginRegistry
from vendiscope.core.store import vectors
from vendiscope.core.store.project import Project
from vendiscope.core.vectors.featurizing import FEATURE_CHUNK_ROWS, featurize_dataset

ROOT = Path(__file__).resolve().parents[3]
ROWS, DELAY, COMMIT = 60, 0.05, 0.4  # a chunk should take about COMMIT / 2: 4 rows

CHILD = textwrap.dedent(
    """
    import sys
    from tests.core.vectors import _reuse_plugins
    from vendiscope.core.plugin_host import PluginRegistry
    from vendiscope.core.store.project import Project
    from vendiscope.core.vectors.featurizing import featurize_dataset

    registry = PluginRegistry.discover(plugin_dir=None)
    registry.add_manifest(_reuse_plugins.manifest)
    with Project.open(sys.argv[1]) as project:
        featurize_dataset(project, "d", featurizer="slow", name="slow", registry=registry,
                          params={"delay": float(sys.argv[3]), "log": sys.argv[2]},
                          commit_seconds=float(sys.argv[4]))
    """
)


@pytest.fixture
def registry() -> PluginRegistry:
    registry = PluginRegistry.discover(plugin_dir=None)
    registry.add_manifest(_reuse_plugins.manifest)
    return registry


def prompts(rows: list[dict]) -> list[str]:
    return [row["question"] for row in rows]


def committed_rows(location: Path) -> int:
    with Project.open(location) as project:
        found = vectors.list_sets(project, "d")
        return found[0].committed_rows if found else 0


@pytest.mark.slow
def test_chunks_are_sized_to_commit_in_time(project, tmp_path: Path, registry) -> None:
    import_dataset(project, write_jsonl(tmp_path / "d.jsonl", qa_rows(30)), name="d")
    slow = featurize_dataset(project, "d", featurizer="slow", registry=registry, name="slow",
                             params={"delay": DELAY}, commit_seconds=COMMIT)  # fmt: skip
    assert 1 <= slow.vector_set.chunk_rows <= COMMIT / DELAY  # a chunk within COMMIT
    assert slow.counts == {"featurized": 30}
    expected = np.stack([expected_row(p, 4) for p in prompts(qa_rows(30))])
    assert np.array_equal(vectors.load(project, "d", "slow"), expected)

    again = {"featurizer": "slow", "registry": registry, "reuse": False}  # compute them again
    fast = featurize_dataset(project, "d", name="fast", **again)  # a minute: plenty of time
    assert fast.vector_set.chunk_rows == FEATURE_CHUNK_ROWS  # quick rows: the usual chunks
    given = featurize_dataset(project, "d", name="given", params={"delay": DELAY},
                              chunk_rows=7, commit_seconds=COMMIT, **again)  # fmt: skip
    assert given.vector_set.chunk_rows == 7  # a chunk size given is used as given


@pytest.mark.slow
def test_reused_first_rows_do_not_leave_the_chunks_unsized(
    project, tmp_path: Path, registry
) -> None:
    """The first rows were computed before (another dataset): the job times the next rows that
    need computing, so its chunks still commit in time."""
    rows = qa_rows(40)
    import_dataset(project, write_jsonl(tmp_path / "head.jsonl", rows[:8]), name="head")
    import_dataset(project, write_jsonl(tmp_path / "d.jsonl", rows), name="d")
    options = {"featurizer": "slow", "registry": registry, "name": "slow"}
    featurize_dataset(project, "head", params={"delay": DELAY}, **options)
    found = featurize_dataset(project, "d", params={"delay": DELAY}, commit_seconds=COMMIT,
                              **options)  # fmt: skip
    assert found.counts == {"reused": 8, "featurized": 32}
    assert 1 <= found.vector_set.chunk_rows <= COMMIT / DELAY  # not the unmeasured default
    expected = np.stack([expected_row(p, 4) for p in prompts(rows)])
    assert np.array_equal(vectors.load(project, "d", "slow"), expected)


@pytest.mark.slow
def test_a_killed_slow_job_resumes_after_its_last_commit(tmp_path: Path, registry) -> None:
    rows = qa_rows(ROWS)
    location = tmp_path / "p.vscope"
    with Project.create(location) as project:
        import_dataset(project, write_jsonl(tmp_path / "d.jsonl", rows), name="d")
    child_log = tmp_path / "child.log"
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(location), str(child_log), str(DELAY), str(COMMIT)],
        cwd=ROOT,
    )
    try:
        deadline = time.monotonic() + 60
        while committed_rows(location) < 12:  # a few chunks in
            assert child.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=60)

    with Project.open(location) as project:
        assert project.integrity_check() == "ok"
        (partial,) = vectors.list_sets(project, "d")
        assert partial.status == "running" and partial.chunk_rows <= COMMIT / DELAY
        committed = partial.committed_rows
        assert 12 <= committed < ROWS and committed % partial.chunk_rows == 0
        kept = vectors.read_rows(project, partial, list(range(committed)))
        assert len(logged(child_log)) >= committed  # the child computed at least those

        resume_log = tmp_path / "resume.log"
        resumed = featurize_dataset(project, "d", featurizer="slow", name="slow",
                                    registry=registry, params={"log": str(resume_log)})  # fmt: skip
        assert resumed.resumed_from == committed
        assert resumed.counts == {"featurized": ROWS - committed}
        assert resumed.vector_set.chunk_rows == partial.chunk_rows  # its own chunks, kept
        # exactly the rows after the last commit were computed again, each once
        assert logged(resume_log) == [f"row {p}" for p in prompts(rows)[committed:]]
        matrix = vectors.load(project, "d", "slow")
        assert project.integrity_check() == "ok"
    assert np.array_equal(matrix[:committed], kept)
    expected = np.stack([expected_row(p, 4) for p in prompts(rows)])
    assert np.array_equal(matrix, expected)  # no row lost, repeated or moved
