"""A store soak: an app-like process and three CLI writers on one project, for a while.

The app-like process (:func:`app_loop`, run as its own process) holds the project open for
its whole life, re-reads it as the project panel does, and every second saves a "lasso"
subset through a job-style open/close in a worker thread. Three writers run real
``vendiscope`` commands in a loop: imports; selections; subsets and exports. Every command
must succeed; at the end the project must pass SQLite's checks and hold exactly the rows
that the successful operations wrote.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from tests.conftest import qa_rows, table_counts, write_jsonl

BASE_ROWS = 60
IMPORT_ROWS = 30


@dataclass
class SoakResult:
    seconds: float
    operations: dict[str, int] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    expected: dict[str, int] = field(default_factory=dict)
    found: dict[str, int] = field(default_factory=dict)
    integrity: list[str] = field(default_factory=list)
    foreign_keys: list[str] = field(default_factory=list)
    app_reads: int = 0


def prepare(folder: Path) -> Path:
    """A project with a base dataset (and a vector set, so `select` can run)."""
    from vendiscope.core.io.importing import import_dataset
    from vendiscope.core.store import vectors
    from vendiscope.core.store.project import Project

    location = folder / "soak.vscope"
    with Project.create(location) as project:
        import_dataset(project, write_jsonl(folder / "base.jsonl", qa_rows(BASE_ROWS)), name="base")
        matrix = np.random.default_rng(0).normal(size=(BASE_ROWS, 16))
        vectors.write_matrix(
            project, "base", "embeddings/soak", matrix, kind="embedding", model="soak", params={}
        )
    write_jsonl(folder / "more.jsonl", qa_rows(IMPORT_ROWS, start=1000))
    return location


def vendiscope_command() -> list[str]:
    """The `vendiscope` console script, as a user runs it."""
    script = Path(sys.executable).with_name("vendiscope")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "import sys; from vendiscope.cli import main; sys.exit(main())"]


def writer(kind: str, location: Path, folder: Path, until: float, result: SoakResult) -> None:
    """Run one kind of CLI command in a loop until ``until``; count successes."""
    number = 0
    while time.monotonic() < until:
        number += 1
        if kind == "import":
            steps = [
                ("import", ["import", location, folder / "more.jsonl", "--name", f"imp-{number}"])
            ]
        elif kind == "select":
            steps = [("select", ["select", location, "base", "-k", "5", "--method", "random",
                                 "--seed", str(number), "--name", f"sel-{number}"])]  # fmt: skip
        else:
            out = folder / "exports" / f"out-{number}.jsonl"
            steps = [
                (
                    "subset",
                    [
                        "subsets",
                        "create",
                        location,
                        "base",
                        f"sub-{number}",
                        "--contains",
                        str(number % 10),
                    ],
                ),
                ("export", ["export", location, "base", out, "--subset", f"sub-{number}"]),
            ]
        for name, args in steps:
            done = subprocess.run(
                [*vendiscope_command(), *map(str, args)], capture_output=True, text=True
            )
            if done.returncode == 0:
                result.operations[name] = result.operations.get(name, 0) + 1
            else:
                result.failures.append(f"{name} #{number}: {done.stderr.strip()[-300:]}")


def app_loop(location: str, seconds: float) -> None:
    """The app-like process: one long-lived connection, reads, job-style subset saves."""
    from vendiscope.core.store.project import Project
    from vendiscope.core.store.subsets import from_positions

    project = Project.open(location)
    reads = saves = 0
    failures: list[str] = []
    until = time.monotonic() + seconds
    next_save = time.monotonic() + 1.0
    while time.monotonic() < until:
        for info in project.datasets():
            project.runs(info.name)
            project.subsets(info.name)
        reads += 1
        if time.monotonic() >= next_save:
            next_save += 1.0

            def save(number: int = saves) -> None:
                with Project.open(location) as job:
                    from_positions(job, "base", f"lasso-{number}", list(range(number % 7 + 3)))

            worker = threading.Thread(target=save)
            try:
                worker.start()
                worker.join()
                saves += 1
            except Exception as exc:  # pragma: no cover - reported, counted as a failure
                failures.append(repr(exc))
        time.sleep(0.1)
    project.close()
    print(json.dumps({"reads": reads, "saves": saves, "failures": failures}), flush=True)


def run_soak(folder: Path, seconds: float) -> SoakResult:
    from vendiscope.core.store.health import check_project_file

    location = prepare(folder)
    (folder / "exports").mkdir()
    result = SoakResult(seconds)
    root = Path(__file__).parents[3]
    start_app = (
        f"from tests.core.store._soak import app_loop; app_loop({str(location)!r}, {seconds})"
    )
    app = subprocess.Popen(
        [sys.executable, "-c", start_app],
        stdout=subprocess.PIPE,
        text=True,
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)},
    )
    until = time.monotonic() + seconds
    threads = [
        threading.Thread(target=writer, args=(kind, location, folder, until, result))
        for kind in ("import", "select", "subset-export")
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    out, _ = app.communicate(timeout=seconds + 120)
    app_said = json.loads(out.strip().splitlines()[-1])
    result.app_reads = app_said["reads"]
    result.operations["app-subset"] = app_said["saves"]
    result.failures += [f"app: {failure}" for failure in app_said["failures"]]
    if app.returncode != 0:
        result.failures.append(f"app process exited {app.returncode}")

    health = check_project_file(location)
    result.integrity, result.foreign_keys = health.integrity, health.foreign_keys
    ops = result.operations
    imports, selects = ops.get("import", 0), ops.get("select", 0)
    subsets, exports = ops.get("subset", 0), ops.get("export", 0)
    result.expected = {
        "datasets": 1 + imports,
        "records": BASE_ROWS + IMPORT_ROWS * imports,
        "subsets": selects + subsets + ops.get("app-subset", 0),
        "export files": exports,
    }
    counts = table_counts(location)
    result.found = {
        "datasets": counts["datasets"],
        "records": counts["records"],
        "subsets": counts["subsets"],
        "export files": sum(
            1
            for data in (folder / "exports").glob("out-*.jsonl")
            if Path(f"{data}.manifest.json").exists()
        ),
    }
    return result
