"""Embed N records (demo prompt + response pairs, mixed length) with the built-in embedder.

Compared in one run against a plain ``SentenceTransformer(folder).encode(texts, batch_size=32)``
on the same texts with the same bundled all-MiniLM-L6-v2: records/s of each, their ratio, and
the largest difference between the two outputs.

Both run in this process, one model each, loaded and warmed up before timing. The texts are
split into blocks (as the embedding job hands chunks of 4,096 records to the embedder) and the
two take turns in ABBA order, so a noisy neighbour on a shared machine slows both alike.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from tests.benchmarks._common import save

DEMO = Path(__file__).resolve().parents[2] / "vendiscope" / "resources" / "demo" / "demo.jsonl"


def make_texts(n: int) -> list[str]:
    """``n`` distinct texts: the demo's prompt + response pairs, cycled, each with a number."""
    rows = [orjson.loads(line) for line in DEMO.read_bytes().splitlines() if line.strip()]
    pairs = [f"{row['prompt']}\n\n{row['response']}" for row in rows]
    return [f"{pairs[i % len(pairs)]} ({i})" for i in range(n)]


def machine() -> dict[str, object]:
    import torch

    return {
        "cpu": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "torch": torch.__version__,
        "torch_threads": torch.get_num_threads(),
        "cuda": torch.cuda.is_available(),
        "load_average_before": os.getloadavg(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--blocks", type=int, default=4, help="ABBA turns (even number)")
    args = parser.parse_args()

    import numpy as np
    from sentence_transformers import SentenceTransformer

    from vendiscope.core.base.jobs import CancelToken, NullProgress
    from vendiscope.core.weights.bundled import sentence_encoder_dir
    from vendiscope.plugins.embedders.sentence_transformers import SentenceTransformerEmbedder

    n = args.rows
    texts = make_texts(n)
    results: dict[str, object] = {"rows": n, "blocks": args.blocks, "machine": machine()}
    lengths = sorted(len(t) for t in texts)
    results["text_chars"] = {"min": lengths[0], "median": lengths[n // 2], "max": lengths[-1]}

    ours = SentenceTransformerEmbedder()
    plain = SentenceTransformer(str(sentence_encoder_dir()), device="cpu")
    results["model_id"] = ours.model_id
    results["ours_batch_size"] = ours.batch_size_

    def run_ours(block: list[str]) -> np.ndarray:
        return ours.embed(block, progress=NullProgress(), cancel=CancelToken())

    def run_plain(block: list[str]) -> np.ndarray:
        return plain.encode(block, batch_size=32)

    warm = texts[:256]
    run_ours(warm)
    run_plain(warm)

    bounds = np.linspace(0, n, args.blocks + 1).astype(int)
    seconds = {"ours": 0.0, "plain": 0.0}
    outputs: dict[str, list[np.ndarray]] = {"ours": [], "plain": []}
    runners = {"ours": run_ours, "plain": run_plain}
    for b in range(args.blocks):
        block = texts[bounds[b] : bounds[b + 1]]
        for name in ("ours", "plain") if b % 2 == 0 else ("plain", "ours"):
            started = time.perf_counter()
            outputs[name].append(runners[name](block))
            elapsed = time.perf_counter() - started
            seconds[name] += elapsed
            print(
                f"block {b + 1}/{args.blocks} {name}: {len(block) / elapsed:.1f} rec/s", flush=True
            )

    ours_all = np.concatenate(outputs["ours"])
    plain_all = np.concatenate(outputs["plain"]).astype(np.float32)
    results["seconds"] = seconds
    results["records_per_s"] = {name: n / s for name, s in seconds.items()}
    results["speed_ratio_ours_over_plain"] = seconds["plain"] / seconds["ours"]
    results["max_abs_diff"] = float(np.abs(ours_all - plain_all).max())
    results["min_cosine"] = float(np.min(np.sum(ours_all * plain_all, axis=1)))
    results["machine"]["load_average_after"] = os.getloadavg()  # type: ignore[index]
    path = save(f"embed_{n}", results)
    print(orjson.dumps(results, option=orjson.OPT_INDENT_2).decode())
    print(f"saved {path}")


if __name__ == "__main__":
    main()
