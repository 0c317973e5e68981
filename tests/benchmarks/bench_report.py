"""The audit report of a 100,000-record dataset whose vectors and runs exist already.

Set-up (timed, not the measurement): a JSONL file of ``--rows`` prompt/response records in
8 sources of unequal size (2% exact duplicates) is imported with the import job; a
"gradient" set (``--rows`` x 1024) and an embedding set (x 384) of clustered random vectors
(bench_knn.mixture) are stored; then the real core jobs run on them: G-Vendi and
embedding-Vendi scores (per source, leverage per record), spherical k-means clustering of the
gradients (``--clusters``, 1,000 by default: k = N/10 = 10,000 costs O(n k d) per iteration,
about 20x longer), a PCA map, near-duplicates at 0.95 on the embeddings, and two selections
(random and greedy Vendi). A target dataset of 2,000 records (half close to training records,
half not) gets embeddings from the same "model".

Measured, each in a fresh interpreter (imports included; target: under 60 s for HTML):

- ``vendiscope.core.report.build.write_report(..., target="bench")``: the HTML report with every
  section and 8 charts, including the coverage run against the target;
- the same as JSON (the numbers without charts).

    .venv/bin/python tests/benchmarks/bench_report.py [--rows 100000] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.benchmarks._common import RESULTS, measure, save
from tests.benchmarks.bench_knn import mixture

SOURCES = ("math", "code", "chat", "science", "writing", "trivia", "logic", "misc")
SHARES = np.array([0.3, 0.2, 0.15, 0.1, 0.1, 0.07, 0.05, 0.03])

REPORT = """
import sys
from vendiscope.core.store.project import Project
from vendiscope.core.report.build import write_report
with Project.open(sys.argv[2]) as project:
    result = write_report(project, "train", sys.argv[3], target="bench", force=True,
                          format=sys.argv[4])
    print("charts:", len(result.charts), "missing:", len(result.missing), file=sys.stderr)
