"""Vendi score (q = 1) of N x D float32 vectors: Vendiscope vs the reference ``vendi-score``.

Compared in one run, each in its own fresh process (so peak RSS is its own), on the same
matrix (``numpy.random.default_rng(seed).standard_normal((N, D), dtype=float32)``,
generated inside each process; generation time is measured and reported separately):

- ``vendiscope.core.metrics.algorithms.vendi.vendi_score(X)`` on the matrix in memory;
- ``vendiscope.core.metrics.algorithms.vendi.gram_dual`` over chunks generated one at a time (the
same
  numbers: the generator draws sequentially) and ``vendi_from_gram``: the matrix never
  exists whole, as when a vector set is read chunk by chunk from a project;
- ``vendi_score.vendi.score_dual(X, q=1)``, the reference: it normalises a full copy
  with scikit-learn (float32 stays float32), forms ``X^T X`` in float32 and takes float32
  eigenvalues with SciPy. Ours forms float32 blocks, accumulates in float64 and takes
  float64 eigenvalues.
"""

from __future__ import annotations

import argparse
import json
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
n, d, seed = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
_t0 = time.perf_counter()
X = np.random.default_rng(seed).standard_normal((n, d), dtype=np.float32)
generate_s = time.perf_counter() - _t0
"""

OURS = (
    GENERATE
    + """
from vendiscope.core.metrics.algorithms.vendi import vendi_score
_t0 = time.perf_counter()
score = vendi_score(X, 1.0)
compute_s = time.perf_counter() - _t0
"""
)

OURS_STREAMING = """
import json, sys, time
import numpy as np
from vendiscope.core.metrics.algorithms.vendi import gram_dual, vendi_from_gram
n, d, seed = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rows = 16384
generate_s = 0.0

def chunks():
    global generate_s
    rng = np.random.default_rng(seed)
    for start in range(0, n, rows):
        began = time.perf_counter()
        block = rng.standard_normal((min(rows, n - start), d), dtype=np.float32)
        generate_s += time.perf_counter() - began
        yield block

_t0 = time.perf_counter()
xtx, count = gram_dual(chunks())
score = vendi_from_gram(xtx, count, 1.0)
compute_s = time.perf_counter() - _t0 - generate_s
"""

REFERENCE = (
    GENERATE
    + """
from vendi_score import vendi
_t0 = time.perf_counter()
score = float(vendi.score_dual(X, q=1))
compute_s = time.perf_counter() - _t0
"""
)

REPORT = """
print("__VENDI__" + json.dumps({"score": float(score), "generate_s": generate_s,
                               "compute_s": compute_s}))
"""


def run(code: str, n: int, d: int, seed: int) -> dict[str, Any]:
    """Run ``code`` in a fresh interpreter; its timings, score and peak RSS."""
    started = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", MEASURE, textwrap.dedent(code + REPORT), str(n), str(d), str(seed)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    result: dict[str, Any] = {}
    for line in out.splitlines():
        for tag in ("__RESULT__", "__VENDI__"):
            if line.startswith(tag):
                result.update(json.loads(line.removeprefix(tag)))
    result["process_seconds"] = time.perf_counter() - started
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--dim", type=int, default=1024)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=1, help="runs of each; the best is kept")
    args = parser.parse_args()
    n, d = args.rows, args.dim
    results: dict[str, Any] = {"rows": n, "dim": d, "dtype": "float32", "q": 1}
    print(f"{n} x {d} float32 ({n * d * 4 / 2**30:.2f} GiB)", flush=True)
    variants = {
        "vendiscope_in_memory": OURS,
        "vendiscope_streaming": OURS_STREAMING,
        "reference_score_dual": REFERENCE,
    }
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in variants}
    for _ in range(args.repeat):  # interleaved, so load on a shared machine hits all alike
        for name, code in variants.items():
            outcome = run(code, n, d, args.seed)
            runs[name].append(outcome)
            print(name, json.dumps(outcome), flush=True)
    for name in variants:
        results[name] = min(runs[name], key=lambda r: r["compute_s"])
    ref = results["reference_score_dual"]
    for name in ("vendiscope_in_memory", "vendiscope_streaming"):
        ours = results[name]
        results[f"speed_ratio_{name}_over_reference"] = ref["compute_s"] / ours["compute_s"]
        results[f"rss_ratio_{name}_over_reference"] = ours["peak_rss_mib"] / ref["peak_rss_mib"]
        results[f"relative_score_difference_{name}"] = abs(ours["score"] / ref["score"] - 1)
    results["matrix_mib"] = n * d * 4 / 2**20
    path = save(f"vendi_{n}x{d}", results)
    print(json.dumps(results, indent=2))
    print(f"saved {path}")


if __name__ == "__main__":
    main()
