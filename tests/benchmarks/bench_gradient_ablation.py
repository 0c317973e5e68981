"""Which gradient tells real groups apart? Every parameter subset from one backward pass.

Real text with known groups (:mod:`tests.benchmarks.corpora`: docstrings by package, Debian
package descriptions by section). Pool A: ``--pool`` rows of the largest group; pool B:
``--pool`` rows spread evenly over the 16 largest groups. Each row is rendered as G-Vendi
renders it (chat template, loss on the response and the end-of-turn tokens) and goes once
through the bundled SmolLM2 proxy in fast mode (LoGra); the Kronecker-projected block of
every weight is count-sketched to ``d = 1024`` **per parameter group** and kept unnormalised:

    vocab        the tied input embedding / output head
    attnNN mlpNN the attention and MLP linear layers of block NN
    small        the norms (exact per-example gradients)

The count-sketch is linear and keyed by parameter name, so the sum of a subset of groups is
exactly the sketch of that subset's gradient: every "gradient made of X" below is the sum of
its groups, then optionally centred on the set's mean, then L2-normalised, then scored
(Vendi, q = 1). "all" at d = 4096 and 8192, and "no-vocab" at 4096, are sketched too.

For each setting and each n up to half the pool, ``--draws`` seeded draws of n rows from A
and from B: the ratio
mean(B) / mean(A) and the separation (mean(B) - mean(A)) / pooled sd. Rank agreement with
the paper's definition ("all", d = 1024, not centred): Spearman over ``--mixes`` subsets of
n rows mixing A and B in random proportions. Embedding-Vendi (bundled MiniLM) and the
distinct-2-gram ratio are scored on the same draws. Features are cached in ``--cache``
(resumable: kill and rerun); results go to ``tests/benchmarks/results/ablation-CORPUS.json``.

    .venv/bin/python -m tests.benchmarks.bench_gradient_ablation --corpus docstrings --pool 512
    .venv/bin/python -m tests.benchmarks.bench_gradient_ablation --corpus debian --pool 512

A per-token-mean and a summed loss give the same rows: an example's summed-loss gradient is
its mean-loss gradient times its token count, and each row is normalised (centring aside).
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.benchmarks._common import save

SIZES = (64, 128, 256, 512, 1024, 2048)
CHUNK = 32
BLOCKS = 30  # SmolLM2-135M


def group_of(key: str) -> str:
    """The parameter group of a weight's key (see the module docstring)."""
    if "embed_tokens" in key or "lm_head" in key:
        return "vocab"
    found = re.search(r"layers\.(\d+)\.(self_attn|mlp)\.", key)
    if found and found[2] == "self_attn":
        return f"attn{int(found[1]):02d}"
    if found:
        return f"mlp{int(found[1]):02d}"
    return "small"


GROUPS = ["vocab", "small", *[f"{k}{i:02d}" for i in range(BLOCKS) for k in ("attn", "mlp")]]
WIDE = {"all-4096": 4096, "all-8192": 8192, "novocab-4096": 4096}


def settings() -> dict[str, list[str]]:
    """Setting name -> the groups whose sum it is (d = 1024)."""
    linear = [g for g in GROUPS if g not in ("vocab", "small")]
    last = {n: [g for g in linear if int(g[-2:]) >= BLOCKS - n] for n in (2, 4, 8)}
    return {
        "all (paper)": GROUPS,
        "no vocab (all but embedding/head)": [g for g in GROUPS if g != "vocab"],
        "vocab only": ["vocab"],
        "linear layers": linear,
        "mlp only": [g for g in linear if g.startswith("mlp")],
        "attention only": [g for g in linear if g.startswith("attn")],
        "last 2 blocks": last[2],
        "last 4 blocks": last[4],
        "last 8 blocks": last[8],
        "first 8 blocks": [g for g in linear if int(g[-2:]) < 8],
    }


