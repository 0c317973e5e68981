"""Ctrl-C ends a command, even one running a plugin that swallows it: a second Ctrl-C at once,
or the grace period after the first. Real ``vendiscope score`` processes, real signals; the
run is marked ``interrupted`` (by the run watcher) and the project stays sound."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import qa_rows, write_jsonl
from tests.core.neighbors.test_neighbors import write_vector_set
from vendiscope.core.io.importing import import_dataset
from vendiscope.core.store.project import Project

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

PLUGIN = """
    import os
    import time
    from pathlib import Path

    from vendiscope.api import Contribution, Metric, MetricResult, PluginManifest

    MARKS = Path(os.environ["MARKS"])

    class Stubborn(Metric):
        '''Sleeps in a loop and swallows every Ctrl-C.'''

        def compute(self, vectors, *, quality=None):
            for step in range(100_000):
                try:  # "started" inside the try: a Ctrl-C right after it is swallowed too
                    if step == 0:
                        (MARKS / "started").touch()
                    time.sleep(0.1)
                except KeyboardInterrupt:
                    (MARKS / "swallowed").touch()
            return MetricResult(1.0)

    manifest = PluginManifest(
        name="stubborn",
        contributions=(Contribution("metric", "stubborn", f"{__name__}:Stubborn"),),
    )
"""


@pytest.fixture
def scored(tmp_path: Path) -> Path:
    """A project with dataset 'qa' and its vector set 'emb'; the plugin in a plugin folder."""
    location = tmp_path / "p.vscope"
    with Project.create(location) as project:
        import_dataset(project, write_jsonl(tmp_path / "qa.jsonl", qa_rows(20)))
        write_vector_set(project, "qa", "emb", np.eye(20, 4, dtype=np.float32))
    (tmp_path / "plugins").mkdir()
    (tmp_path / "plugins" / "stubborn.py").write_text(textwrap.dedent(PLUGIN))
    (tmp_path / "marks").mkdir()
    return location


def start_score(location: Path, **env: str) -> subprocess.Popen[str]:
    folder = location.parent
    environment = {
        **os.environ,
        "VENDISCOPE_PLUGIN_DIR": str(folder / "plugins"),
        "MARKS": str(folder / "marks"),
        **env,
    }
    command = [sys.executable, "-m", "vendiscope", "score", str(location), "qa"]
    return subprocess.Popen(
        [*command, "--metric", "stubborn", "--vectors", "emb"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment,
    )


def wait_for(mark: Path, process: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 60
    while not mark.exists():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, f"no {mark.name} within 60 s"
        time.sleep(0.05)


def ended(process: subprocess.Popen[str]) -> str:
    """The process's stderr once it (and its run watcher, which shares it) ended; a hang guard."""
    try:
        return process.communicate(timeout=60)[1]
    except subprocess.TimeoutExpired:
        process.kill()
        pytest.fail(f"still running 60 s after Ctrl-C: {process.communicate()}")


def last_run(location: Path) -> tuple[str, str, str]:
    """The last run's contribution and status, and the project's integrity check (sqlite3)."""
    with sqlite3.connect(location) as connection:
        plugin, status = connection.execute(
            "SELECT plugin, status FROM runs ORDER BY id DESC LIMIT 1"
        ).fetchone()
        (integrity,) = connection.execute("PRAGMA integrity_check").fetchone()
    return plugin, status, integrity


@pytest.mark.slow
def test_a_second_ctrl_c_ends_a_plugin_that_swallows_the_first(scored: Path) -> None:
    marks = scored.parent / "marks"
    process = start_score(scored)
    wait_for(marks / "started", process)
    process.send_signal(signal.SIGINT)
    wait_for(marks / "swallowed", process)  # the plugin goes on
    process.send_signal(signal.SIGINT)
    errors = ended(process)
    assert process.returncode == 130, errors
    assert "stopped at once (Ctrl-C again); nothing was half-written" in errors
    assert "(metric 'stubborn' of plugin 'stubborn') was running" in errors
    assert last_run(scored) == ("metric:stubborn", "interrupted", "ok")


@pytest.mark.slow
def test_a_plugin_swallowing_ctrl_c_is_ended_after_the_grace_period(scored: Path) -> None:
    process = start_score(scored, VENDISCOPE_STOP_GRACE_S="3")
    wait_for(scored.parent / "marks" / "started", process)
    process.send_signal(signal.SIGINT)
    errors = ended(process)
    assert process.returncode == 130, errors
    assert "stopping… (press Ctrl-C again to stop at once)" in errors
    assert "stopped at once (still running 3 s after Ctrl-C)" in errors
    assert last_run(scored) == ("metric:stubborn", "interrupted", "ok")
