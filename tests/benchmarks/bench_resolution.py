"""Can G-Vendi tell a 1-domain set from a 16-domain set, and at what set size?

Real text: Python docstrings as prompt/response pairs (:mod:`tests.benchmarks.docstrings`).
Two pools of ``--pool`` pairs each: pool A from the single largest domain, pool B spread
evenly over the 16 largest domains. For each pool the G-Vendi features (the bundled
SmolLM2 proxy, ``GradientFeaturizer(mode="fast", max_length=256, device="cpu")``) and the
MiniLM sentence embeddings (the bundled embedder, of ``prompt + "\\n\\n" + response``) are
computed once and cached as ``.npy`` files in the temporary folder (``--cache``), so reruns
only redo the scoring.

Then for each set size ``n`` and ``--draws`` seeded draws, a subset of ``n`` rows of each
pool (pool B subsets stay balanced over its 16 domains) is scored with the core Vendi
functions, and per ``n`` the benchmark reports, for G-Vendi and embedding-Vendi: the mean
and sd of the score on 1-domain and on 16-domain subsets, the separation ``(mean_B -
mean_A) / pooled sd``, the effective fraction ``score / n``, the mean off-diagonal cosine, the
uniform-similarity bound and the random reference at ``(n, mean cosine, d)`` and the score
over that reference (:mod:`vendiscope.core.metrics.algorithms.resolution`). Then the user's test:
48- and
200-row sets over 1, 2, 4, 8, 16 domains and the Spearman of the score against the count.
Gradient rows are computed for the two pools in turns; ``--available`` scores the rows both
pools have in the cache (the run in docs/benchmarks.md stopped at 450 each). At ``n`` equal
to the pool size every draw is the whole pool (sd 0). Results go to
``tests/benchmarks/results/resolution.json``.

    .venv/bin/python tests/benchmarks/bench_resolution.py            # features + study
    .venv/bin/python tests/benchmarks/bench_resolution.py --features-only
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.benchmarks._common import save

SIZES = (25, 50, 100, 200, 400, 1000)
CHUNK = 50  # rows featurised per call, saved as they come (a crash keeps what is done)
KEYS = ("score", "fraction", "mean_cosine", "uniform_reference", "reference", "ratio")
DRAW = 1000  # pairs drawn per pool; ``--pool`` featurises the first ones (the cache is shared)


def pools(size: int) -> dict[str, list[dict[str, str]]]:
    """Pool A (the largest domain) and pool B (16 domains, evenly), ``size`` pairs each."""
    from tests.benchmarks.docstrings import draw, harvest

    pairs = harvest()
    return {"A": draw(pairs, size, domains=1, seed=0), "B": draw(pairs, size, domains=16, seed=0)}


def _cached(path: Path, rows: int, compute: Any, label: str) -> np.ndarray:
    """Rows ``[0, rows)`` of a feature matrix, computed ``CHUNK`` at a time and kept in ``path``."""
    done = np.load(path) if path.is_file() else None
    parts = [done] if done is not None else []
    have = 0 if done is None else len(done)
    started = time.perf_counter()
    while have < rows:
        stop = min(rows, have + CHUNK)
        parts.append(np.asarray(compute(have, stop), dtype=np.float32))
        have = stop
        matrix = np.concatenate(parts)
        tmp = path.with_suffix(".tmp.npy")
        np.save(tmp, matrix)
        tmp.replace(path)
        parts = [matrix]
        rate = (stop - (0 if done is None else len(done))) / (time.perf_counter() - started)
        print(f"  {label}: {have}/{rows} rows ({rate:.2f} rows/s)", flush=True)
    return np.load(path)[:rows]


def features(size: int, cache: Path, *, available: bool = False) -> dict[str, dict[str, Any]]:
    """``{"A"|"B": {"gradients", "embeddings", "domains"}}`` for the two pools (cached).

    With ``available`` no gradients are computed: both pools are cut to the rows that both
    have in the cache.
    """
    import torch

    from vendiscope.core.base.jobs import CancelToken, NullProgress

    torch.set_num_threads(1)
    cache.mkdir(parents=True, exist_ok=True)
    drawn = {name: records[:size] for name, records in pools(DRAW).items()}
    embedder = None
    out: dict[str, dict[str, Any]] = {}
    for name, records in drawn.items():
        texts = [r["prompt"] + "\n\n" + r["response"] for r in records]
        plain = [{"prompt": r["prompt"], "response": r["response"]} for r in records]

        def embed(a: int, b: int, texts: list[str] = texts) -> np.ndarray:
            nonlocal embedder
            if embedder is None:
                from vendiscope.plugins.embedders.sentence_transformers import (
                    SentenceTransformerEmbedder,
                )

                embedder = SentenceTransformerEmbedder(device="cpu")
            return embedder.embed(texts[a:b], progress=NullProgress(), cancel=CancelToken())

        out[name] = {
            "embeddings": _cached(cache / f"emb-{name}-{DRAW}.npy", size, embed, f"emb {name}"),
            "domains": np.array([r["domain"] for r in records]),
        }
    # gradients: the two pools in turns, a chunk at a time, so that whatever is done when
    # the run is stopped is balanced; ``available`` uses what is cached and computes nothing
    paths = {name: cache / f"grad-{name}-{DRAW}.npy" for name in drawn}

    def have(name: str) -> int:
        return len(np.load(paths[name], mmap_mode="r")) if paths[name].is_file() else 0

    while not available and min(map(have, drawn)) < size:
        name = min(drawn, key=lambda k: (have(k), k))
        plain = [{"prompt": r["prompt"], "response": r["response"]} for r in drawn[name]]
        _cached(
            paths[name],
            min(size, have(name) + CHUNK),
            lambda a, b, plain=plain: grads_of(a, b, plain),
            f"gradients {name}",
        )
    rows = min(size, *map(have, drawn))
    for name in drawn:
        out[name] = {
            "gradients": np.load(paths[name])[:rows],
            "embeddings": out[name]["embeddings"][:rows],
            "domains": out[name]["domains"][:rows],
        }
    return out


_FEATURIZER: Any = None


def grads_of(a: int, b: int, plain: list[dict[str, str]]) -> np.ndarray:
    """G-Vendi rows of ``plain[a:b]`` with the bundled proxy (fast mode, CPU, 256 tokens)."""
    global _FEATURIZER
    from vendiscope.core.base.jobs import CancelToken, NullProgress

    if _FEATURIZER is None:
        from vendiscope.plugins.featurizers.gradients import GradientFeaturizer

        _FEATURIZER = GradientFeaturizer(mode="fast", max_length=256, device="cpu")
    return _FEATURIZER.featurize(plain[a:b], progress=NullProgress(), cancel=CancelToken())


def subset(domains: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` row indices spread evenly over the domains present (sorted by name)."""
    names = sorted(set(domains.tolist()))
    picked = []
    for i, name in enumerate(names):
        share = n // len(names) + (1 if i < n % len(names) else 0)
        where = np.flatnonzero(domains == name)
        picked.append(rng.choice(where, size=min(share, len(where)), replace=False))
    return np.sort(np.concatenate(picked))


