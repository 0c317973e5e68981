"""How close the measured estimate of a vector job is to the job's real time, on this machine.

For the embedding job (the bundled all-MiniLM-L6-v2) and the gradient job (the bundled
SmolLM2-135M-Instruct, mode fast) on the first N demo records: the estimate
(``estimate_embedding`` / ``estimate_features``: model load timed, 8 typical records timed,
extrapolated), then the job itself, in the same process and right after, so a noisy
neighbour affects both about alike. Reports both times and their ratio (estimate / actual;
1.0 is exact, above 1 pessimistic). The target: within 0.5x-2x, against the old fixed text
("minutes per thousand records"), which was ~10x off on a 2-core machine.

    .venv/bin/python tests/benchmarks/bench_estimate.py --embed-rows 2000 --gradient-rows 64
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from tests.benchmarks._common import save

DEMO = Path(__file__).resolve().parents[2] / "vendiscope" / "resources" / "demo" / "demo.jsonl"


def project_with(folder: Path, rows: int) -> Path:
    """The demo's records cycled to ``rows``, each made distinct (the embedding job embeds a
    repeated text once, which the estimate does not count)."""
    import orjson

    from vendiscope.core.io.importing import import_dataset
    from vendiscope.core.store.project import Project

    demo = [orjson.loads(line) for line in DEMO.read_bytes().splitlines() if line.strip()]
    picked = [demo[i % len(demo)] for i in range(rows)]
    records = [{**row, "id": f"r{i}", "prompt": f"{row['prompt']} ({i})"} for i, row in
               enumerate(picked)]  # fmt: skip
    source = folder / f"demo-{rows}.jsonl"
    source.write_bytes(b"".join(orjson.dumps(row) + b"\n" for row in records))
    location = folder / f"demo-{rows}.vscope"
    with Project.create(location) as project:
        import_dataset(project, source, name="demo")
    return location


def compare(kind: str, location: Path) -> dict[str, object]:
    from vendiscope.core.store.project import Project
    from vendiscope.core.vectors.embedding import embed_dataset, estimate_embedding
    from vendiscope.core.vectors.featurizing import estimate_features, featurize_dataset

    with Project.open(location) as project:
        started = time.perf_counter()
        if kind == "embedding":
            found = estimate_embedding(project, "demo")
        else:
            found = estimate_features(project, "demo")
        measuring = time.perf_counter() - started
        started = time.perf_counter()
        if kind == "embedding":
            embed_dataset(project, "demo", reuse=False)
        else:
            featurize_dataset(project, "demo")
        actual = time.perf_counter() - started
    result = {
        "records": found.records,
        "measured_records": found.measured,
        "load_seconds": round(found.load_seconds, 2),
        "estimate_seconds": round(found.seconds, 1),
        "actual_seconds": round(actual, 1),
        "ratio": round(found.seconds / actual, 2),
        "measuring_seconds": round(measuring, 1),
        "text": found.describe(),
    }
    print(f"{kind}: {result}")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--embed-rows", type=int, default=2000)
    parser.add_argument("--gradient-rows", type=int, default=64)
    args = parser.parse_args()
    results: dict[str, object] = {"load_average_before": os.getloadavg()}
    with tempfile.TemporaryDirectory() as folder:
        if args.embed_rows:
            results["embedding"] = compare("embedding", project_with(Path(folder), args.embed_rows))
        if args.gradient_rows:
            location = project_with(Path(folder), args.gradient_rows)
            results["gradient"] = compare("gradient", location)
    results["load_average_after"] = os.getloadavg()
    print(f"saved {save('estimate', results)}")


if __name__ == "__main__":
    main()
