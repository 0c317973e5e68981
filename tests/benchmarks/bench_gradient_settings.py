"""What each gradient parameter set costs: rows per second and peak memory, as ratios to "all".

The product's gradient featurizer (bundled SmolLM2-135M-Instruct, fast mode, CPU, its default
``max_length`` of 512) on the same docstring rows, each parameter set in a fresh process
(peak RSS is the process's own). Model loading and a warm-up batch are not timed. Settings
run in turns for ``--rounds`` rounds, so a noisy machine slows them alike; the figure that
counts is each setting's time over "all"'s in the same round.

    .venv/bin/python -m tests.benchmarks.bench_gradient_settings --rows 64 --rounds 2

Results: ``tests/benchmarks/results/gradient_settings.json``; see ``docs/gvendi.md``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.benchmarks._common import measure, save

SETTINGS = ("all", "linear", "last-8-blocks-linear", "last-4-blocks-linear", "last-2-blocks-linear")

CHILD = """
import json, sys, time, torch
setting, rows_file, out, threads = sys.argv[2:6]  # argv[1]: this code
torch.set_num_threads(int(threads))
from vendiscope.core.base.jobs import CancelToken, NullProgress
from vendiscope.plugins.featurizers.gradients import GradientFeaturizer
rows = json.loads(open(rows_file).read())
featurizer = GradientFeaturizer(parameters=setting, device="cpu")
featurizer.featurize(rows[:8], progress=NullProgress(), cancel=CancelToken())  # warm-up
started = time.perf_counter()
featurizer.featurize(rows, progress=NullProgress(), cancel=CancelToken())
seconds = time.perf_counter() - started
open(out, "w").write(json.dumps({"seconds": seconds, "rows": len(rows)}))
"""


def run(setting: str, rows_file: Path, threads: int) -> dict[str, Any]:
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        peak = measure(CHILD, setting, str(rows_file), out.name, str(threads))
        timed = json.loads(Path(out.name).read_text())
    return {"rows_per_s": timed["rows"] / timed["seconds"], "peak_rss_mib": peak["peak_rss_mib"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()

    from tests.benchmarks import corpora

    drawn = corpora.draw(corpora.load("docstrings"), args.rows, groups=16, seed=1)
    rows = [{"prompt": r["prompt"], "response": r["response"]} for r in drawn]
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(rows, handle)
    rows_file = Path(handle.name)
    rounds: list[dict[str, Any]] = []
    for number in range(args.rounds):
        found = {setting: run(setting, rows_file, args.threads) for setting in SETTINGS}
        for setting, one in found.items():
            one["time_vs_all"] = found["all"]["rows_per_s"] / one["rows_per_s"]
            one["memory_vs_all"] = one["peak_rss_mib"] / found["all"]["peak_rss_mib"]
            print(
                f"round {number + 1} {setting:22s} {one['rows_per_s']:6.2f} rows/s "
                f"(time x{one['time_vs_all']:.2f} of all)  peak {one['peak_rss_mib']:7.0f} MiB "
                f"(x{one['memory_vs_all']:.2f})",
                flush=True,
            )
        rounds.append(found)
    summary = {
        setting: {
            key: float(np.median([r[setting][key] for r in rounds]))
            for key in ("rows_per_s", "peak_rss_mib", "time_vs_all", "memory_vs_all")
        }
        for setting in SETTINGS
    }
    rows_file.unlink()
    save("gradient_settings", {"setup": vars(args), "rounds": rounds, "median": summary})


if __name__ == "__main__":
    main()
