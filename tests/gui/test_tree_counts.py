"""The project tree's counts equal the database's after every job, in-app or from the CLI.

A user saw Runs drop from 12 to 8 after an export, and Refresh did not fix it. That was the
WAL deleted under the app (tests/core/store/test_store_locks.py): the app's connection read a
stale, deleted log. These tests hold the tree to the file, job after job.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.gui.conftest import make_project, open_project, tiny_rows, wait_job
from vendiscope.gui.jobs import tasks
from vendiscope.gui.jobs.manager import JobState


def tree_counts(window, dataset: str) -> dict[str, int]:
    model = window.project_panel.model
    index = model.find_dataset(dataset)
    counts = {}
    for row in range(model.rowCount(index)):
        node = model.node(model.index(row, 0, index))
        if node is not None and node.kind == "group":
            counts[node.payload] = len(node.children)
    return counts


def database_counts(location: Path, dataset: str) -> dict[str, int]:
    """Read with the sqlite3 module in another process: what the file really holds."""
    script = """
import json, sqlite3, sys
c = sqlite3.connect(sys.argv[1])
d = c.execute("SELECT id FROM datasets WHERE name = ?", (sys.argv[2],)).fetchone()[0]
def count(table):
    return c.execute(f"SELECT COUNT(*) FROM {table} WHERE dataset_id = ?", (d,)).fetchone()[0]
print(json.dumps({t: count(t) for t in ("runs", "subsets", "vector_sets")}))
"""
    import json

    out = subprocess.run(
        [sys.executable, "-c", script, str(location), dataset],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return json.loads(out)


def assert_tree_matches(window, location: Path, dataset: str) -> None:
    found = tree_counts(window, dataset)
    expected = database_counts(location, dataset)
    assert {kind: found.get(kind, 0) for kind in expected} == expected


@pytest.mark.slow
def test_counts_match_after_each_job_and_after_cli_writes(qtbot, window, tmp_path: Path) -> None:
    location = make_project(tmp_path / "p.vscope", tiny_rows(60), name="tiny")
    open_project(qtbot, window, location)
    assert_tree_matches(window, location, "tiny")

    for number in range(3):
        export = window.jobs.submit(
            "Export",
            tasks.export,
            str(location),
            "tiny",
            str(tmp_path / f"out-{number}.jsonl"),
            kind="export",
            in_thread=True,
        )
        assert wait_job(qtbot, export).state == JobState.DONE
        assert_tree_matches(window, location, "tiny")

        lasso = window.jobs.submit(
            "Save subset",
            tasks.save_subset,
            str(location),
            "tiny",
            f"lasso-{number}",
            [1, 2, 3, number + 4],
            kind="subset",
            in_thread=True,
        )
        assert wait_job(qtbot, lasso).state == JobState.DONE
        assert_tree_matches(window, location, "tiny")

        subprocess.run(  # another process writes while the app holds the project
            [sys.executable, "-m", "vendiscope.cli", "subsets", "create", str(location),
             "tiny", f"cli-{number}", "--contains", "fact"],
            check=True, capture_output=True,
        )  # fmt: skip
        window.document.refresh()  # View > Refresh
        assert_tree_matches(window, location, "tiny")

    connection = sqlite3.connect(location)
    assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    connection.close()
