"""Selection algorithms at scale: facility location against apricot, greedy Vendi at 1e5-1e6 rows.

Run from the repository root (each measured step runs in its own fresh process, so peak RSS
is its own; results go to ``tests/benchmarks/results/select_*.json``)::

    .venv/bin/python tests/benchmarks/bench_select.py facility     # (a): ~20 min (1M rows: 17)
    .venv/bin/python tests/benchmarks/bench_select.py facility --large 100000   # ~3 min
    .venv/bin/python tests/benchmarks/bench_select.py vendi --rows 100000 --k 2000  # ~10 min
    .venv/bin/python tests/benchmarks/bench_select.py vendi --rows 1000000 --k 5000 \
        --methods greedy-vendi random                                 # ~20 min, 8 GB

Measured on two shared cores (see the JSON files for load averages): facility location
20,000 x 64, k = 500: our dense-objective value 1.0002x apricot's (0.9956x on isotropic
rows), 10-14x faster than apricot's fit, 4% of its peak memory; 1,000,000 rows in 17 min
(16.5 of them building the IVF kNN graph), 1.9 GB peak. Greedy Vendi 1,000,000 x 1024,
k = 5,000: 19 min, Vendi 221.7 against random's 119.0.

(a) ``facility``: facility location, 20,000 x 64 float32 clustered rows, k = 500.
    *Ours*: :func:`vendiscope.core.selection.algorithms.facility.facility_location` (FAISS kNN
    graph of
    ``--neighbors`` neighbours, lazy greedy). *apricot*: ``FacilityLocationSelection(500,
    metric="precomputed", optimizer="lazy")`` on the dense ``n x n`` similarity
    ``max(cos, 0)`` — the same similarity our graph keeps the top of (apricot's own
    ``metric="cosine"`` squares the cosine, a different objective). Both selected sets are
    scored under apricot's dense objective ``sum_i max_{j in S} max(cos(i, j), 0)``. Then ours
    alone at ``--large`` sizes (default 100,000 and 1,000,000 rows; k = 5,000): wall time,
    peak RSS and the graph's size, to show memory grows as ``n * neighbours``.
(b) ``vendi``: greedy Vendi (q = 1) on ``--rows x --dim`` float32 clustered rows, selecting
    ``--k``; the final Vendi score against random and k-center (cosine) at the same k; wall
    time, peak RSS, the time in eigendecompositions and in scoring candidates. At 1,000,000
    rows leave k-center out (``--methods greedy-vendi random``): its k passes over 4 GB take
    hours. Peak RSS there is that of generating the rows (they and one temporary copy).

Data: ``--clusters`` Gaussian clusters (sizes drawn from a Zipf-like law) around random
centres, or isotropic standard normal rows with ``--clusters 0``; generated inside each
process from ``--seed`` (generation time excluded). Files are named after the data.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.benchmarks._common import MEASURE, save

GENERATE = """
import json, sys, time
import numpy as np
n, d, seed, clusters = (int(a) for a in sys.argv[2:6])
extra = json.loads(sys.argv[6])
_t0 = time.perf_counter()
_rng = np.random.default_rng(seed)
X = _rng.standard_normal((n, d), dtype=np.float32)
if clusters:  # else isotropic
    _weights = 1.0 / np.arange(1, clusters + 1) ** 0.8
    _labels = _rng.choice(clusters, size=n, p=_weights / _weights.sum())
    X *= np.float32(0.6)
    X += (3.0 * _rng.standard_normal((clusters, d))).astype(np.float32)[_labels]
    del _labels
generate_s = time.perf_counter() - _t0
"""

REPORT = """
print("__SELECT__" + json.dumps(report))
"""

OURS_FACILITY = """
from vendiscope.core.selection.algorithms.facility import facility_location
_t0 = time.perf_counter()
result = facility_location(X, extra["k"], n_neighbors=extra["neighbors"])
seconds = time.perf_counter() - _t0
report = {"seconds": seconds, "generate_s": generate_s, "indices": result.indices.tolist(),
          "objective_sparse": result.details["objective"],
          "evaluations": result.details["evaluations"],
          "select_seconds": result.details["select_seconds"],
          "graph": result.details["graph"]}
