"""One prepared check of the gradient and embedding engines on a GPU (or, for testing, a CPU).

Four parts, each printed as a markdown table and saved together as JSON
(``tests/benchmarks/results/gpu_check-<cuda|cpu>.json``, or ``--output``):

1. **Agreement with the CPU.** Fast-mode gradient rows (all parameters, ``dim`` 1024,
   ``max_length`` 256) of the bundled proxy on docstring records, computed on the CPU in
   float32 and on the device in float32 and under bf16 autocast: per-row cosine of device
   against CPU rows. Target: float32 min cosine >= 0.999 (the exit code is 1 otherwise).
2. **Fast-mode throughput of the bundled proxy** (bf16 autocast on CUDA, float32 on the
   CPU) at several batch sizes on records of 128 tokens: examples/s, model TFLOP/s, share of
   the GPU's bf16 dense peak, peak memory.
3. **The same on a randomly initialised model of Qwen2.5-0.5B's shape** (no weights are
   downloaded), with the target of 30% of the bf16 dense peak on an H100 and the time 1M
   examples of 128 tokens would take.
4. **Embeddings**: the bundled sentence embedder's texts/s and peak memory.

Model FLOPs per batch = 4 x (N_body x tokens + N_head x labelled tokens): forward 2 and
backward 2 (activation gradients only: LoGra needs no weight gradient) per parameter and
token; ``N_body`` is the non-embedding parameter count, ``N_head`` the output head's matmul
(vocabulary x hidden, applied to the labelled positions only). The attention's
sequence-length term and the projections are not counted.

Each step checks the elapsed time and is skipped, with a note, when the run would go past
``--budget-s``. A CUDA out-of-memory error at one batch size is reported as "OOM" in its row.

    .venv/bin/python -m tests.benchmarks.gpu_check --device cuda
    .venv/bin/python -m tests.benchmarks.gpu_check --device cpu --quick
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import re
import resource
import sys
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.benchmarks._common import save

FLOAT32_TARGET = 0.999
PEAK_SHARE_TARGET = 0.30
MILLION_TARGET_MIN = 30.0
# bf16 dense peak TFLOP/s (no sparsity), matched on the device name, first match wins
BF16_PEAKS = (
    (r"H100.*PCIe", "H100 PCIe", 756.0),
    (r"H100.*(SXM|HBM3)", "H100 SXM", 989.0),
    (r"H200", "H200", 989.0),
    (r"A100", "A100", 312.0),
    (r"\bL4\b", "L4", 121.0),
)
# Qwen2.5-0.5B's shape; the quick run uses a tiny model of the same family
QWEN_05B = {
    "hidden_size": 896,
    "intermediate_size": 4864,
    "num_hidden_layers": 24,
    "num_attention_heads": 14,
    "num_key_value_heads": 2,
    "vocab_size": 151936,
    "tie_word_embeddings": True,
    "max_position_embeddings": 32768,
    "rope_theta": 1e6,
}
QWEN_TINY = QWEN_05B | {
    "hidden_size": 64,
    "intermediate_size": 128,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "vocab_size": 49152,
}


# --------------------------------------------------------------------------- helpers
class Budget:
    """Wall-clock budget of the whole run; steps that would overrun it are skipped."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.started = time.perf_counter()
        self.notes: list[str] = []

    def elapsed(self) -> float:
        return time.perf_counter() - self.started

    def allows(self, what: str, estimate: float = 0.0) -> bool:
        """Whether ``what`` (expected to take ``estimate`` s) fits; notes and prints a skip."""
        if self.elapsed() + estimate <= self.seconds:
            return True
        expected = f" + about {estimate:.0f} s expected" if estimate else ""
        note = (
            f"skipped {what}: {self.elapsed():.0f} s elapsed{expected}, "
            f"past the budget of {self.seconds:.0f} s"
        )
        self.notes.append(note)
        print(f"\n> {note}", flush=True)
        return False


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A markdown table; floats are shown with 3 significant digits (4 decimals under 1)."""

    def cell(value: Any) -> str:
        if isinstance(value, float):
            if value != value:  # NaN
                return "n/a"
            if abs(value) < 1:
                return f"{value:.4f}"
            return f"{value:.3g}" if abs(value) < 100 else f"{value:,.0f}"
        return "n/a" if value is None else str(value)

    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def device_info(device: Any) -> dict[str, Any]:
    """Name, torch and CUDA versions, bf16 support and the bf16 dense peak of ``device``."""
    import torch

    info: dict[str, Any] = {
        "device": str(device),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "cpu_threads": torch.get_num_threads(),
    }
    if device.type == "cuda":
        props = torch.cuda.get_device_properties(device)
        info["name"] = torch.cuda.get_device_name(device)
        info["memory_gib"] = props.total_memory / 2**30
        info["capability"] = f"{props.major}.{props.minor}"
        info["bf16_supported"] = bool(torch.cuda.is_bf16_supported())
        peak = next(
            (
                (label, tflops)
                for pattern, label, tflops in BF16_PEAKS
                if re.search(pattern, info["name"])
            ),
            (None, None),
        )
        info["peak_label"], info["bf16_peak_tflops"] = peak
    else:
        info["name"] = platform.processor() or platform.machine() or "cpu"
        info["bf16_supported"] = None  # autocast runs on any CPU; its speed depends on the ISA
        info["peak_label"] = info["bf16_peak_tflops"] = None
    return info


def synchronize(device: Any) -> None:
    import torch

    if device.type == "cuda":
        torch.cuda.synchronize(device)


def reset_peak(device: Any) -> None:
    import torch

    if device.type == "cuda":
        gc.collect()
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats(device)


def peak_mib(device: Any) -> float:
    """Peak GPU memory allocated since the last reset, or the process's peak RSS on a CPU."""
    import torch

    if device.type == "cuda":
        return torch.cuda.max_memory_allocated(device) / 2**20
    try:  # VmHWM is this process's own; ru_maxrss may carry a forking parent's peak
        with open("/proc/self/status") as status:
            return next(int(x.split()[1]) for x in status if x.startswith("VmHWM:")) / 1024
    except (OSError, StopIteration):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def memory_label(device: Any) -> str:
    if device.type == "cuda":
        return "peak GPU memory (MiB, per batch size)"
    return "process peak RSS (MiB, since start)"


