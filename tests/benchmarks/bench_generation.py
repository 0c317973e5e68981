"""Generation throughput of the two built-in generators, each against itself.

(1) ``transformers`` (the bundled SmolLM2-135M-Instruct, CPU): the same prompts completed in
batches of 8 (left-padded) and one at a time; completion tokens/s of each and their ratio.
(2) ``openai`` against the real ``transformers serve`` (the same model, CPU, started here):
``concurrency=4`` against ``concurrency=1``; requests/s and tokens/s of each and the ratios.

Both models are loaded and warmed up before timing; the two settings of each part run in
ABAB... order over ``--rounds`` rounds so load on a shared machine hits both alike. Sampling is
greedy (``temperature=0``) so both settings write (about) the same number of tokens.
``--threads`` sets torch's (and the server's) threads: on a busy shared CPU one thread is far
faster than two spinning OpenMP threads.

    python tests/benchmarks/bench_generation.py [--prompts 16] [--max-new-tokens 32]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from tests.benchmarks._common import save

TOPICS = [
    "rivers", "volcanoes", "prime numbers", "bread", "bicycles", "the moon", "honeybees",
    "chess", "glaciers", "violins", "compilers", "tea", "deserts", "lighthouses", "owls", "maps",
]  # fmt: skip


def make_prompts(n: int) -> list[list[dict[str, str]]]:
    """``n`` short chat prompts of different lengths (so batches are padded)."""
    prompts = []
    for i in range(n):
        topic = TOPICS[i % len(TOPICS)]
        extra = " Use simple words." * (i % 3)
        prompts.append(
            [{"role": "user", "content": f"Write a short paragraph about {topic}.{extra}"}]
        )
    return prompts


def machine(threads: int) -> dict[str, object]:
    import torch

    return {
        "cpu": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "torch": torch.__version__,
        "torch_threads": threads,
        "load_average_before": os.getloadavg(),
    }


def timed(generate, prompts, **kwargs):
    from vendiscope.api import CancelToken, NullProgress

    started = time.perf_counter()
    out = generate(prompts, seed=0, progress=NullProgress(), cancel=CancelToken(), **kwargs)
    seconds = time.perf_counter() - started
    errors = [g.error for g in out if g.error]
    if errors:
        raise SystemExit(f"generation failed: {errors[:3]}")
    return seconds, sum(g.tokens for g in out), out


def local(args: argparse.Namespace, prompts: list) -> dict[str, object]:
    from vendiscope.plugins.generators.transformers_local import TransformersGenerator

    generator = TransformersGenerator(
        device="cpu", temperature=0.0, max_new_tokens=args.max_new_tokens, batch_size=8
    )
    generator.check()  # load
    model_id = generator.model_id
    timed(generator.generate, prompts[:2])  # warm up
    settings = {"batched (batch_size 8)": 8, "one at a time (batch_size 1)": 1}
    seconds = dict.fromkeys(settings, 0.0)
    tokens = dict.fromkeys(settings, 0)
    for r in range(args.rounds):
        order = list(settings) if r % 2 == 0 else list(reversed(settings))
        for name in order:
            generator.batch_size = settings[name]
            s, t, _ = timed(generator.generate, prompts)
            seconds[name] += s
            tokens[name] += t
            print(f"local round {r + 1} {name}: {t / s:.1f} tokens/s ({s:.1f} s)", flush=True)
    rates = {name: tokens[name] / seconds[name] for name in settings}
    batched, single = rates.values()
    return {
        "model_id": model_id,
        "seconds": seconds,
        "tokens": tokens,
        "tokens_per_s": rates,
        "prompts_per_s": {n: args.rounds * len(prompts) / seconds[n] for n in settings},
        "ratio_batched_over_single": batched / single,
    }


def client(args: argparse.Namespace, prompts: list) -> dict[str, object]:
    from tests.plugins.generators._serve import TransformersServe, bundled_folder
    from vendiscope.plugins.generators.openai_compat import OpenAIGenerator

    extra = ("--continuous-batching",) if args.continuous_batching else ()
    log = Path(tempfile.mkdtemp(prefix="bench-serve-")) / "serve.log"
    with TransformersServe(bundled_folder(), log, threads=args.threads, extra=extra) as serve:
        settings = {"concurrency 4": 4, "sequential (concurrency 1)": 1}
        generator = OpenAIGenerator(
            base_url=serve.url, model=serve.model, temperature=0.0,
            max_new_tokens=args.max_new_tokens, timeout=600,
        )  # fmt: skip
        timed(generator.generate, prompts[:4])  # warm up
        seconds = dict.fromkeys(settings, 0.0)
        tokens = dict.fromkeys(settings, 0)
        for r in range(args.rounds):
            order = list(settings) if r % 2 == 0 else list(reversed(settings))
            for name in order:
                generator.concurrency = settings[name]
                s, t, _ = timed(generator.generate, prompts)
                seconds[name] += s
                tokens[name] += t
                print(f"client round {r + 1} {name}: {len(prompts) / s:.2f} req/s, "
                      f"{t / s:.1f} tokens/s", flush=True)  # fmt: skip
    requests = {n: args.rounds * len(prompts) / seconds[n] for n in settings}
    rates = {n: tokens[n] / seconds[n] for n in settings}
    (conc_r, seq_r), (conc_t, seq_t) = requests.values(), rates.values()
    return {
        "server": "transformers serve" + (" --continuous-batching" if extra else ""),
        "seconds": seconds,
        "tokens": tokens,
        "requests_per_s": requests,
        "tokens_per_s": rates,
        "ratio_requests": conc_r / seq_r,
        "ratio_tokens": conc_t / seq_t,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--prompts", type=int, default=16)
    parser.add_argument("--max-new-tokens", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--continuous-batching", action="store_true")
    parser.add_argument("--skip", choices=("local", "client"), default=None)
    args = parser.parse_args()

    import torch

    torch.set_num_threads(args.threads)
    prompts = make_prompts(args.prompts)
    results: dict[str, object] = {
        "prompts": args.prompts,
        "max_new_tokens": args.max_new_tokens,
        "rounds": args.rounds,
        "machine": machine(args.threads),
    }
    if args.skip != "local":
        results["local"] = local(args, prompts)
    if args.skip != "client":
        results["client"] = client(args, prompts)
    results["machine"]["load_average_after"] = os.getloadavg()  # type: ignore[index]
    name = "generation" + {"client": "_local", "local": "_client", None: ""}[args.skip]
    if args.continuous_batching and args.skip != "client":
        name += "_cb"
    path = save(name, results)
    print(json.dumps(results, indent=2))
    print("\n| part | setting | tokens/s | requests/s |\n| --- | --- | --- | --- |")
    for part in ("local", "client"):
        data = results.get(part)
        if not isinstance(data, dict):
            continue
        per_s = data.get("requests_per_s") or data["prompts_per_s"]
        for name, rate in data["tokens_per_s"].items():
            print(f"| {part} | {name} | {rate:.1f} | {per_s[name]:.2f} |")
    if "local" in results:
        print(
            f"local: batched / one at a time = {results['local']['ratio_batched_over_single']:.2f}x"
        )
    if "client" in results:
        c = results["client"]
        print(f"client: concurrent / sequential = {c['ratio_requests']:.2f}x requests/s, "
              f"{c['ratio_tokens']:.2f}x tokens/s")  # fmt: skip
    print(f"saved {path}")


if __name__ == "__main__":
    main()
