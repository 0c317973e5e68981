"""Per-example gradient features of SmolLM2-135M-Instruct (G-Vendi) on the CPU.

Examples of exactly 128 tokens are built from demo records (chat template; prompts of the
following records are appended until the example is long enough, then the start of the
prompt is cut). Throughput, in examples per second, of:

(a) the reference-style loop: one example per backward pass, all 134.5M parameters, the
    gradient flattened and projected to d = 1024 with TRAK's ``BasicProjector``
    (Rademacher, seed 0). A projection to 1024 dimensions draws 1024 x 134.5M random signs
    per call, which takes about half an hour on two cores and a ``P x block`` matrix (54 GiB at
    TRAK's default block of 100), so it is run for real with ``proj_dim = 2 * block`` and
    ``block`` small (both blocks redrawn per call, as at d = 1024) and scaled linearly to
    1024 (the projector loops over blocks; each costs the same). The handful of examples is
    projected in **one** call, amortising the draws over them — the most favourable
    reading for the reference;
(b) the bare per-example backward loop, gradient flattened, no projection;
(c) Vendiscope mode "exact" (one backward per example + count-sketch);
(d) Vendiscope mode "fast" (LoGra-style, default batch size);
(e) the same with ``precision="bfloat16"`` (CPU autocast; what "auto" picks on CPUs with
    native bf16: (d) names float32 to measure it apart).

Then the agreement of G-Vendi (Vendi, q = 1, of the unit rows) between fast and exact on the
same demo records (as many as exact mode finishes within ``--agreement-minutes``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.benchmarks._common import save

DEMO = Path(__file__).resolve().parents[2] / "vendiscope" / "resources" / "demo" / "demo.jsonl"


def vendi(rows: np.ndarray) -> float:
    """Vendi (q = 1) of unit rows, dual form: exp entropy of the eigenvalues of X^T X / n."""
    x = np.asarray(rows, dtype=np.float64)
    gram = x.T @ x if x.shape[1] <= x.shape[0] else x @ x.T
    eig = np.clip(np.linalg.eigvalsh(gram / len(x)), 0.0, None)
    eig = eig[eig > 1e-12]
    return float(np.exp(-(eig * np.log(eig)).sum()))


def demo_records() -> list[dict[str, Any]]:
    return [json.loads(line) for line in DEMO.read_text().splitlines() if line.strip()]


def examples_of_length(tokenizer: Any, records: list[dict[str, Any]], n: int, length: int):
    """``n`` records whose rendering has at least ``length`` tokens, and their encodings."""
    from vendiscope.core.gradients.render import encode_examples

    out = []
    for i in range(n):
        record = {"prompt": records[i]["prompt"], "response": records[i]["response"]}
        j = i
        while (
            len(encode_examples(tokenizer, [record], max_length=10**6, chat_template=True)[0])
            < length
        ):
            j += 1
            record["prompt"] += "\n\n" + records[j % len(records)]["prompt"]
        out.append(record)
    encoded = encode_examples(tokenizer, out, max_length=length, chat_template=True)
    assert {len(e) for e in encoded} == {length}
    return out, encoded


def backward_flat(model: Any, example: Any, parameters: list[torch.Tensor]) -> torch.Tensor:
    """One example's loss (mean CE over its response), backward, all gradients flattened."""
    ids = torch.tensor([example.input_ids])
    labels = torch.tensor([example.labels])
    model(input_ids=ids, labels=labels, use_cache=False).loss.backward()
    flat = torch.cat([p.grad.reshape(-1) for p in parameters])
    model.zero_grad(set_to_none=True)
    return flat


def bare_loop(model: Any, encoded: list[Any]) -> tuple[float, list[torch.Tensor]]:
    """Seconds for (b) on ``encoded``, and the flattened gradients."""
    parameters = list(model.parameters())
    model.requires_grad_(True)
    try:
        flats = []
        started = time.perf_counter()
        for example in encoded:
            flats.append(backward_flat(model, example, parameters))
        seconds = time.perf_counter() - started
    finally:
        model.requires_grad_(False)
    return seconds, flats