if not extra.get("indices", True):
    del report["indices"]
"""

APRICOT_FACILITY = """
from apricot import FacilityLocationSelection
# numba compiles apricot's kernels on first use: warm up on a tiny input, timed apart
_t0 = time.perf_counter()
_tiny = np.abs(np.random.default_rng(1).standard_normal((50, 50))).astype(np.float32)
FacilityLocationSelection(5, metric="precomputed", optimizer="lazy").fit(_tiny @ _tiny.T)
compile_s = time.perf_counter() - _t0
_t0 = time.perf_counter()
unit = X / np.linalg.norm(X, axis=1, keepdims=True)
S = unit @ unit.T
np.maximum(S, 0, out=S)
matrix_s = time.perf_counter() - _t0
_t0 = time.perf_counter()
model = FacilityLocationSelection(extra["k"], metric="precomputed", optimizer="lazy").fit(S)
seconds = time.perf_counter() - _t0
report = {"seconds": seconds, "matrix_s": matrix_s, "compile_s": compile_s,
          "generate_s": generate_s, "indices": [int(i) for i in model.ranking]}
"""

VENDI = """
from vendiscope.core.selection.algorithms.greedy_vendi import greedy_vendi
from vendiscope.core.selection.algorithms.kcenter import k_center
from vendiscope.core.selection.algorithms.random_choice import random_selection
from vendiscope.core.metrics.algorithms.vendi import vendi_score
method, k = extra["method"], extra["k"]
_t0 = time.perf_counter()
if method == "greedy-vendi":
    result = greedy_vendi(X, k)
elif method == "k-center":
    result = k_center(X, k)
else:
    result = random_selection(X, k)
seconds = time.perf_counter() - _t0
details = {key: value for key, value in result.details.items() if key != "objective_trace"}
trace = result.details["objective_trace"]
report = {"seconds": seconds, "generate_s": generate_s, "details": details,
          "vendi_q1": vendi_score(X[np.sort(result.indices)], 1.0),
          "vendi_at": {str(m): vendi_score(X[np.sort(result.indices[:m])], 1.0)
                       for m in sorted({min(k, x) for x in (100, 500, 1000, 2000, 5000)})}}
if method == "greedy-vendi":
    report["trace_at"] = {str(m): float(trace[m - 1]) for m in map(int, report["vendi_at"])}
