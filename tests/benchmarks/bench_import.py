"""Import N JSONL records (prompt/response, ~300 bytes each) and read pages by offset.

Compared in one run against ``datasets.load_dataset("json")`` on the same file:
records/s and peak RSS; plus peak RSS at N/4 rows to show it does not grow with file size;
plus the median time to read one 200-row page at random offsets of the imported project.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.benchmarks._common import measure, save

WORDS = [
    "data",
    "model",
    "train",
    "loss",
    "token",
    "gradient",
    "sample",
    "diverse",
    "vendi",
    "score",
    "cluster",
    "subset",
    "budget",
    "answer",
    "question",
    "prompt",
    "response",
    "reason",
    "step",
    "number",
    "prime",
    "sum",
    "river",
    "city",
    "compute",
]

VENDISCOPE = """
from vendiscope.core.io.importing import import_dataset
from vendiscope.core.store.project import Project
with Project.create(sys.argv[2]) as project:
    import_dataset(project, sys.argv[3], name="bench")
"""

HF_DATASETS = """
import datasets
datasets.disable_progress_bars()
ds = datasets.load_dataset("json", data_files=sys.argv[2], cache_dir=sys.argv[3], split="train")
assert ds.num_rows > 0
"""


def write_rows(path: Path, n: int, seed: int = 0) -> int:
    rng = random.Random(seed)
    with path.open("wb") as handle:
        for i in range(n):
            prompt = " ".join(rng.choices(WORDS, k=22)) + f" #{i}?"
            response = " ".join(rng.choices(WORDS, k=18)) + "."
            handle.write(orjson.dumps({"id": i, "prompt": prompt, "response": response}) + b"\n")
    return path.stat().st_size


def page_reads(project_path: Path, n: int, pages: int = 200) -> list[float]:
    from vendiscope.core.store.project import Project

    rng = random.Random(1)
    timings = []
    with Project.open(project_path) as project:
        project.records("bench", 0, 200)  # warm the connection pool
        for _ in range(pages):
            offset = rng.randrange(0, max(n - 200, 1))
            started = time.perf_counter()
            page = project.records("bench", offset, 200)
            timings.append((time.perf_counter() - started) * 1000)
            assert len(page) == 200 and page[0].seq == offset
    return timings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=1_000_000)
    args = parser.parse_args()
    n = args.rows
    results: dict[str, object] = {"rows": n}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        small, large = folder / "small.jsonl", folder / "large.jsonl"
        results["file_mib"] = write_rows(large, n) / 2**20
        write_rows(small, n // 4)
        print(f"{n} rows, {results['file_mib']:.0f} MiB; importing…", flush=True)

        ours = measure(VENDISCOPE, str(folder / "large.vscope"), str(large))
        ours_small = measure(VENDISCOPE, str(folder / "small.vscope"), str(small))
        hf = measure(HF_DATASETS, str(large), str(folder / "hf-cache"))
        results["vendiscope"] = ours
        results["vendiscope_quarter_rows"] = ours_small
        results["datasets_load_dataset_json"] = hf
        results["records_per_s"] = {
            "vendiscope": n / ours["process_seconds"],
            "datasets": n / hf["process_seconds"],
        }
        results["speed_ratio_vendiscope_over_datasets"] = (
            hf["process_seconds"] / ours["process_seconds"]
        )
        results["rss_ratio_full_over_quarter"] = ours["peak_rss_mib"] / ours_small["peak_rss_mib"]

        timings = page_reads(folder / "large.vscope", n)
        results["page_200_ms"] = {
            "median": statistics.median(timings),
            "p95": statistics.quantiles(timings, n=20)[-1],
            "max": max(timings),
        }
    path = save(f"import_{n}", results)
    print(orjson.dumps(results, option=orjson.OPT_INDENT_2).decode())
    print(f"saved {path}")


if __name__ == "__main__":
    main()