def measure(rows: np.ndarray) -> dict[str, float]:
    """Score, fraction, mean cosine, the uniform reference and the verdict level of ``rows``."""
    from vendiscope.core.metrics.algorithms import resolution, vendi

    n, d = rows.shape
    score = vendi.vendi_score(rows)
    found = resolution.resolution_details(score, n, resolution.column_sum(rows), d=d)
    return {
        "score": score,
        "fraction": found["effective_fraction"],
        "mean_cosine": found["mean_cosine"],
        "uniform_reference": found["uniform_reference"],
        "reference": found["random_reference"],
        "ratio": found["reference_ratio"],
        "level": found["verdict"]["level"],
    }


def _stats(values: list[float]) -> dict[str, float]:
    array = np.asarray(values, dtype=np.float64)
    return {"mean": float(array.mean()), "sd": float(array.std(ddof=1)) if len(array) > 1 else 0.0}


def separation(a: dict[str, float], b: dict[str, float]) -> float | None:
    """``(mean_b - mean_a) / pooled sd`` (``None`` when both sds are 0)."""
    pooled = math.sqrt((a["sd"] ** 2 + b["sd"] ** 2) / 2)
    return (b["mean"] - a["mean"]) / pooled if pooled > 0 else None


def study(feats: dict[str, dict[str, Any]], pool: int, draws: int) -> dict[str, Any]:
    """Score ``draws`` seeded subsets of each size of each pool; the per-size summary."""
    out: dict[str, Any] = {
        "pool": pool,
        "draws": draws,
        "pool_domains": {k: sorted(set(v["domains"].tolist())) for k, v in feats.items()},
        "sizes": {},
    }
    for n in [size for size in SIZES if size < pool] + [pool]:
        whole = n >= pool
        row: dict[str, Any] = {"n": n, "whole_pool": whole}
        for kind in ("gradients", "embeddings"):
            raw: dict[str, list[dict[str, float]]] = {"A": [], "B": []}
            for seed in range(1 if whole else draws):
                for name in ("A", "B"):
                    rng = np.random.default_rng([n, seed, ord(name)])
                    index = subset(feats[name]["domains"], n, rng)
                    raw[name].append(measure(feats[name][kind][index]))
            summary: dict[str, Any] = {"raw": raw}
            for key in KEYS:
                a = _stats([m[key] for m in raw["A"]])
                b = _stats([m[key] for m in raw["B"]])
                summary[key] = {"A": a, "B": b, "separation": separation(a, b)}
            summary["levels"] = {
                name: sorted({m["level"] for m in raw[name]}) for name in ("A", "B")
            }
            row[kind] = summary
        out["sizes"][str(n)] = row
        g, e = row["gradients"], row["embeddings"]
        print(
            f"n={n:5d}  G-Vendi A {g['score']['A']['mean']:7.1f} ± {g['score']['A']['sd']:5.1f}"
            f"  B {g['score']['B']['mean']:7.1f} ± {g['score']['B']['sd']:5.1f}"
            f"  sep {_fmt(g['score']['separation'])}  mu {g['mean_cosine']['A']['mean']:.3f}/"
            f"{g['mean_cosine']['B']['mean']:.3f}  ratio {g['ratio']['A']['mean']:.3f}/"
            f"{g['ratio']['B']['mean']:.3f} | emb A {e['score']['A']['mean']:6.1f}"
            f"  B {e['score']['B']['mean']:6.1f}  sep {_fmt(e['score']['separation'])}"
            f"  ratio {e['ratio']['A']['mean']:.3f}/{e['ratio']['B']['mean']:.3f}",
            flush=True,
        )
    return out