def trak_projection(flats: list[torch.Tensor], block: int) -> dict[str, Any]:
    """Seconds TRAK's BasicProjector needs to project ``flats`` to 1024 dims (from 2 blocks)."""
    grads = torch.stack(flats)
    try:
        from trak.projectors import BasicProjector, ProjectionType

        kind = "trak.projectors.BasicProjector"
        projector = BasicProjector(
            grad_dim=grads.shape[1],
            proj_dim=2 * block,
            seed=0,
            proj_type=ProjectionType.rademacher,
            device=torch.device("cpu"),
            block_size=block,
        )
        project = lambda: projector.project(grads, model_id=0)  # noqa: E731
    except ImportError:  # our reimplementation of the same loop (labelled in the results)
        kind = "own reimplementation of BasicProjector (traker not importable)"

        def project() -> torch.Tensor:
            matrix = torch.empty(grads.shape[1], block)
            out = torch.zeros(grads.shape[0], 2 * block)
            for number in range(2):
                gen = torch.Generator().manual_seed(number * 1000)
                matrix.bernoulli_(0.5, generator=gen).mul_(2).sub_(1)
                out[:, number * block : (number + 1) * block] = grads @ matrix
            return out

    started = time.perf_counter()
    project()
    two_blocks = time.perf_counter() - started
    per_call_1024 = two_blocks * 1024 / (2 * block)
    return {
        "projector": kind,
        "block_size": block,
        "examples_per_call": len(flats),
        "measured_seconds_for_2_blocks": two_blocks,
        "seconds_per_call_at_d1024": per_call_1024,
    }


def timed(engine: Any, records: list[dict[str, Any]]) -> float:
    started = time.perf_counter()
    rows = engine.features(records)
    assert rows.shape == (len(records), engine.projector.dim)
    return time.perf_counter() - started