def is_oom(error: BaseException) -> bool:
    import torch

    return isinstance(error, torch.cuda.OutOfMemoryError)


# --------------------------------------------------------------------------- records
def docstring_pairs(n: int, *, domains: int = 8) -> list[dict[str, str]]:
    """``n`` docstring prompt/response pairs from the first ``domains`` stdlib packages.

    Reads only as many source files as needed (the full harvest of
    :mod:`tests.benchmarks.docstrings` takes minutes); pairs alternate between packages.
    """
    from tests.benchmarks import docstrings

    roots = docstrings._roots()
    share = -(-n // domains)
    groups: list[list[dict[str, str]]] = []
    for name in (x for x in docstrings.STDLIB if x in roots):
        found: dict[str, dict[str, str]] = {}
        for path in docstrings._files(roots[name]):
            for pair in docstrings._pairs(name, path, roots[name]):
                found.setdefault(pair["response"], pair)
            if len(found) >= share:
                break
        if len(found) >= share:
            groups.append(list(found.values())[:share])
        if len(groups) == domains:
            break
    mixed = [group[i] for i in range(share) for group in groups]
    if len(mixed) < n:
        raise RuntimeError(f"only {len(mixed)} docstrings found, {n} needed")
    return [{"prompt": p["prompt"], "response": p["response"]} for p in mixed[:n]]


def long_records(pool: Sequence[dict[str, str]], n: int, min_chars: int) -> list[dict[str, str]]:
    """``n`` records whose responses join docstrings to at least ``min_chars`` characters."""
    out = []
    for i in range(n):
        parts: list[str] = []
        j = i
        while sum(map(len, parts)) < min_chars:
            parts.append(pool[j % len(pool)]["response"])
            j += 1
        out.append({"prompt": pool[i % len(pool)]["prompt"], "response": "\n\n".join(parts)})
    return out


# --------------------------------------------------------------------------- gradients
def engine(model: Any, tokenizer: Any, **settings: Any) -> Any:
    """The product's fast-mode gradient engine, all parameters, ``dim`` 1024."""
    from vendiscope.core.gradients.features import GradientEngine

    return GradientEngine(model, tokenizer, mode="fast", parameters="all", dim=1024, **settings)


def agreement(
    cpu_model: Any, device_model: Any, tokenizer: Any, records: list[dict[str, str]], device: Any
) -> dict[str, Any]:
    """Part 1: device rows (float32, bf16 autocast) against CPU float32 rows."""
    started = time.perf_counter()
    reference = engine(cpu_model, tokenizer, max_length=256, precision="float32")
    cpu_rows = reference.features(records)
    part: dict[str, Any] = {
        "records": len(records),
        "max_length": 256,
        "tokens_per_row": float(np.mean([len(e) for e in reference.encode(records)])),
        "reference_seconds": time.perf_counter() - started,
        "float32_target": FLOAT32_TARGET,
    }
    for precision in ("float32", "bfloat16"):
        started = time.perf_counter()
        found = engine(device_model, tokenizer, max_length=256, precision=precision)
        rows = found.features(records)
        synchronize(device)
        cosines = cosine_rows(rows, cpu_rows)
        part[precision] = {
            "device": str(device),
            "autocast": found.autocast,
            "seconds": time.perf_counter() - started,
            "min_cosine": float(cosines.min()),
            "median_cosine": float(np.median(cosines)),
        }
    part["passed"] = part["float32"]["min_cosine"] >= FLOAT32_TARGET
    return part


def cosine_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cosine of each row of ``a`` with the same row of ``b`` (in float64)."""
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    return (a64 * b64).sum(1) / (np.linalg.norm(a64, axis=1) * np.linalg.norm(b64, axis=1))


def print_agreement(part: dict[str, Any]) -> None:
    print(
        f"\n## 1. Agreement with the CPU ({part['records']} docstring records, "
        f"{part['tokens_per_row']:.0f} tokens/row, fast mode, all parameters, dim 1024)\n"
    )
    float32, bf16 = part["float32"], part["bfloat16"]
    rows = [
        ["cpu, float32 (reference)", "", "", "", "", part["reference_seconds"]],
        [
            f"{float32['device']}, float32",
            f"{float32['min_cosine']:.6f}",
            f"{float32['median_cosine']:.6f}",
            f">= {FLOAT32_TARGET}",
            "pass" if part["passed"] else "FAIL",
            float32["seconds"],
        ],
        [
            f"{bf16['device']}, bf16 autocast",
            f"{bf16['min_cosine']:.6f}",
            f"{bf16['median_cosine']:.6f}",
            "reported",
            "",
            bf16["seconds"],
        ],
    ]
    print(table(["run", "min cosine", "median cosine", "target", "result", "s"], rows))


def flop_counts(model: Any) -> tuple[int, int]:
    """``(N_body, N_head)``: non-embedding parameters, and the head's vocabulary x hidden."""
    head = model.get_output_embeddings()
    embeddings = model.get_input_embeddings()
    skip = {id(p) for m in (head, embeddings) if m is not None for p in m.parameters()}
    body = sum(p.numel() for p in model.parameters() if id(p) not in skip)
    return body, int(head.weight.numel()) if head is not None else 0


def throughput(
    model: Any,
    tokenizer: Any,
    pool: Sequence[dict[str, str]],
    sizes: Sequence[int],
    *,
    device: Any,
    batches: int,
    budget: Budget,
    label: str,
) -> dict[str, Any]:
    """Parts 2 and 3: fast-mode examples/s, TFLOP/s and peak memory per batch size."""
    import torch

    from vendiscope.core.gradients.batches import WIDTH_STEP, length_buckets

    body, head = flop_counts(model)
    peak = device_info(device)["bf16_peak_tflops"]
    cuda_bf16 = device.type == "cuda" and torch.cuda.is_bf16_supported()
    precision = "bfloat16" if cuda_bf16 else "float32"
    records = long_records(pool, max(sizes) * (batches + 1), min_chars=1200)
    rows: list[dict[str, Any]] = []
    previous: tuple[int, float] | None = None
    warmed = False
    for size in sizes:
        estimate = previous[1] * size / previous[0] if previous else 0.0
        if not budget.allows(f"{label} at batch size {size}", estimate):
            rows.append({"batch_size": size, "skipped": "budget"})
            continue
        started = time.perf_counter()
        row: dict[str, Any] = {"batch_size": size}
        try:
            reset_peak(device)  # also frees cached blocks, so the engine's memory plan sees them
            found = engine(model, tokenizer, max_length=128, batch_size=size, precision=precision)
            if device.type == "cuda" or not warmed:  # per shape on a GPU; once on a CPU
                found.features(records[:size])  # warm-up batch
                warmed = True
            timed = records[size : size * (batches + 1)]
            encoded = found.encode(timed)
            buckets = length_buckets(
                [len(e) for e in encoded], found.batch_size, found.max_tokens,
                step=WIDTH_STEP, cap=found.max_length,
            )  # fmt: skip
            reset_peak(device)
            synchronize(device)
            begin = time.perf_counter()
            found.features(timed)
            synchronize(device)
            seconds = time.perf_counter() - begin
        except Exception as error:  # an OOM is a result; anything else is a bug
            if not is_oom(error):
                raise
            found = None
            row["oom"] = True
        else:
            tokens = sum(len(e) for e in encoded)
            targets = sum(e.n_targets for e in encoded)
            flops = 4 * (body * tokens + head * targets)
            tflops = flops / seconds / 1e12
            row |= {
                "rows_per_batch": max(len(b) for b in buckets),
                "examples": len(timed),
                "tokens_per_row": tokens / len(timed),
                "labelled_per_row": targets / len(timed),
                "seconds": seconds,
                "examples_per_s": len(timed) / seconds,
                "tflops": tflops,
                "percent_of_bf16_peak": 100 * tflops / peak if peak else None,
                "peak_memory_mib": peak_mib(device),
                "minutes_per_million": 1e6 / (len(timed) / seconds) / 60,
            }
        found = None
        reset_peak(device)
        rows.append(row)
        previous = (size, time.perf_counter() - started)
        print(f"  {label}: batch size {size} done ({previous[1]:.1f} s)", flush=True)
    return {
        "n_body": body,
        "n_head": head,
        "flops": "4 * (N_body * tokens + N_head * labelled tokens)",
        "precision": "bf16 autocast" if precision == "bfloat16" else "float32",
        "timed_batches": batches,
        "warm_up": "each batch size" if device.type == "cuda" else "first batch size only",
        "memory": memory_label(device),
        "bf16_peak_tflops": peak,
        "rows": rows,
    }


def print_throughput(title: str, part: dict[str, Any]) -> None:
    print(f"\n## {title}\n")
    print(
        f"N_body = {part['n_body']:,}, N_head = {part['n_head']:,}; model FLOPs = "
        f"{part['flops']}; {part['precision']}; {part['timed_batches']} timed batch(es) per "
        f"size after a warm-up batch ({part['warm_up']}); bf16 dense peak: "
        f"{part['bf16_peak_tflops'] or 'n/a'} TFLOP/s.\n"
    )
    headers = [
        "batch size",
        "rows per batch (as run)",
        "tokens/row",
        "examples/s",
        "TFLOP/s",
        "% of bf16 peak",
        part["memory"],
        "1M examples (min)",
    ]
    rows = []
    for row in part["rows"]:
        if "skipped" in row or "oom" in row:
            why = "OOM" if "oom" in row else "skipped (budget)"
            rows.append([row["batch_size"], why, *[""] * (len(headers) - 2)])
            continue
        rows.append(
            [
                row["batch_size"],
                row["rows_per_batch"],
                row["tokens_per_row"],
                row["examples_per_s"],
                row["tflops"],
                row["percent_of_bf16_peak"],
                row["peak_memory_mib"],
                row["minutes_per_million"],
            ]
        )
    print(table(headers, rows))


def qwen_target(part: dict[str, Any], info: dict[str, Any]) -> dict[str, Any]:
    """The best row of part 3 against the H100 targets (30% of peak; 1M examples < 30 min)."""
    measured = [r for r in part["rows"] if "examples_per_s" in r]
    if not measured:
        return {"best_batch_size": None}
    best = max(measured, key=lambda r: r["examples_per_s"])
    share = best["percent_of_bf16_peak"]
    return {
        "best_batch_size": best["batch_size"],
        "percent_of_bf16_peak": share,
        "peak_share_met": None if share is None else share >= 100 * PEAK_SHARE_TARGET,
        "minutes_per_million": best["minutes_per_million"],
        "million_in_30_min": best["minutes_per_million"] < MILLION_TARGET_MIN,
        "applies": "H100" in str(info.get("name")),
    }


def print_qwen_target(target: dict[str, Any]) -> None:
    if target.get("best_batch_size") is None:
        print("\nTarget: no batch size measured.")
        return

    def verdict(ok: bool | None) -> str:
        return "n/a" if ok is None else "met" if ok else "NOT met"

    share = target["percent_of_bf16_peak"]
    shown = "n/a (unknown peak)" if share is None else f"{share:.1f}%"
    scope = "" if target["applies"] else " (the targets are set for an H100; shown for reference)"
    print(f"\nTarget{scope}, best batch size {target['best_batch_size']}:\n")
    rows = [
        [
            f">= {PEAK_SHARE_TARGET:.0%} of bf16 dense peak",
            shown,
            verdict(target["peak_share_met"]),
        ],
        [
            f"1M examples of 128 tokens in < {MILLION_TARGET_MIN:.0f} min",
            f"{target['minutes_per_million']:,.1f} min",
            verdict(target["million_in_30_min"]),
        ],
    ]
    print(table(["target", "measured", "result"], rows))


def random_qwen(device: Any, *, quick: bool) -> Any:
    """A randomly initialised Qwen2 causal LM of Qwen2.5-0.5B's shape (tiny when ``quick``)."""
    import torch
    from transformers import AutoModelForCausalLM, Qwen2Config

    config = Qwen2Config(**(QWEN_TINY if quick else QWEN_05B))
    torch.manual_seed(0)
    with device:  # initialise the weights where they will run
        model = AutoModelForCausalLM.from_config(config)
    model.eval()
    model.requires_grad_(False)
    return model


# --------------------------------------------------------------------------- embeddings
def embeddings(
    texts: Sequence[str], sizes: Sequence[int], *, device: Any, budget: Budget
) -> dict[str, Any]:
    """Part 4: the bundled sentence embedder's texts/s and peak memory per batch size."""
    from vendiscope.core.base.jobs import CancelToken, NullProgress
    from vendiscope.plugins.embedders.sentence_transformers import SentenceTransformerEmbedder

    embedder = SentenceTransformerEmbedder(device=str(device), batch_size=sizes[0])
    embedder.embed(list(texts[: sizes[0]]), progress=NullProgress(), cancel=CancelToken())
    rows: list[dict[str, Any]] = []
    previous = 0.0
    for size in sizes:
        if not budget.allows(f"embeddings at batch size {size}", previous):
            rows.append({"batch_size": size, "skipped": "budget"})
            continue
        row: dict[str, Any] = {"batch_size": size}
        embedder.batch_size = size
        started = time.perf_counter()
        try:
            if device.type == "cuda":  # warm-up per batch shape (the CPU was warmed up above)
                embedder.embed(list(texts[:size]), progress=NullProgress(), cancel=CancelToken())
            reset_peak(device)
            synchronize(device)
            begin = time.perf_counter()
            vectors = embedder.embed(list(texts), progress=NullProgress(), cancel=CancelToken())
            synchronize(device)
            seconds = time.perf_counter() - begin
        except Exception as error:
            if not is_oom(error):
                raise
            row["oom"] = True
        else:
            row |= {
                "texts": len(vectors),
                "seconds": seconds,
                "texts_per_s": len(vectors) / seconds,
                "peak_memory_mib": peak_mib(device),
            }
        reset_peak(device)
        rows.append(row)
        previous = time.perf_counter() - started
    return {
        "model_id": embedder.model_id,
        "precision": embedder.precision_,
        "memory": memory_label(device),
        "rows": rows,
    }


def print_embeddings(part: dict[str, Any]) -> None:
    print(f"\n## 4. Embeddings ({part['model_id']}, {part['precision']})\n")
    rows = []
    for row in part["rows"]:
        if "texts_per_s" not in row:
            rows.append([row["batch_size"], "OOM" if "oom" in row else "skipped (budget)", "", ""])
            continue
        rows.append([row["batch_size"], row["texts"], row["texts_per_s"], row["peak_memory_mib"]])
    print(table(["batch size", "texts", "texts/s", part["memory"]], rows))


# --------------------------------------------------------------------------- main
def run_part(budget: Budget, results: dict[str, Any], key: str, step: Callable[[], Any]) -> None:
    """Run one part unless the budget is spent; its result goes to ``results[key]``."""
    if budget.allows(f"part '{key}'"):
        started = time.perf_counter()
        results[key] = step()
        results["part_seconds"][key] = time.perf_counter() - started


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda", help="cuda, cuda:1, cpu ...")
    parser.add_argument("--quick", action="store_true", help="small sizes, for the CPU test")
    parser.add_argument("--budget-s", type=float, default=270.0, help="wall-clock budget")
    parser.add_argument("--batches", type=int, default=None, help="timed batches per size")
    parser.add_argument("--output", type=Path, default=None, help="JSON path (default: results)")
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads")
    args = parser.parse_args(argv)

    import torch

    if args.threads:  # on a shared machine one thread avoids waiting for descheduled ones
        torch.set_num_threads(args.threads)

    budget = Budget(args.budget_s)
    device = torch.device(args.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        print(f"torch {torch.__version__} sees no CUDA device", file=sys.stderr)
        return 2
    quick = args.quick
    batches = args.batches or (1 if quick else 3)
    info = device_info(device)
    print("# GPU check\n")
    print(
        table(
            ["device", "name", "torch", "CUDA", "bf16 supported", "bf16 dense peak"],
            [
                [
                    info["device"],
                    info["name"],
                    info["torch"],
                    info["cuda"] or "none",
                    "n/a (CPU)" if info["bf16_supported"] is None else info["bf16_supported"],
                    f"{info['bf16_peak_tflops']:.0f} TFLOP/s ({info['peak_label']})"
                    if info["bf16_peak_tflops"]
                    else "n/a",
                ]
            ],
        )
    )

    from vendiscope.core.gradients.proxy import load_proxy

    pool = docstring_pairs(32 if quick else 64)
    cpu_model, tokenizer, _ = load_proxy(None, device="cpu")
    models = {"cpu": cpu_model}
    models["device"] = cpu_model if device.type == "cpu" else load_proxy(None, device=device)[0]
    del cpu_model
    results: dict[str, Any] = {
        "setup": vars(args) | {"output": str(args.output) if args.output else None},
        "device": info,
        "part_seconds": {},
    }
    # the quick run takes the 8 shortest records of its pool (the CPU path is slow)
    records = sorted(pool, key=lambda r: len(r["response"]))[:8] if quick else pool[:16]
    compare = partial(agreement, models["cpu"], models["device"], tokenizer, records, device)
    run_part(budget, results, "agreement", compare)
    del compare  # it holds the models
    if "agreement" in results:
        print_agreement(results["agreement"])
    models.pop("cpu")

    sizes = (2, 4) if quick else (8, 16, 32, 64, 128)
    measure = partial(
        throughput,
        tokenizer=tokenizer,
        pool=pool,
        sizes=sizes,
        device=device,
        batches=batches,
        budget=budget,
    )
    run_part(budget, results, "proxy_throughput", partial(measure, models["device"], label="proxy"))
    if "proxy_throughput" in results:
        print_throughput("2. Fast mode, bundled proxy (SmolLM2-135M)", results["proxy_throughput"])
    models.clear()
    reset_peak(device)

    def qwen() -> dict[str, Any]:
        part = measure(random_qwen(device, quick=quick), label="qwen")
        part["config"] = QWEN_TINY if quick else QWEN_05B
        part["target"] = qwen_target(part, info)
        return part

    run_part(budget, results, "qwen_throughput", qwen)
    reset_peak(device)
    if "qwen_throughput" in results:
        shape = "tiny Qwen2 (2 layers, hidden 64)" if quick else "Qwen2.5-0.5B shape"
        print_throughput(f"3. Fast mode, random {shape}", results["qwen_throughput"])
        print_qwen_target(results["qwen_throughput"]["target"])

    texts = [f"{p['prompt']}\n\n{p['response']}" for p in pool]
    texts = (texts * (-(-(64 if quick else 2000) // len(texts))))[: 64 if quick else 2000]
    embed_sizes = (8, 32) if quick else (32, 128, 512)
    embed = partial(embeddings, texts, embed_sizes, device=device, budget=budget)
    run_part(budget, results, "embeddings", embed)
    if "embeddings" in results:
        print_embeddings(results["embeddings"])

    results["skipped"] = budget.notes
    results["seconds"] = budget.elapsed()
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(json.dumps(results, indent=2))
        path = args.output
    else:
        path = save(f"gpu_check-{device.type}", results)
    passed = results.get("agreement", {}).get("passed", False)
    print(f"\nTotal {results['seconds']:.0f} s (budget {args.budget_s:.0f} s). Results: {path}")
    if not passed:
        print(f"FAIL: float32 agreement below {FLOAT32_TARGET} (or not run)", file=sys.stderr)
    return 0 if passed else 1


if __name__ == "__main__":
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    sys.exit(main())