class Sketcher:
    """The bundled proxy in fast mode, giving per-group unnormalised sketches of rows."""

    def __init__(self, max_length: int) -> None:
        import torch

        from vendiscope.core.gradients.features import GradientEngine
        from vendiscope.core.gradients.proxy import load_proxy
        from vendiscope.core.gradients.sketch import Projector

        model, tokenizer, _ = load_proxy(None, device="cpu")
        self.engine = GradientEngine(model, tokenizer, mode="fast", max_length=max_length)
        self.wide = {name: Projector(d, seed=0) for name, d in WIDE.items()}
        self.torch = torch

    def rows(self, records: list[dict[str, str]]) -> dict[str, np.ndarray]:
        from vendiscope.core.gradients.batches import collate, length_buckets, pad_token_id

        engine = self.engine
        encoded = engine.encode(records)
        out: dict[str, np.ndarray] = {}
        for index in length_buckets([len(e) for e in encoded], 16, 4096):
            batch = collate(
                [encoded[i] for i in index], index, pad_id=pad_token_id(engine.tokenizer),
                device=engine.device,
            )  # fmt: skip
            for name, rows in self._batch(batch).items():
                out.setdefault(name, np.zeros((len(records), rows.shape[1]), np.float32))
                out[name][index] = rows
        return out

    def _batch(self, batch: Any) -> dict[str, np.ndarray]:
        from vendiscope.core.gradients.proxy import parameter_scope

        engine = self.engine
        with parameter_scope(engine.model, None):
            blocks = engine.logra.layer_blocks(batch)
        named = {key: block.reshape(block.shape[0], -1) for key, block in blocks.items()}
        out: dict[str, np.ndarray] = {}
        for group in GROUPS:
            chosen = [(f"logra/{k}", v) for k, v in named.items() if group_of(k) == group]
            out[group] = engine.projector.project(chosen).cpu().numpy().astype(np.float32)
        for name, projector in self.wide.items():
            keep = [(f"logra/{k}", v) for k, v in named.items()
                    if name.startswith("all") or group_of(k) != "vocab"]  # fmt: skip
            out[name] = projector.project(keep).cpu().numpy().astype(np.float32)
        return out


def cached_features(records: list[dict[str, str]], path: Path, sketcher: Any) -> dict[str, Any]:
    """Per-group sketches of ``records``, computed ``CHUNK`` rows at a time into ``path``."""
    have: dict[str, np.ndarray] = dict(np.load(path)) if path.is_file() else {}
    done = len(have["vocab"]) if have else 0
    started, first = time.perf_counter(), done
    while done < len(records):
        stop = min(len(records), done + CHUNK)
        part = sketcher().rows(records[done:stop])
        have = {k: np.concatenate([have[k], v]) if k in have else v for k, v in part.items()}
        partial = path.with_suffix(".tmp.npz")
        np.savez(partial, **have)
        partial.replace(path)
        done = stop
        rate = (done - first) / (time.perf_counter() - started)
        print(f"  {path.name}: {done}/{len(records)} rows ({rate:.2f} rows/s)", flush=True)
    return have


def embeddings(records: list[dict[str, str]], path: Path) -> np.ndarray:
    if path.is_file():
        return np.load(path)
    from vendiscope.core.base.jobs import CancelToken, NullProgress
    from vendiscope.plugins.embedders.sentence_transformers import SentenceTransformerEmbedder

    texts = [r["prompt"] + "\n\n" + r["response"] for r in records]
    rows = SentenceTransformerEmbedder(device="cpu").embed(
        texts, progress=NullProgress(), cancel=CancelToken()
    )
    np.save(path, rows)
    return np.asarray(rows)


def features_of(setting: str, groups: dict[str, np.ndarray], rows: np.ndarray, *,
                centre: bool) -> np.ndarray:  # fmt: skip
    """Unit rows of ``setting`` for ``rows`` (centred on their own mean first, if asked)."""
    if setting in WIDE:
        x = groups[setting][rows].astype(np.float64)
    else:
        x = sum(groups[g][rows].astype(np.float64) for g in settings()[setting])
    if centre:
        x = x - x.mean(axis=0)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def vendi(x: np.ndarray) -> float:
    from vendiscope.core.metrics.algorithms.vendi import vendi_score

    return float(vendi_score(x, q=1.0))


def lexical(texts: list[str]) -> float:
    from vendiscope.core.studies.algorithms.lexical import distinct_n

    return distinct_n(texts, 2)


def separation(a: list[float], b: list[float]) -> tuple[float, float]:
    """mean(B) / mean(A), and (mean(B) - mean(A)) in pooled draw-sd."""
    sd = float(np.sqrt((np.var(a, ddof=1) + np.var(b, ddof=1)) / 2)) if len(a) > 1 else 0.0
    gap = float(np.mean(b) - np.mean(a))
    return float(np.mean(b) / np.mean(a)), (gap / sd if sd > 0 else float("inf"))


