"""Training cost of the built-in ``causal-lm`` trainer: the frozen-prefix cache against none.

The same trainer settings run with ``cache_frozen=True`` and ``cache_frozen=False`` on the same
examples and seed, in ABAB... order over ``--rounds`` rounds so load on a shared machine hits
both alike; both are loaded and warmed (one run each, which also fills the cache) before
timing. Reported per method (``last-blocks`` and ``lora``): seconds per run (its training
steps and the target's scoring), the ratio without/with the cache, and the largest
difference between the two runs' target losses (the cache must change no result).
``--model`` defaults to the bundled SmolLM2-135M-Instruct. Examples are demo rows.

    python tests/benchmarks/bench_trainer.py [--examples 16] [--target 8] [--steps 4]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from tests.benchmarks._common import save


def demo_examples(n: int, start: int = 0) -> list[dict[str, str]]:
    from tests.conftest import demo_rows

    rows = demo_rows(start, start + n)
    return [{"prompt": r["prompt"], "response": r["response"]} for r in rows]


def timed_run(trainer: Any, examples: list, target: list) -> tuple[float, Any]:
    from vendiscope.api import CancelToken, NullProgress

    began = time.perf_counter()
    outcome = trainer.train(examples, target, seed=1, progress=NullProgress(), cancel=CancelToken())
    return time.perf_counter() - began, outcome


def bench_method(method: str, args: argparse.Namespace, examples: list, target: list) -> dict:
    from vendiscope.plugins.trainers.causal_lm import CausalLMTrainer

    settings = {"model": args.model, "method": method, "blocks": args.blocks,
                "steps": args.steps, "batch_size": args.batch_size, "max_length": args.max_length,
                "device": "cpu"}  # fmt: skip
    cached = CausalLMTrainer(**settings)
    full = CausalLMTrainer(**settings, cache_frozen=False)
    for trainer in (cached, full):  # load, warm, fill the cache
        timed_run(trainer, examples, target)
    seconds: dict[str, list[float]] = {"cached": [], "full": []}
    losses: dict[str, float] = {}
    for _ in range(args.rounds):
        for name, trainer in (("cached", cached), ("full", full)):
            took, outcome = timed_run(trainer, examples, target)
            seconds[name].append(took)
            losses[name] = outcome.evaluation.loss
    mean = {name: sum(v) / len(v) for name, v in seconds.items()}
    return {
        "method": method,
        "frozen_cache": cached.describe()["frozen_cache"],
        "seconds_per_run": mean,
        "speedup": mean["full"] / mean["cached"],
        "loss_difference": abs(losses["cached"] - losses["full"]),
        "runs": seconds,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default=None, help="default: the bundled SmolLM2-135M")
    parser.add_argument("--examples", type=int, default=16)
    parser.add_argument("--target", type=int, default=8)
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--blocks", type=int, default=4)
    parser.add_argument("--max-length", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()

    import torch

    torch.set_num_threads(args.threads)
    examples, target = demo_examples(args.examples), demo_examples(args.target, start=600)
    results = {
        "settings": vars(args),
        "load_average_before": os.getloadavg(),
        "torch_threads": args.threads,
        "methods": [bench_method(m, args, examples, target) for m in ("last-blocks", "lora")],
    }
    for found in results["methods"]:
        per_run = found["seconds_per_run"]
        print(
            f"{found['method']:>11}: {per_run['cached']:.1f} s per run with the cache, "
            f"{per_run['full']:.1f} s without ({found['speedup']:.2f}x); "
            f"losses differ by {found['loss_difference']:.1e}"
        )
    print(json.dumps({"saved": str(save("trainer_cache", results))}))


if __name__ == "__main__":
    main()
