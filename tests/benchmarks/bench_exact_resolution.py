"""G-Vendi in fast and in exact mode on the same real rows: 16 groups against 1, at equal n.

The ablation (``bench_gradient_ablation.py``) measures fast mode only, from per-group
sketches. This one runs the product's :class:`GradientEngine` in both modes (all
parameters, ``dim`` 1024, the paper's loss, ``max_length`` 256) on pools of ``--pool`` rows
(A: the largest group; B: spread over the 16 largest), and reports for each mode the ratio
mean(B) / mean(A) and the gap in draw-sd at each n up to half the pool, and how well the two
modes agree on the kernel: the correlation of the pairwise cosines and their means. (The two
modes project with different random maps, so their coordinates differ; only inner products
are meant to agree.) Exact mode takes about a second per row on 2 cores: a
pool of 256 per side takes about 20 minutes. Rows are cached (kill and rerun to resume).

    .venv/bin/python -m tests.benchmarks.bench_exact_resolution --corpus debian --pool 256
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.benchmarks._common import save
from tests.benchmarks.bench_gradient_ablation import separation

MODES = ("fast", "exact")
CHUNK = 16


def cached_rows(engine: Any, records: list[dict[str, str]], path: Path) -> np.ndarray:
    """The engine's rows of ``records``, ``CHUNK`` at a time, saved after each chunk."""
    have = np.load(path) if path.is_file() else np.zeros((0, engine.projector.dim), np.float32)
    started, first = time.perf_counter(), len(have)
    while len(have) < len(records):
        stop = min(len(records), len(have) + CHUNK)
        have = np.concatenate([have, engine.features(records[len(have) : stop])])
        partial = path.with_suffix(".tmp.npy")
        np.save(partial, have)
        partial.replace(path)
        rate = (len(have) - first) / (time.perf_counter() - started)
        print(f"  {path.name}: {len(have)}/{len(records)} rows ({rate:.2f} rows/s)", flush=True)
    return have


def kernel_agreement(fast: np.ndarray, exact: np.ndarray) -> dict[str, float]:
    """Pearson correlation and means of the two modes' pairwise cosines (off the diagonal)."""
    upper = np.triu_indices(len(fast), 1)
    a, b = (fast @ fast.T)[upper], (exact @ exact.T)[upper]
    return {
        "correlation": float(np.corrcoef(a, b)[0, 1]),
        "mean_cosine_fast": float(a.mean()),
        "mean_cosine_exact": float(b.mean()),
    }


def study(rows: dict[str, dict[str, np.ndarray]], draws: int) -> dict[str, Any]:
    from vendiscope.core.metrics.algorithms.vendi import vendi_score

    pool = min(len(rows["fast"]["A"]), len(rows["fast"]["B"]))
    out: dict[str, Any] = {"separation": {}, "kernel": {}}
    for side in ("A", "B"):
        out["kernel"][side] = kernel_agreement(rows["fast"][side], rows["exact"][side])
        print(f"side {side}: {out['kernel'][side]}", flush=True)
    n = 64
    while 2 * n <= pool:
        rng = np.random.default_rng(n)
        picks = {s: [np.sort(rng.choice(pool, n, replace=False)) for _ in range(draws)]
                 for s in ("A", "B")}  # fmt: skip
        out["separation"][str(n)] = {}
        for mode in MODES:
            a = [vendi_score(rows[mode]["A"][p]) for p in picks["A"]]
            b = [vendi_score(rows[mode]["B"][p]) for p in picks["B"]]
            ratio, sd = separation(a, b)
            out["separation"][str(n)][mode] = {"ratio": ratio, "sd": sd}
            print(f"n = {n:4d}  {mode:5s}  ratio {ratio:.3f}  {sd:+6.1f} sd", flush=True)
        n *= 2
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", choices=("docstrings", "debian"), default="debian")
    parser.add_argument("--pool", type=int, default=256, help="rows per pool")
    parser.add_argument("--draws", type=int, default=8)
    parser.add_argument("--max-length", type=int, default=256)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/vendiscope-ablation"))
    args = parser.parse_args()

    import torch

    from tests.benchmarks import corpora
    from vendiscope.core.gradients.features import GradientEngine
    from vendiscope.core.gradients.proxy import load_proxy

    torch.set_num_threads(2)
    args.cache.mkdir(parents=True, exist_ok=True)
    grouped = corpora.load(args.corpus)
    model, tokenizer, _ = load_proxy(None, device="cpu")
    rows: dict[str, dict[str, np.ndarray]] = {mode: {} for mode in MODES}
    for side, groups in (("A", 1), ("B", 16)):
        drawn = corpora.draw(grouped, args.pool, groups=groups, seed=0)
        records = [{"prompt": r["prompt"], "response": r["response"]} for r in drawn]
        for mode in MODES:
            engine = GradientEngine(model, tokenizer, mode=mode, max_length=args.max_length)
            tag = f"{mode}-{args.corpus}-{side}-{args.pool}"
            rows[mode][side] = cached_rows(engine, records, args.cache / f"engine-{tag}.npy")
    result = study(rows, args.draws)
    result["setup"] = vars(args) | {"cache": str(args.cache), "groups_in_B": 16}
    save(f"exact_resolution-{args.corpus}", result)


if __name__ == "__main__":
    main()
