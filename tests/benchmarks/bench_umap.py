"""2-D maps: Vendiscope's UMAP (FAISS kNN fed in) against plain ``umap-learn``, same data.

Compared in one process, on the same matrix (a Gaussian mixture on the unit sphere, 100
topics / 2,000 clusters, 384 dims: the stand-in for sentence embeddings of bench_knn.py):

- ``ours``: ``vendiscope.core.maps.algorithms.projection.umap_map(X)`` with its defaults — the
cosine kNN
  graph from a FAISS index (exact below 20,000 rows, a calibrated IVF above), handed to
  umap-learn through ``precomputed_knn``; above ``FIT_SAMPLE`` (50,000) rows UMAP is fitted
  on a random sample and the other rows are placed by their nearest fitted neighbours;
- ``ours-full-fit`` (sizes above ``FIT_SAMPLE``): the same with ``fit_sample = n``, i.e. the
  FAISS graph and no sampling: what the kNN speed-up alone is worth;
- ``plain``: ``umap.UMAP(metric="cosine").fit_transform(X)`` (umap-learn's defaults: its own
  NN-descent graph, no seed, so its layout runs on all cores).

Both share numba's JIT cache: a warm-up fit of 5,000 rows by each path runs first (above
4,096 rows, so umap-learn takes its NN-descent path), and the timings exclude compilation.
Quality: scikit-learn's trustworthiness (10 neighbours, cosine) of each map on the same random
sample of 2,000 rows (``projection.trustworthiness_sample``).
The order of the methods alternates between sizes, so a busy neighbour hurts both alike.

    .venv/bin/python tests/benchmarks/bench_umap.py                  # 20k, 50k, 100k rows
    .venv/bin/python tests/benchmarks/bench_umap.py --rows 20000
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.benchmarks._common import save
from tests.benchmarks.bench_knn import mixture
from vendiscope.core.base.versions import library_versions
from vendiscope.core.maps.algorithms import projection

DIM = 384


def plain_umap(matrix: np.ndarray) -> np.ndarray:
    import umap

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return umap.UMAP(metric="cosine").fit_transform(matrix)


def ours(matrix: np.ndarray, fit_sample: int = projection.FIT_SAMPLE) -> tuple[np.ndarray, dict]:
    made = projection.umap_map(matrix, fit_sample=fit_sample, seed=0)
    return made.coords, {
        "fitted_rows": made.fitted_rows,
        "placed_rows": made.placed_rows,
        "knn_seconds": made.details.get("knn_seconds"),
        "index": made.details.get("index"),
    }


def timed(label: str, fn: Any, matrix: np.ndarray, *args: Any) -> dict[str, Any]:
    started = time.perf_counter()
    out = fn(matrix, *args)
    seconds = time.perf_counter() - started
    coords, extra = out if isinstance(out, tuple) else (out, {})
    trust = projection.trustworthiness_sample(matrix, np.asarray(coords), seed=0)
    print(f"  {label:>14}: {seconds:8.1f} s   trustworthiness {trust:.4f}", flush=True)
    return {"seconds": round(seconds, 2), "trustworthiness": round(trust, 4), **extra}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="*", default=[20_000, 50_000, 100_000])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    warm = mixture(5_000, DIM, "clustered", seed=99)  # above 4,096: umap-learn uses NN-descent
    started = time.perf_counter()
    ours(warm)
    plain_umap(warm)
    print(f"warm-up (numba JIT, 5,000 rows, both paths): {time.perf_counter() - started:.1f} s")

    results: dict[str, Any] = {
        "dim": DIM,
        "data": "clustered mixture on the unit sphere (bench_knn.mixture)",
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs",
        "versions": library_versions("umap-learn", "numba", "faiss-cpu", "scikit-learn"),
        "sizes": {},
    }
    for number, n in enumerate(args.rows):
        matrix = mixture(n, DIM, "clustered", seed=args.seed)
        print(f"{n:,} x {DIM}:", flush=True)
        runs: dict[str, Any] = {}
        steps = [("ours", lambda m: ours(m))]
        if n > projection.FIT_SAMPLE:
            steps.append(("ours-full-fit", lambda m: ours(m, fit_sample=len(m))))
        steps.append(("plain", plain_umap))
        if number % 2:
            steps.reverse()
        for label, fn in steps:
            runs[label] = timed(label, fn, matrix)
        speedup = runs["plain"]["seconds"] / runs["ours"]["seconds"]
        delta = runs["ours"]["trustworthiness"] - runs["plain"]["trustworthiness"]
        runs["speedup"] = round(speedup, 2)
        runs["trustworthiness_delta"] = round(delta, 4)
        if "ours-full-fit" in runs:
            full = runs["ours-full-fit"]
            runs["speedup_full_fit"] = round(runs["plain"]["seconds"] / full["seconds"], 2)
            runs["trustworthiness_delta_full_fit"] = round(
                full["trustworthiness"] - runs["plain"]["trustworthiness"], 4
            )
        print(f"  speed-up {speedup:.2f}x, trustworthiness ours - plain {delta:+.4f}", flush=True)
        results["sizes"][str(n)] = runs
        save("umap", results)  # keep what is measured if a later size is interrupted
    print(f"results: {save('umap', results)}")


if __name__ == "__main__":
    main()