def agreement(model: Any, tokenizer: Any, n: int, minutes: float) -> dict[str, Any]:
    from vendiscope.core.gradients.features import GradientEngine

    records = [{"prompt": r["prompt"], "response": r["response"]} for r in demo_records()[:n]]
    exact = GradientEngine(model, tokenizer, mode="exact")
    rows, started = [], time.perf_counter()
    for start in range(0, len(records), 8):
        rows.append(exact.features(records[start : start + 8]))
        elapsed = time.perf_counter() - started
        print(f"  exact: {start + len(rows[-1])} examples, {elapsed:.0f} s", flush=True)
        if elapsed > minutes * 60:
            break
    exact_rows = np.concatenate(rows)
    exact_seconds = time.perf_counter() - started
    done = len(exact_rows)
    started = time.perf_counter()
    fast_rows = GradientEngine(model, tokenizer, mode="fast").features(records[:done])
    fast_seconds = time.perf_counter() - started
    exact_kernel, fast_kernel = exact_rows @ exact_rows.T, fast_rows @ fast_rows.T
    off = ~np.eye(done, dtype=bool)
    g_exact, g_fast = vendi(exact_rows), vendi(fast_rows)
    return {
        "records": done,
        "asked": n,
        "exact_seconds": exact_seconds,
        "fast_seconds": fast_seconds,
        "g_vendi_exact": g_exact,
        "g_vendi_fast": g_fast,
        "relative_difference": (g_fast - g_exact) / g_exact,
        "kernel_mean_abs_difference": float(np.abs(exact_kernel - fast_kernel)[off].mean()),
        "kernel_mean_abs_offdiagonal": float(np.abs(exact_kernel)[off].mean()),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=4, help="interleaved measuring rounds")
    parser.add_argument("--bare-per-round", type=int, default=2)
    parser.add_argument("--exact-per-round", type=int, default=2)
    parser.add_argument("--fast-per-round", type=int, default=16, help="one default batch")
    parser.add_argument("--no-bf16", action="store_true", help="skip (e)")
    parser.add_argument("--reference-examples", type=int, default=4)
    parser.add_argument("--trak-block", type=int, default=4)
    parser.add_argument("--agreement", type=int, default=256)
    parser.add_argument("--agreement-minutes", type=float, default=10.0)
    args = parser.parse_args()

    from vendiscope.core.gradients.features import GradientEngine
    from vendiscope.core.gradients.proxy import load_proxy

    started = time.perf_counter()
    model, tokenizer, info = load_proxy(None)
    results: dict[str, Any] = {
        "model": info["model"],
        "n_parameters": info["n_parameters"],
        "load_seconds": time.perf_counter() - started,
        "tokens_per_example": 128,
        "torch_threads": torch.get_num_threads(),
        "rounds": args.rounds,
    }
    per_round = {"b": args.bare_per_round, "c": args.exact_per_round, "d": args.fast_per_round}
    if not args.no_bf16:
        per_round["e"] = args.fast_per_round
    n = max(args.reference_examples, args.rounds * max(per_round.values()))
    records, encoded = examples_of_length(tokenizer, demo_records(), n, 128)
    print(f"{info['model']}: {info['n_parameters']:,} parameters; {n} examples of 128 tokens")

    exact = GradientEngine(model, tokenizer, mode="exact", max_length=128)
    fast = GradientEngine(model, tokenizer, mode="fast", max_length=128, precision="float32")
    bf16 = GradientEngine(model, tokenizer, mode="fast", max_length=128, precision="bfloat16")
    warm = time.perf_counter()
    exact.features(records[:1])  # builds the count-sketch codes of 134.5M coordinates once
    results["exact_setup_seconds"] = time.perf_counter() - warm
    fast.features(records[:2])
    bf16.features(records[:2])
    bare_loop(model, encoded[:1])

    # Interleaved rounds: the machine is shared, so each round measures every method
    # back to back and the ratios are taken within rounds (median) as well as over totals.
    seconds: dict[str, list[float]] = {k: [] for k in per_round}
    for r in range(args.rounds):
        pick = {k: slice(r * m, (r + 1) * m) for k, m in per_round.items()}
        seconds["b"].append(bare_loop(model, encoded[pick["b"]])[0])
        seconds["c"].append(timed(exact, records[pick["c"]]))
        seconds["d"].append(timed(fast, records[pick["d"]]))
        if "e" in per_round:
            seconds["e"].append(timed(bf16, records[pick["e"]]))
        line = ", ".join(f"{k} {seconds[k][-1] / per_round[k]:.2f} s/ex" for k in seconds)
        print(f"round {r + 1}: {line}", flush=True)
    per_example = {k: [s / per_round[k] for s in v] for k, v in seconds.items()}
    total = {k: sum(v) / (per_round[k] * args.rounds) for k, v in seconds.items()}

    # (a): the same backward loop, plus TRAK's projection of a handful of gradients in one call.
    backward_s, flats = bare_loop(model, encoded[: args.reference_examples])
    projection = trak_projection(flats, args.trak_block)
    del flats
    handful = args.reference_examples
    reference_s = total["b"] + projection["seconds_per_call_at_d1024"] / handful
    results["a_reference"] = {
        **projection,
        "backward_seconds_per_example": backward_s / handful,
        "seconds_per_example": reference_s,
        "seconds_per_example_one_call_per_example": total["b"]
        + projection["seconds_per_call_at_d1024"],
    }
    names = {"b": "b_bare_loop", "c": "c_exact", "d": "d_fast", "e": "e_fast_bf16"}
    names = {k: v for k, v in names.items() if k in per_round}
    for key, name in names.items():
        results[name] = {
            "examples": per_round[key] * args.rounds,
            "seconds_per_example": total[key],
            "per_round_seconds_per_example": per_example[key],
        }
    results["d_fast"]["batch_size"] = fast.batch_size
    results["d_fast"]["describe"] = fast.describe()
    results["c_exact"]["describe"] = exact.describe()
    rate = {
        "a_reference": 1 / reference_s,
        **{names[k]: 1 / total[k] for k in names},
    }
    results["examples_per_second"] = rate
    paired = lambda top, bottom: float(  # noqa: E731
        np.median([per_example[bottom][i] / per_example[top][i] for i in range(args.rounds)])
    )
    results["ratios"] = {
        "fast_over_a": rate["d_fast"] / rate["a_reference"],
        "fast_over_b": rate["d_fast"] / rate["b_bare_loop"],
        "fast_over_b_median_of_rounds": paired("d", "b"),
        "exact_over_a": rate["c_exact"] / rate["a_reference"],
        "exact_over_b": rate["c_exact"] / rate["b_bare_loop"],
        "exact_over_b_median_of_rounds": paired("c", "b"),
    }
    if "e" in per_round:
        results["ratios"]["fast_bf16_over_b"] = rate["e_fast_bf16"] / rate["b_bare_loop"]
        results["ratios"]["fast_bf16_over_b_median_of_rounds"] = paired("e", "b")
        rows = records[: args.fast_per_round]
        cosines = (fast.features(rows) * bf16.features(rows)).sum(axis=1)
        results["e_fast_bf16"]["row_cosine_to_float32_min"] = float(cosines.min())
    print(json.dumps(results["ratios"], indent=2), flush=True)
    del exact, fast, bf16

    if args.agreement:
        print(f"G-Vendi agreement on up to {args.agreement} demo records…", flush=True)
        results["agreement"] = agreement(model, tokenizer, args.agreement, args.agreement_minutes)
    path = save("gradients_smollm2_cpu", results)
    print(json.dumps(results, indent=2, default=str))
    print(f"saved {path}")


if __name__ == "__main__":
    main()