"""


def run(code: str, n: int, d: int, seed: int, clusters: int, **extra: Any) -> dict[str, Any]:
    """Run ``code`` after generating the data in a fresh interpreter; its report and peak RSS."""
    started = time.perf_counter()
    args = [str(n), str(d), str(seed), str(clusters), json.dumps(extra)]
    out = subprocess.run(
        [sys.executable, "-c", MEASURE, textwrap.dedent(GENERATE + code + REPORT), *args],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    result: dict[str, Any] = {}
    for line in out.splitlines():
        if line.startswith("__RESULT__"):
            result.update(json.loads(line.removeprefix("__RESULT__")))
        elif line.startswith("__SELECT__"):
            result.update(json.loads(line.removeprefix("__SELECT__")))
    result["process_seconds"] = time.perf_counter() - started
    return result


def dense_objective(n: int, d: int, seed: int, clusters: int, sets: dict[str, list[int]]) -> dict:
    """``sum_i max_{j in S} max(cos(i, j), 0)`` of each set, on the same generated rows."""
    import numpy as np

    namespace: dict[str, Any] = {}
    sys_argv, sys.argv = sys.argv, ["", "", str(n), str(d), str(seed), str(clusters), "{}"]
    try:
        exec(GENERATE, namespace)
    finally:
        sys.argv = sys_argv
    x = namespace["X"]
    unit = x / np.linalg.norm(x, axis=1, keepdims=True)
    scores = {}
    for name, chosen in sets.items():
        sims = unit @ unit[np.asarray(chosen)].T
        scores[name] = float(np.maximum(sims.max(axis=1), 0.0).sum())
    return scores


def facility(args: argparse.Namespace) -> None:
    n, d, k = args.rows or 20_000, args.dim or 64, args.k or 500
    common = {"seed": args.seed, "clusters": args.clusters}
    results: dict[str, Any] = {"rows": n, "dim": d, "k": k, **common}
    results["load_average_before"] = os.getloadavg()
    runs: dict[str, list[dict[str, Any]]] = {}
    neighbours = args.neighbors
    for _ in range(args.repeat):
        for count in neighbours:
            outcome = run(OURS_FACILITY, n, d, k=k, neighbors=count, **common)
            runs.setdefault(f"ours_{count}", []).append(outcome)
            print(f"ours n_neighbors={count}", round(outcome["seconds"], 2), flush=True)
        outcome = run(APRICOT_FACILITY, n, d, k=k, **common)
        runs.setdefault("apricot", []).append(outcome)
        print("apricot", round(outcome["seconds"], 2), flush=True)
    for name, outcomes in runs.items():
        results[name] = min(outcomes, key=lambda r: r["seconds"])
    sets = {name: results[name]["indices"] for name in runs}
    scores = dense_objective(n, d, args.seed, args.clusters, sets)
    apricot = results["apricot"]
    for count in neighbours:
        ours = results[f"ours_{count}"]
        results[f"summary_{count}"] = {
            "objective_ratio_dense": scores[f"ours_{count}"] / scores["apricot"],
            "speedup_vs_apricot_fit": apricot["seconds"] / ours["seconds"],
            "speedup_vs_apricot_matrix_and_fit": (apricot["seconds"] + apricot["matrix_s"])
            / ours["seconds"],
            "rss_ratio_ours_over_apricot": ours["peak_rss_mib"] / apricot["peak_rss_mib"],
        }
    results["dense_objective"] = scores
    results["load_average_after"] = os.getloadavg()
    for name in runs:
        del results[name]["indices"]
    path = save(f"select_facility_{n}x{d}_c{args.clusters}", results)
    print(json.dumps({key: v for key, v in results.items() if key.startswith("summary")}, indent=2))
    print(f"saved {path}")

    large: dict[str, Any] = {"dim": d, "k": args.large_k, "n_neighbors": neighbours[0], **common}
    for rows in args.large:
        outcome = run(OURS_FACILITY, rows, d, k=args.large_k, neighbors=neighbours[0],
                      indices=False, **common)  # fmt: skip
        large[str(rows)] = outcome
        outcome["load_average_after"] = os.getloadavg()
        print(f"ours {rows} rows:", json.dumps(outcome), flush=True)
    if args.large:
        path = save(f"select_facility_large_{d}_c{args.clusters}", large)
        print(f"saved {path}")


def vendi(args: argparse.Namespace) -> None:
    n, d, k = args.rows or 100_000, args.dim or 1024, args.k or 2000
    common = {"seed": args.seed, "clusters": args.clusters}
    results: dict[str, Any] = {"rows": n, "dim": d, "k": k, **common}
    for method in args.methods:
        outcome = run(VENDI, n, d, method=method, k=k, **common)
        outcome["load_average_after"] = os.getloadavg()
        results[method] = outcome
        print(method, json.dumps(outcome), flush=True)
    if "random" in results:
        for method in args.methods:
            results[method]["vendi_over_random"] = (
                results[method]["vendi_q1"] / results["random"]["vendi_q1"]
            )
    path = save(f"select_vendi_{n}x{d}_k{k}_c{args.clusters}", results)
    print(f"saved {path}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("which", choices=["facility", "vendi"])
    parser.add_argument("--rows", type=int, default=0)
    parser.add_argument("--dim", type=int, default=0)
    parser.add_argument("--k", type=int, default=0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--clusters", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=1, help="runs of each; the best is kept")
    parser.add_argument("--neighbors", type=int, nargs="+", default=[32])
    parser.add_argument("--large", type=int, nargs="*", default=[100_000, 1_000_000])
    parser.add_argument("--large-k", type=int, default=5000)
    parser.add_argument(
        "--methods", nargs="+", default=["greedy-vendi", "random", "k-center"],
        choices=["greedy-vendi", "random", "k-center"],
    )  # fmt: skip
    args = parser.parse_args()
    facility(args) if args.which == "facility" else vendi(args)


if __name__ == "__main__":
    main()
