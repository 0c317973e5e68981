"""Time ``vendiscope --help`` against a bare ``python -c pass`` in the same run (median of 10)."""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.benchmarks._common import save

SCRIPT = Path(sys.executable).with_name("vendiscope")


def timed(command: list[str], repeats: int = 10) -> float:
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def main() -> None:
    bare = timed([sys.executable, "-c", "pass"])
    help_ = timed([str(SCRIPT), "--help"])
    results = {
        "python_bare_s": bare,
        "vendiscope_help_s": help_,
        "ratio_help_over_bare_python": help_ / bare,
    }
    print(results)
    print(f"saved {save('startup', results)}")


if __name__ == "__main__":
    main()