"""


def step(label: str, fn: Any, *args: Any, **kwargs: Any) -> tuple[Any, float]:
    started = time.perf_counter()
    out = fn(*args, **kwargs)
    seconds = time.perf_counter() - started
    print(f"  {label}: {seconds:.1f} s", flush=True)
    return out, seconds


def write_records(path: Path, n: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    sources = rng.choice(len(SOURCES), size=n, p=SHARES)
    copies = rng.random(n) < 0.02
    with path.open("wb") as handle:
        for i in range(n):
            j = int(rng.integers(0, i)) if copies[i] and i else i
            handle.write(
                orjson.dumps(
                    {
                        "prompt": f"Question {j} about {SOURCES[sources[j]]}: what follows from "
                        f"premise {j % 977} and fact {j % 613}?",
                        "response": f"Answer {j}: it follows that {j % 97} holds.",
                        "source": SOURCES[sources[i]],
                    }
                )
                + b"\n"
            )


def build(folder: Path, n: int, clusters: int) -> tuple[Path, dict[str, float]]:
    from vendiscope.core.clusters.jobs import cluster_dataset
    from vendiscope.core.io.importing import import_dataset
    from vendiscope.core.maps.jobs import map_dataset
    from vendiscope.core.metrics.scoring import score_dataset
    from vendiscope.core.neighbors.search import find_near_duplicates
    from vendiscope.core.selection.job import select_dataset
    from vendiscope.core.store import vectors
    from vendiscope.core.store.project import Project

    timings: dict[str, float] = {}
    location = folder / "bench.vscope"
    write_records(folder / "train.jsonl", n, 0)
    rows = [{"prompt": f"Benchmark question {i}", "response": str(i)} for i in range(2000)]
    (folder / "bench.jsonl").write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))
    with Project.open(location, create=True) as project:
        _, timings["import"] = step(
            "import", import_dataset, project, folder / "train.jsonl", name="train"
        )
        import_dataset(project, folder / "bench.jsonl", name="bench")
        gradients = mixture(n, 1024, "clustered", seed=1, centres_seed=1)
        embeddings = mixture(n, 384, "clustered", seed=2, centres_seed=2)
        started = time.perf_counter()
        vectors.write_matrix(
            project,
            "train",
            "gradients/fast",
            gradients,
            kind="gradient",
            model="random-1024",
            params={"model_id": "random-1024"},
        )
        vectors.write_matrix(
            project,
            "train",
            "embeddings",
            embeddings,
            kind="embedding",
            model="random-384",
            params={"model_id": "random-384"},
        )
        rng = np.random.default_rng(3)
        near = embeddings[rng.choice(n, 1000, replace=False)]
        near = near + 0.02 * rng.standard_normal(near.shape).astype(np.float32)
        far = mixture(1000, 384, "clustered", seed=4, centres_seed=4)
        bench = np.vstack([near / np.linalg.norm(near, axis=1, keepdims=True), far])
        vectors.write_matrix(
            project,
            "bench",
            "embeddings",
            bench.astype(np.float32),
            kind="embedding",
            model="random-384",
            params={"model_id": "random-384"},
        )
        timings["vectors"] = time.perf_counter() - started
        del gradients, embeddings
        _, timings["score_gvendi"] = step("score G-Vendi", score_dataset, project, "train")
        _, timings["score_vendi"] = step(
            "score embedding-Vendi", score_dataset, project, "train", metric="vendi"
        )
        _, timings["clusters"] = step(
            f"clusters (k={clusters})", cluster_dataset, project, "train", n_clusters=clusters
        )
        _, timings["map"] = step("map (PCA)", map_dataset, project, "train", method="pca")
        _, timings["near_dups"] = step(
            "near-duplicates", find_near_duplicates, project, "train", threshold=0.95
        )
        k_random, k_greedy = min(5000, n // 2), min(500, n // 4)
        _, timings["select_random"] = step(
            f"select random {k_random:,}",
            select_dataset,
            project,
            "train",
            method="random",
            k=k_random,
        )
        _, timings["select_greedy"] = step(
            f"select greedy-vendi {k_greedy:,}",
            select_dataset,
            project,
            "train",
            method="greedy-vendi",
            k=k_greedy,
        )
        project.wal_checkpoint()
    return location, timings


def breakdown(location: Path) -> dict[str, float]:
    """Where the HTML report's time goes (in this process, imports already paid)."""
    from vendiscope.core.report.build import _image, audit_charts, audit_numbers, report_html
    from vendiscope.core.store.project import Project

    with Project.open(location) as project:
        numbers, gather = step("  numbers", audit_numbers, project, "train", target="bench")
        charts, views = step("  views", audit_charts, project, "train", numbers)
        images, render = step(
            "  rendering", lambda: {k: _image(c, "png") for k, c in charts.items()}
        )
        _, page = step("  page", report_html, numbers, images)
    return {
        "numbers": round(gather, 2),
        "views": round(views, 2),
        "render": round(render, 2),
        "page": round(page, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--clusters", type=int, default=1000)
    parser.add_argument("--keep", type=Path, help="build the project here and keep it")
    args = parser.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="vs-bench-report-"))
    folder.mkdir(parents=True, exist_ok=True)
    try:
        location = folder / "bench.vscope"
        timings: dict[str, float] = {}
        if not location.exists():
            print(f"building a {args.rows:,}-record project in {folder}", flush=True)
            location, timings = build(folder, args.rows, args.clusters)
            # The measured processes would inherit this process's peak RSS (Linux keeps
            # ru_maxrss across exec): measure from a fresh, small parent instead.
            save(f"report_{args.rows}_setup", {k: round(v, 1) for k, v in timings.items()})
            subprocess.run(
                [sys.executable, __file__, *sys.argv[1:], "--keep", str(folder)], check=True
            )
            return
        previous = RESULTS / f"report_{args.rows}_setup.json"
        if previous.exists():
            timings = json.loads(previous.read_text())
        results: dict[str, Any] = {
            "rows": args.rows,
            "clusters": args.clusters,
            "setup_seconds": {k: round(v, 1) for k, v in timings.items()},
            "project_mib": round(location.stat().st_size / 2**20),
        }
        for format in ("html", "json"):
            out = folder / f"audit.{format}"
            got = measure(REPORT, str(location), str(out), format)
            results[format] = {
                "seconds": round(got["seconds"], 2),
                "process_seconds": round(got["process_seconds"], 2),
                "peak_rss_mib": round(got["peak_rss_mib"]),
                "kib": round(out.stat().st_size / 1024),
            }
            print(
                f"report ({format}): {got['seconds']:.1f} s, peak RSS "
                f"{got['peak_rss_mib']:.0f} MiB, {out.stat().st_size / 1024:.0f} KiB",
                flush=True,
            )
        results["html_breakdown"] = breakdown(location)
        results["target_met"] = results["html"]["seconds"] < 60
        print(f"results: {save(f'report_{args.rows}', results)}")
    finally:
        if args.keep is None:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
