"""Store soak: the app-like process and three CLI writers on one project for two minutes.

    .venv/bin/python tests/benchmarks/bench_soak.py            # 120 s
    .venv/bin/python tests/benchmarks/bench_soak.py --seconds 600

Reports the operations each writer completed, any failure (a "database is locked" counts),
SQLite's integrity and foreign-key checks, and the rows expected vs found. Not a speed
benchmark: the figure that matters is zero failures and expected == found.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.benchmarks._common import RESULTS
from tests.core.store._soak import run_soak


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=120.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        result = run_soak(Path(folder), args.seconds)
    report = asdict(result)
    print(json.dumps(report, indent=2))
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "soak.json").write_text(json.dumps(report, indent=2))
    sound = result.integrity == ["ok"] and not result.foreign_keys
    return 0 if sound and not result.failures and result.found == result.expected else 1


if __name__ == "__main__":
    sys.exit(main())