def study(pools: dict[str, Any], sizes: list[int], draws: int, mixes: int) -> dict[str, Any]:
    from scipy.stats import spearmanr

    names = [*settings(), *WIDE]
    scorers: dict[str, Any] = {}
    for name in names:
        for centre in (False, True):
            if centre and name in WIDE:
                continue
            label = name + (", centred" if centre else "")
            scorers[label] = lambda p, r, name=name, centre=centre: vendi(
                features_of(name, p["groups"], r, centre=centre)
            )
    scorers["embedding-Vendi"] = lambda p, r: vendi(p["embeddings"][r])
    scorers["distinct-2-grams"] = lambda p, r: lexical([p["texts"][i] for i in r])
    pool_size = min(len(pools["A"]["texts"]), len(pools["B"]["texts"]))
    out: dict[str, Any] = {"separation": {}, "agreement": {}}
    for n in [s for s in sizes if 2 * s <= pool_size]:  # draws from a pool of at least 2n
        rng = np.random.default_rng(n)
        picks = {k: [np.sort(rng.choice(pool_size, n, replace=False)) for _ in range(draws)]
                 for k in "AB"}  # fmt: skip
        row = {}
        for label, score in scorers.items():
            a = [score(pools["A"], r) for r in picks["A"]]
            b = [score(pools["B"], r) for r in picks["B"]]
            ratio, sds = separation(a, b)
            row[label] = {"A": float(np.mean(a)), "B": float(np.mean(b)), "ratio": ratio,
                          "sd": sds}  # fmt: skip
        out["separation"][n] = row
        print(f"n = {n}", flush=True)
        for label, found in row.items():
            print(f"  {label:45s} ratio {found['ratio']:.3f}  {found['sd']:+6.1f} sd", flush=True)
        # rank agreement with the paper's setting over mixed subsets of n rows
        mixed = []
        for _ in range(mixes):
            share = rng.uniform()
            from_b = round(share * n)
            mixed.append((np.sort(rng.choice(pool_size, n - from_b, replace=False)),
                          np.sort(rng.choice(pool_size, from_b, replace=False))))  # fmt: skip
        merged = _merge(pools)
        scores = {}
        for label, score in scorers.items():
            scores[label] = [score(merged, _joined(a, b, pool_size)) for a, b in mixed]
        paper = scores["all (paper)"]
        out["agreement"][n] = {
            label: float(spearmanr(paper, values).statistic) for label, values in scores.items()
        }
    return out


def _merge(pools: dict[str, Any]) -> dict[str, Any]:
    """Pool A's rows then pool B's, as one pool (for the mixed subsets)."""
    a, b = pools["A"], pools["B"]
    return {
        "groups": {k: np.concatenate([a["groups"][k], b["groups"][k]]) for k in a["groups"]},
        "embeddings": np.concatenate([a["embeddings"], b["embeddings"]]),
        "texts": a["texts"] + b["texts"],
    }


def _joined(from_a: np.ndarray, from_b: np.ndarray, pool_size: int) -> np.ndarray:
    return np.concatenate([from_a, from_b + pool_size])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", choices=("docstrings", "debian"), default="docstrings")
    parser.add_argument("--pool", type=int, default=512, help="rows per pool")
    parser.add_argument("--draws", type=int, default=8)
    parser.add_argument("--mixes", type=int, default=30)
    parser.add_argument("--max-length", type=int, default=256)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/vendiscope-ablation"))
    parser.add_argument("--features-only", action="store_true")
    args = parser.parse_args()

    import torch

    from tests.benchmarks import corpora

    torch.set_num_threads(2)
    args.cache.mkdir(parents=True, exist_ok=True)
    grouped = corpora.load(args.corpus)
    drawn = {
        "A": corpora.draw(grouped, args.pool, groups=1, seed=0),
        "B": corpora.draw(grouped, args.pool, groups=16, seed=0),
    }
    made: list[Sketcher] = []

    def sketcher() -> Sketcher:
        if not made:
            made.append(Sketcher(args.max_length))
        return made[0]

    pools: dict[str, Any] = {}
    for name in ("A", "B"):  # in turns, a chunk at a time: a stopped run stays balanced
        records = [{"prompt": r["prompt"], "response": r["response"]} for r in drawn[name]]
        tag = f"{args.corpus}-{name}-{args.pool}"
        pools[name] = {
            "groups": cached_features(records, args.cache / f"grad-{tag}.npz", sketcher),
            "embeddings": embeddings(drawn[name], args.cache / f"emb-{tag}.npy"),
            "texts": [r["prompt"] + "\n\n" + r["response"] for r in drawn[name]],
        }
    if args.features_only:
        return
    result = study(pools, list(SIZES), args.draws, args.mixes)
    result["setup"] = vars(args) | {"cache": str(args.cache), "groups_in_B": 16}
    save(f"ablation-{args.corpus}", result)


if __name__ == "__main__":
    main()
