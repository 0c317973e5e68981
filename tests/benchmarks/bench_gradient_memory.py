"""Peak memory of ``vendiscope gradients``: the planned batches against the old fixed ones.

A project of ``--rows`` real rows (Python docstrings, 16 packages, long ones first so that
many reach the default ``max_length`` of 512 tokens) and the command a user runs, each
setting in a fresh process on its own copy of the project (nothing to reuse): its peak RSS
(VmHWM), wall time and rows/s, in turns for ``--rounds`` rounds. "planned" is the default
(a 2.5 GB budget; bf16 autocast on a CPU with native bf16); "old" is what the command did
before batches were planned: float32, and ``--max-memory 8.4GB``, which plans 4,100 tokens
per batch like the fixed 4,096-token, 16-row batches. The plan's own expected peak (from
``--estimate``) is shown beside the measured one. Work lost to a kill and Ctrl-C latency are
measured by ``bench_gradient_interrupts.py``.

    .venv/bin/python -m tests.benchmarks.bench_gradient_memory --rows 120 --rounds 1
    .venv/bin/python -m tests.benchmarks.bench_gradient_memory --rows 1000 --only-planned

Results: ``tests/benchmarks/results/gradient_memory.json``; see ``docs/benchmarks.md``.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.benchmarks._common import measure, save
from vendiscope.core.store.migrate import copy_project

SETTINGS = {"planned": [], "old": ["--max-memory", "8.4GB", "-p", "precision=float32"]}

CHILD = """
import sys
from vendiscope.cli import main
sys.argv = ["vendiscope", "gradients", *sys.argv[2:]]
try:
    main()
except SystemExit as stop:
    if stop.code:
        raise
"""


def build_project(folder: Path, rows: int) -> Path:
    """A project with dataset ``docs`` of ``rows`` docstring pairs, longest first."""
    from tests.benchmarks import corpora
    from vendiscope import scripting as python_api

    drawn = corpora.draw(corpora.load("docstrings"), rows * 4, groups=16, seed=3)
    drawn.sort(key=lambda r: -len(r["prompt"]) - len(r["response"]))
    chosen = [{"prompt": r["prompt"], "response": r["response"]} for r in drawn[:rows]]
    source = folder / "docs.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in chosen))
    location = folder / "bench.vscope"
    with python_api.create(location, progress=False) as project:
        project.import_file(source, name="docs", progress=False)
    return location


def expected_peak(location: Path, extra: list[str]) -> str:
    out = subprocess.run(
        [sys.executable, "-m", "vendiscope.cli", "gradients", str(location), "docs",
         "--estimate", "--name", "estimate", *extra],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    found = re.search(r"peak memory about [\d.]+ GB \(budget [\d.]+ GB\)", " ".join(out.split()))
    return found.group(0) if found else "?"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=120)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument(
        "--only-planned", action="store_true", help="skip the old batches (1,000 rows: hours)"
    )
    args = parser.parse_args()
    settings = {"planned": SETTINGS["planned"]} if args.only_planned else SETTINGS

    rounds: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        location = build_project(Path(tmp), args.rows)
        estimates = {name: expected_peak(location, extra) for name, extra in settings.items()}
        for number in range(args.rounds):
            found: dict[str, Any] = {}
            for name, extra in settings.items():
                copy = copy_project(location, location.with_name(f"{name}-{number}.vscope"))
                run = measure(CHILD, str(copy), "docs", *extra)
                found[name] = {
                    "peak_rss_gib": run["peak_rss_mib"] / 1024,
                    "rows_per_s": args.rows / run["seconds"],
                    "expected": estimates[name],
                }
                print(
                    f"round {number + 1} {name:8s} peak {found[name]['peak_rss_gib']:.2f} GiB "
                    f"({estimates[name]}), {found[name]['rows_per_s']:.2f} rows/s",
                    flush=True,
                )
            rounds.append(found)
            if "old" not in found:
                continue
            found["memory_ratio"] = found["planned"]["peak_rss_gib"] / found["old"]["peak_rss_gib"]
            found["time_ratio"] = found["old"]["rows_per_s"] / found["planned"]["rows_per_s"]
            print(
                f"round {number + 1}: planned/old peak x{found['memory_ratio']:.2f}, "
                f"time x{found['time_ratio']:.2f}",
                flush=True,
            )
    name = "gradient_memory" if settings is SETTINGS else f"gradient_memory_planned_{args.rows}"
    save(name, {"rows": args.rows, "rounds": rounds})


if __name__ == "__main__":
    main()
