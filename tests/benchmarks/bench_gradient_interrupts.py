"""Ctrl-C latency and work lost to a SIGKILL of ``vendiscope gradients``, as a user runs it.

The command runs in the background with its output in a log file, on a project of real
docstring rows (``bench_gradient_memory.build_project``). Ctrl-C: SIGINT at several moments
(importing, loading the model, inside batches) and the seconds until the process ends, with
its exit code. SIGKILL: at a seeded random moment between ``--kill-after`` seconds and twice
that; the rows the log said were done, the rows committed, and the work lost in seconds at
the measured rate. ``PRAGMA integrity_check`` after each kill, and the resumed command must
finish the set.

    .venv/bin/python -m tests.benchmarks.bench_gradient_interrupts --rows 200

Results: ``tests/benchmarks/results/gradient_interrupts.json``; see ``docs/benchmarks.md``.
"""

from __future__ import annotations

import argparse
import random
import re
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.benchmarks._common import save
from tests.benchmarks.bench_gradient_memory import build_project

PROGRESS = re.compile(r"(\d+)/(\d+) records \(\d+%\), ([\d.]+) records/s")


def start(location: Path, name: str, log: Path) -> subprocess.Popen:
    command = [sys.executable, "-m", "vendiscope.cli", "gradients", str(location), "docs",
               "--name", name]  # fmt: skip
    with log.open("w") as output:
        return subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT)


def committed(location: Path, name: str) -> int:
    from vendiscope.core.store import vectors
    from vendiscope.core.store.project import Project

    with Project.open(location) as project:
        found = [s for s in vectors.list_sets(project, "docs") if s.name == name]
    return found[0].committed_rows if found else 0


def integrity(location: Path) -> str:
    with sqlite3.connect(location) as db:
        return str(db.execute("pragma integrity_check").fetchone()[0])


def ctrl_c(location: Path, folder: Path, delay: float) -> dict[str, Any]:
    name = f"ctrl-c-{delay:g}"
    log = folder / f"{name}.log"
    child = start(location, name, log)
    time.sleep(delay)
    sent = time.perf_counter()
    child.send_signal(signal.SIGINT)
    code = child.wait(timeout=120)
    seconds = time.perf_counter() - sent
    tail = log.read_text().strip().splitlines()[-1:] or [""]
    print(f"Ctrl-C after {delay:5.1f} s: ended in {seconds:.2f} s, exit {code}: {tail[0][:90]}")
    return {"after_s": delay, "ended_in_s": seconds, "exit_code": code, "last_line": tail[0]}


def kill(location: Path, folder: Path, after: float) -> dict[str, Any]:
    name = "killed"
    log = folder / "kill.log"
    child = start(location, name, log)
    time.sleep(after)
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=60)
    found = PROGRESS.findall(log.read_text())
    done, rate = (int(found[-1][0]), float(found[-1][2])) if found else (0, 0.0)
    kept = committed(location, name)
    lost = max(done - kept, 0)
    result = {
        "killed_after_s": after,
        "rows_done": done,
        "rows_committed": kept,
        "rows_lost": lost,
        "seconds_lost": lost / rate if rate else None,
        "integrity": integrity(location),
    }
    print(f"SIGKILL after {after:.0f} s: {result}")
    resumed = subprocess.run(
        [sys.executable, "-m", "vendiscope.cli", "gradients", str(location), "docs",
         "--name", name], capture_output=True, text=True,
    )  # fmt: skip
    result["resumed_exit_code"] = resumed.returncode
    result["resumed_rows"] = committed(location, name)
    print(f"resumed: exit {resumed.returncode}, {result['resumed_rows']} rows")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200)
    parser.add_argument("--kill-after", type=float, default=90.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--delays", default="1,3,6,10,20,40")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        location = build_project(folder, args.rows)
        presses = [ctrl_c(location, folder, float(d)) for d in args.delays.split(",")]
        moment = random.Random(args.seed).uniform(args.kill_after, 2 * args.kill_after)
        killed = kill(location, folder, moment)
    worst = max(p["ended_in_s"] for p in presses)
    print(f"worst Ctrl-C latency {worst:.2f} s; work lost to SIGKILL {killed['seconds_lost']} s")
    save("gradient_interrupts", {"rows": args.rows, "ctrl_c": presses, "sigkill": killed})


if __name__ == "__main__":
    main()
