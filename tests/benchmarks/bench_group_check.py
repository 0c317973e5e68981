"""The resolution check on real groups: does each score tell 16 real sections apart, by size?

Pool B of the gradient ablation (``--pool`` rows spread over the 16 largest groups of a
corpus, features from its cache: run ``bench_gradient_ablation`` first) is treated as a
user's dataset whose sources are the groups. For each size the product's check
(:func:`vendiscope.core.metrics.algorithms.group_check.check`) runs on the rows: concentrated
against
mixed draws, the exact permutation p-value, the level. Its size is normally half the rows;
here each size of ``--sizes`` is checked on a seeded sample of twice that many rows.

    .venv/bin/python -m tests.benchmarks.bench_group_check --corpus debian --pool 1024

Results: ``tests/benchmarks/results/group_check-CORPUS.json``; see ``docs/gvendi.md``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.benchmarks._common import save
from tests.benchmarks.bench_gradient_ablation import features_of

SETTINGS = ("all (paper)", "no vocab (all but embedding/head)", "last 4 blocks", "last 8 blocks")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", choices=("docstrings", "debian"), default="debian")
    parser.add_argument("--pool", type=int, default=1024)
    parser.add_argument("--sizes", default="32,64,128,256,512")
    parser.add_argument("--draws", type=int, default=16, help="draws per side (as the product)")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/vendiscope-ablation"))
    args = parser.parse_args()

    from tests.benchmarks import corpora
    from vendiscope.core.metrics.algorithms import group_check

    drawn = corpora.draw(corpora.load(args.corpus), args.pool, groups=16, seed=0)
    tag = f"{args.corpus}-B-{args.pool}"
    groups = dict(np.load(args.cache / f"grad-{tag}.npz"))
    if len(groups["vocab"]) < len(drawn):
        raise SystemExit(f"features of {tag} are incomplete: run bench_gradient_ablation first")
    every = np.arange(len(drawn))
    unit = {name: features_of(name, groups, every, centre=False) for name in SETTINGS}
    embedded = np.load(args.cache / f"emb-{tag}.npy").astype(np.float64)
    unit["embedding-Vendi"] = embedded / np.linalg.norm(embedded, axis=1, keepdims=True)
    labels = np.array([r["group"] for r in drawn])
    texts = [r["prompt"] + "\n\n" + r["response"] for r in drawn]
    out: dict[str, Any] = {}
    for size in [int(s) for s in args.sizes.split(",")]:
        if 2 * size > len(drawn):
            continue
        sample = np.sort(np.random.default_rng(size).choice(len(drawn), 2 * size, replace=False))
        by_group = {g: sample[labels[sample] == g].tolist() for g in np.unique(labels[sample])}
        out[size] = {}
        for name, rows in unit.items():
            found = group_check.check(
                lambda chosen, rows=rows: rows[chosen], by_group, metric=name,
                groups_from="sections", draws=args.draws,
            )  # fmt: skip
            out[size][name] = {k: found[k] for k in ("n", "ratio", "separation_sd", "p_value",
                                                     "level")}  # fmt: skip
            print(f"n = {size:4d} {name:36s} ratio {found['ratio']:.3f} "
                  f"p {found['p_value']:.2g} {found['level']}", flush=True)  # fmt: skip
        lexical = _lexical_check(texts, by_group, size, args.draws)
        out[size]["distinct-2-grams"] = lexical
        print(f"n = {size:4d} {'distinct-2-grams':36s} ratio {lexical['ratio']:.3f} "
              f"p {lexical['p_value']:.2g} {lexical['level']}", flush=True)  # fmt: skip
    setup = vars(args) | {"cache": str(args.cache)}
    save(f"group_check-{args.corpus}-{args.draws}", {"setup": setup, "checks": out})


def _lexical_check(
    texts: list[str], by_group: dict[str, list[int]], n: int, draws: int
) -> dict[str, Any]:
    """The same draws and test for the distinct-2-gram ratio (no vectors)."""
    from vendiscope.core.metrics.algorithms import group_check
    from vendiscope.core.studies.algorithms.lexical import distinct_n

    members = [np.asarray(p) for p in by_group.values()]
    everything = np.sort(np.concatenate(members))
    rng = np.random.default_rng(0)
    mixed, concentrated = [], []
    for _ in range(draws):
        chosen = np.sort(rng.choice(everything, size=n, replace=False))
        mixed.append(distinct_n([texts[i] for i in chosen], 2))
        chosen = group_check.concentrated_draw(members, n, rng)
        concentrated.append(distinct_n([texts[i] for i in chosen], 2))
    p = group_check.permutation_p(mixed, concentrated)
    ratio = float(np.mean(mixed) / np.mean(concentrated))
    pooled = float(np.sqrt((np.var(mixed, ddof=1) + np.var(concentrated, ddof=1)) / 2))
    return {
        "n": n, "ratio": ratio, "p_value": p,
        "separation_sd": (np.mean(mixed) - np.mean(concentrated)) / pooled if pooled else None,
        "level": "resolves" if p <= group_check.ALPHA and ratio > 1 else "does_not",
    }  # fmt: skip


if __name__ == "__main__":
    main()