def domain_counts(
    feats: dict[str, dict[str, Any]], n: int = 48, draws: int = 10, counts=(1, 2, 4, 8, 16)
) -> dict[str, Any]:
    """The user's test: ``n``-row sets over ``k`` domains, Spearman of the score against ``k``.

    ``k = 1`` draws from pool A; larger ``k`` from the ``k`` domains of pool B with the most
    rows (ties by name), evenly; a ``k`` whose domains are too small for ``n`` is skipped.
    """
    from scipy.stats import spearmanr

    labels = feats["B"]["domains"]
    names = sorted(set(labels.tolist()), key=lambda d: (-int((labels == d).sum()), d))
    out: dict[str, Any] = {"n": n, "draws": draws, "counts": []}
    for k in counts:
        if k == 1 or min((labels == d).sum() for d in names[:k]) >= -(-n // k):
            out["counts"].append(k)
    for kind in ("gradients", "embeddings"):
        ks, scores, found = [], [], {}
        for k in out["counts"]:
            pool = feats["A"] if k == 1 else feats["B"]
            where = np.flatnonzero(np.isin(pool["domains"], names[:k]) | (k == 1))
            per_k = []
            for seed in range(draws):
                rng = np.random.default_rng([n, seed, k, 7])
                index = where[subset(pool["domains"][where], n, rng)]
                assert len(index) == n
                per_k.append(measure(pool[kind][index]))
                ks.append(k)
                scores.append(per_k[-1]["score"])
            found[str(k)] = {key: _stats([m[key] for m in per_k]) for key in KEYS}
        rho = float(spearmanr(ks, scores).statistic)
        out[kind] = {"by_domains": found, "spearman": rho}
        print(
            f"n={n} {kind}: spearman vs domains {rho:.2f}; "
            + ", ".join(f"k={k}: {found[str(k)]['score']['mean']:.1f}" for k in out["counts"]),
            flush=True,
        )
    return out


def _fmt(value: float | None) -> str:
    return "  n/a" if value is None else f"{value:5.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pool", type=int, default=1000, help="pairs per pool")
    parser.add_argument("--draws", type=int, default=10, help="seeded draws per set size")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "resolution")
    parser.add_argument("--features-only", action="store_true")
    parser.add_argument(
        "--available", action="store_true", help="score the cached gradient rows, compute none"
    )
    args = parser.parse_args()
    started = time.perf_counter()
    feats = features(args.pool, args.cache, available=args.available)
    pool = len(feats["A"]["gradients"])
    print(f"features ready in {time.perf_counter() - started:.0f} s", flush=True)
    if args.features_only:
        return
    results = study(feats, pool, args.draws)
    results["domain_counts"] = [
        domain_counts(feats, n=n, draws=args.draws) for n in (48, 200) if n < pool
    ]
    path = save("resolution", results)
    print(f"saved {path}")


if __name__ == "__main__":
    main()
