"""Rows per second of each gradient setting against the bare per-example loop, in one run.

Real rows (Debian package descriptions when the machine has them, else Python docstrings;
``tests/benchmarks/corpora.py``) of about ``--tokens`` tokens each, through the bundled
SmolLM2-135M-Instruct on the CPU with ``--threads`` torch threads. Each round times, back to
back on fresh rows: (b) the bare loop (one backward per example, all parameters, gradient
flattened, no projection) and the product's fast mode with its memory-planned batches for
the paper and light presets, each in float32 and under bf16 autocast. The ratio to (b) is
taken within each round (the machine is shared) and its median reported, with the wall time
10,000 such rows would take at the measured rate, and the rows' cosine to float32's.

    .venv/bin/python -m tests.benchmarks.bench_gradient_throughput --rounds 3

Results: ``tests/benchmarks/results/gradient_throughput.json``; see ``docs/benchmarks.md``.
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
from tests.benchmarks.bench_gradients import bare_loop

SETTINGS = {
    "paper, float32": ("all", "float32"),
    "paper, bf16": ("all", "bfloat16"),
    "light, float32": ("last-4-blocks-linear", "float32"),
    "light, bf16": ("last-4-blocks-linear", "bfloat16"),
}


def rows_of_about(tokenizer: Any, n: int, tokens: int) -> list[dict[str, str]]:
    """``n`` real rows whose rendering has between half and twice ``tokens`` tokens."""
    from tests.benchmarks import corpora
    from vendiscope.core.gradients.render import encode_examples

    try:
        grouped = corpora.load("debian")
    except Exception:  # no apt lists on this machine
        grouped = corpora.load("docstrings")
    pool = corpora.draw(grouped, min(8 * n, 4096), groups=16, seed=11)
    rows = [{"prompt": r["prompt"], "response": r["response"]} for r in pool]
    lengths = [
        len(e) for e in encode_examples(tokenizer, rows, max_length=10**6, chat_template=True)
    ]
    kept = [r for r, k in zip(rows, lengths, strict=True) if tokens // 2 <= k <= 2 * tokens]
    if len(kept) < n:
        raise SystemExit(f"only {len(kept)} rows of about {tokens} tokens; ask for fewer")
    return kept[:n]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--rows", type=int, default=48, help="rows per setting per round")
    parser.add_argument("--bare", type=int, default=4, help="rows of the bare loop per round")
    parser.add_argument("--tokens", type=int, default=150)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()

    import torch

    from vendiscope.core.gradients.features import GradientEngine, cpu_has_native_bf16
    from vendiscope.core.gradients.proxy import load_proxy
    from vendiscope.core.gradients.render import encode_examples

    torch.set_num_threads(args.threads)
    model, tokenizer, _ = load_proxy(None, device="cpu")
    per_round = args.rows * len(SETTINGS) + args.bare
    rows = rows_of_about(tokenizer, args.rounds * per_round + args.rows, args.tokens)
    mean_tokens = float(
        np.mean(
            [len(e) for e in encode_examples(tokenizer, rows, max_length=512, chat_template=True)]
        )
    )
    engines = {
        name: GradientEngine(model, tokenizer, parameters=parameters, precision=precision)
        for name, (parameters, precision) in SETTINGS.items()
    }
    probe = rows[-args.rows :]
    reference = {p: engines[f"{p}, float32"].features(probe) for p in ("paper", "light")}
    cosine = {}
    for name, engine in engines.items():  # warm-up, and each setting's rows against float32
        found = engine.features(probe)
        cosine[name] = float((found * reference[name.split(",")[0]]).sum(axis=1).min())
    print(f"{len(rows)} rows, {mean_tokens:.0f} tokens on average; native bf16: "
          f"{cpu_has_native_bf16()}; {args.threads} threads", flush=True)  # fmt: skip

    rates: dict[str, list[float]] = {name: [] for name in ["bare loop", *SETTINGS]}
    for number in range(args.rounds):
        start = number * per_round
        chunk = rows[start : start + per_round]
        encoded = encode_examples(tokenizer, chunk[: args.bare], max_length=512, chat_template=True)
        rates["bare loop"].append(args.bare / bare_loop(model, encoded)[0])
        for offset, (name, engine) in enumerate(engines.items()):
            part = chunk[args.bare + offset * args.rows : args.bare + (offset + 1) * args.rows]
            started = time.perf_counter()
            engine.features(part)
            rates[name].append(len(part) / (time.perf_counter() - started))
        print(f"round {number + 1}: " + ", ".join(f"{k} {v[-1]:.2f}" for k, v in rates.items()),
              flush=True)  # fmt: skip

    table: dict[str, Any] = {}
    for name, found in rates.items():
        ratio = float(np.median([r / b for r, b in zip(found, rates["bare loop"], strict=True)]))
        rate = float(np.median(found))
        table[name] = {
            "rows_per_s": rate,
            "vs_bare_loop": ratio,
            "hours_for_10000": 10_000 / rate / 3600,
            "min_cosine_to_float32": cosine.get(name),
            "batch_tokens": engines[name].max_tokens if name in engines else None,
        }
        print(f"{name:16s} {rate:5.2f} rows/s  x{ratio:.2f} of the bare loop  "
              f"10,000 rows: {10_000 / rate / 3600:.2f} h", flush=True)  # fmt: skip
    save(
        "gradient_throughput",
        {"setup": vars(args) | {"mean_tokens": mean_tokens, "native_bf16": cpu_has_native_bf16()},
         "settings": table, "rounds": rates},
    )  # fmt: skip


if __name__ == "__main__":
    main()
