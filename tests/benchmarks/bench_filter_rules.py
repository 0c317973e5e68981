"""Does the synthesis filter help? Filter rules against a random stream, on real gradients.

    .venv/bin/python tests/benchmarks/bench_filter_rules.py --dataset demo
    .venv/bin/python tests/benchmarks/bench_filter_rules.py --dataset docstrings [--rows 480]

A dataset's gradient rows are split into a **pool** and a stream of **candidates** (standing
in for a generator's output). Two splits: ``random`` (pool and candidates from the same
distribution), and ``skewed`` (the pool holds only a fifth of its share of a third of the
sources, so the candidates carry what the pool lacks). The pool is clustered as
``vendiscope cluster`` does (spherical k-means, ``k = N / 10``). Each rule reads the stream
in order and accepts rows until ``B`` are accepted (``B`` = 10% and 25% of the pool):

- ``none``: the first ``B`` candidates (the random baseline; also reported: ``B`` random
  candidates, mean of ``--draws`` draws);
- ``sparse-static``: the Prismatic rule as ``filter-candidates`` applies it (cluster sizes
  of the pool only);
- ``sparse-grow``: the same, but accepted rows count towards their cluster's size, so a
  cluster stops accepting once it reaches the median (``decide("sparse-cluster")``);
- ``gain>=T``: accept when the marginal G-Vendi gain on the pool plus the rows accepted so
  far is at least ``T`` (``decide("gain")``);
- ``gain>=median``: ``T`` is the running median of the gains of every candidate seen so far,
  and at least 0 (a threshold relative to what a random candidate adds; ``threshold=None``).

Reported per rule: ``Vendi(pool + accepted) - Vendi(pool)`` per accepted row, its ratio to
``none``, how many candidates were read per accepted row, and diagnostics of the accepted
rows (clusters hit, largest share of one cluster, mean pairwise cosine among them, mean
cosine to their nearest pool row).

Dataset ``demo`` reads the demo project's gradient vectors (fast mode, v1); ``docstrings``
featurizes ``--rows`` docstring pairs over 16 packages (:mod:`tests.benchmarks.docstrings`)
with the bundled SmolLM2 (``gradients`` featurizer, defaults) and caches the matrix in
``--cache`` (a ``.npy`` file).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.benchmarks._common import save

BATCH = 16


# --------------------------------------------------------------------------- data
def demo_rows() -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """The demo project's gradient rows, each row's source (an integer), its embeddings."""
    from vendiscope.core.io.demo import ensure_demo_project
    from vendiscope.core.store import vectors
    from vendiscope.core.store.project import Project
    from vendiscope.core.store.record_lookup import source_positions

    with tempfile.TemporaryDirectory() as folder:
        path = ensure_demo_project(Path(folder) / "demo.vscope")
        copy = Path(folder) / "copy.vscope"
        shutil.copy(path, copy)
        with Project.open(copy) as project:
            found = [s for s in vectors.complete_sets(project, "demo", "gradient")]
            rows = vectors.load(project, "demo", found[-1].name)
            embedded = vectors.complete_sets(project, "demo", "embedding")
            side = vectors.load(project, "demo", embedded[-1].name) if embedded else None
            positions = source_positions(project, "demo")
    sources = np.full(len(rows), -1, dtype=np.int64)
    for number, name in enumerate(sorted(positions)):
        sources[np.asarray(positions[name], dtype=np.int64)] = number
    return rows.astype(np.float32), sources, side


def docstring_rows(n: int, cache: Path) -> tuple[np.ndarray, np.ndarray, None]:
    """``n`` docstring pairs over 16 packages, featurized (cached in ``cache``)."""
    from tests.benchmarks.docstrings import draw, harvest

    records = draw(harvest(), n, domains=16, seed=0)
    names = sorted({r["domain"] for r in records})
    sources = np.array([names.index(r["domain"]) for r in records], dtype=np.int64)
    if cache.is_file():
        rows = np.load(cache)
        if len(rows) == n:
            return rows, sources, None
    from vendiscope.core.base.jobs import CancelToken, NullProgress
    from vendiscope.core.plugin_host.registry import default_registry

    featurizer = default_registry().create("featurizer", "gradients")
    started = time.perf_counter()
    rows = np.asarray(
        featurizer.featurize(
            [{"prompt": r["prompt"], "response": r["response"]} for r in records],
            progress=NullProgress(), cancel=CancelToken(),
        ),
        dtype=np.float32,
    )  # fmt: skip
    print(f"featurized {n} rows in {time.perf_counter() - started:.0f} s", flush=True)
    np.save(cache, rows)
    return rows, sources, None


def split(
    sources: np.ndarray, kind: str, pool_share: float, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Positions of the pool and of the candidate stream (in stream order), rare sources."""
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(sources))
    if kind == "random":
        cut = round(pool_share * len(order))
        return order[:cut], order[cut:], np.empty(0, dtype=np.int64)
    names = np.unique(sources)
    rare = rng.choice(names, size=max(1, len(names) // 3), replace=False)
    share = np.where(np.isin(sources[order], rare), pool_share / 5, pool_share)
    # a per-source quota: the first share * size rows of each source (in shuffled order)
    pool = []
    for name in names:
        mine = order[sources[order] == name]
        pool.extend(mine[: round(share[sources[order] == name][0] * len(mine))])
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    pool = np.array(sorted(pool, key=lambda p: rank[p]), dtype=np.int64)
    rest = order[~np.isin(order, pool)]
    return pool, rest[rng.permutation(len(rest))], rare


# --------------------------------------------------------------------------- rules
def run_rule(rule: str, state: Any, stream: np.ndarray, budget: int) -> tuple[list[int], int]:
    """Accept from ``stream`` (rows, in order) until ``budget``; return (accepted, read)."""
    from vendiscope.core.synthesis.algorithms.filters import decide

    accepted: list[int] = []
    read = 0
    static = state.sizes.copy()
    for start in range(0, len(stream), BATCH):
        batch = stream[start : start + BATCH]
        if rule == "none":
            take = min(len(batch), budget - len(accepted))
            decide("none", state, batch[:take])
            accepted.extend(range(start, start + take))
            read += take
        elif rule == "sparse-static":
            labels, _ = state.assign(batch)
            for i, label in enumerate(labels):
                read += 1
                if static[label] < state.median:
                    accepted.append(start + i)
                    state.add(batch[i : i + 1], labels[i : i + 1])
                    if len(accepted) == budget:
                        break
        else:
            name, threshold = (
                ("sparse-cluster", 0.0)
                if rule == "sparse-grow"
                else ("gain", None if rule == "gain>=median" else float(rule[6:]))
            )
            for i in range(len(batch)):  # one at a time: stop exactly at the budget
                read += 1
                if decide(name, state, batch[i : i + 1], threshold=threshold)[0].accepted:
                    accepted.append(start + i)
                    if len(accepted) == budget:
                        break
        if len(accepted) >= budget:
            break
    return accepted, read


def diagnostics(
    rows: np.ndarray, pool: np.ndarray, labels: np.ndarray, sparse: np.ndarray
) -> dict[str, float]:
    """Where accepted rows land and how alike they are."""
    if len(rows) == 0:
        return {}
    counts = np.bincount(labels)
    cos = rows @ rows.T
    pairs = cos[np.triu_indices(len(rows), 1)]
    return {
        "clusters_hit": int((counts > 0).sum()),
        "largest_cluster_share": float(counts.max() / len(rows)),
        "share_in_sparse": float(sparse[labels].mean()),
        "mean_pairwise_cosine": float(pairs.mean()) if pairs.size else float("nan"),
        "mean_nearest_pool_cosine": float((rows @ pool.T).max(axis=1).mean()),
    }


def experiment(
    rows: np.ndarray,
    sources: np.ndarray,
    side: np.ndarray | None,
    kind: str,
    args: argparse.Namespace,
) -> dict[str, Any]:
    from vendiscope.core.clusters.algorithms.kmeans import default_k, spherical_kmeans
    from vendiscope.core.metrics.algorithms.vendi import vendi_score
    from vendiscope.core.synthesis.algorithms.filters import PoolState

    unit = rows / np.linalg.norm(rows, axis=1, keepdims=True)
    pool_at, stream_at, rare = split(sources, kind, args.pool_share, args.seed)
    pool, stream = unit[pool_at], unit[stream_at]
    clustering = spherical_kmeans(pool, default_k(len(pool)), seed=0)
    base_state = PoolState.build(pool, clustering)
    base = base_state.vendi()
    sizes = clustering.sizes
    sparse = clustering.sparse
    stream_labels, stream_cos = base_state.assign(stream)
    pool_cos = clustering.cosine
    alone = base_state.gains(stream)  # each candidate's own gain on the pool
    report: dict[str, Any] = {
        "split": kind,
        "pool": len(pool),
        "candidates": len(stream),
        "k": int(clustering.n_clusters),
        "pool_vendi": base,
        "clusters": {
            "median_size": float(np.median(sizes)),
            "sparse_clusters": int(sparse.sum()),
            "singletons": int((sizes == 1).sum()),
            "empty": int((sizes == 0).sum()),
            "pool_rows_in_sparse": float(sparse[clustering.labels].mean()),
            "candidates_landing_in_sparse": float(sparse[stream_labels].mean()),
            "sparse_clusters_hit_by_candidates": int(
                np.unique(stream_labels[sparse[stream_labels]]).size
            ),
            "pool_cosine_to_centroid_sparse": float(pool_cos[sparse[clustering.labels]].mean()),
            "pool_cosine_to_centroid_dense": float(pool_cos[~sparse[clustering.labels]].mean()),
            "candidate_cosine_to_centroid_sparse": float(stream_cos[sparse[stream_labels]].mean()),
            "candidate_cosine_to_centroid_dense": float(stream_cos[~sparse[stream_labels]].mean()),
        },
        "rare_sources": rare.tolist(),
        "stream_share_from_rare_sources": float(np.isin(sources[stream_at], rare).mean()),
        "candidate_gain_quantiles": {
            f"{q:g}": float(np.quantile(alone, q)) for q in (0.1, 0.25, 0.5, 0.75, 0.9)
        },
        "candidate_gain_sparse_vs_dense": [
            float(alone[sparse[stream_labels]].mean()),
            float(alone[~sparse[stream_labels]].mean()),
        ],
        "budgets": {},
    }
    rng = np.random.default_rng(args.seed + 1)
    side_pool = None if side is None else side[pool_at]
    side_base = None if side is None else vendi_score(side_pool)

    def side_gain(picked: np.ndarray) -> float | None:
        """Embedding-Vendi gain per row (a metric no rule optimises), when there are embeddings."""
        if side is None or len(picked) == 0:
            return None
        added = side[stream_at[picked]]
        return (vendi_score(np.vstack([side_pool, added])) - side_base) / len(picked)

    # what `vendiscope filter-candidates` does: keep every candidate landing in a sparse
    # cluster, against as many random candidates
    kept = np.flatnonzero(sparse[stream_labels])
    draws = []
    for _ in range(args.draws):
        pick = rng.choice(len(stream), size=len(kept), replace=False)
        draws.append(base_state.vendi_with(stream[pick]))
    report["filter_candidates"] = {
        "kept": len(kept),
        "vendi_pool": base,
        "vendi_with_kept": base_state.vendi_with(stream[kept]),
        "vendi_with_random": float(np.mean(draws)),
    }
    # cluster size against cohesion: are small clusters loose outliers or tight groups?
    cohesion = np.array([
        pool_cos[clustering.labels == c].mean() if sizes[c] else np.nan
        for c in range(len(sizes))
    ])  # fmt: skip
    filled = sizes > 0
    report["clusters"]["size_cohesion_spearman"] = float(
        np.corrcoef(
            np.argsort(np.argsort(sizes[filled])), np.argsort(np.argsort(cohesion[filled]))
        )[0, 1]
    )
    for fraction in args.budgets:
        budget = max(1, round(fraction * len(pool)))
        draws = []
        side_draws = []
        for _ in range(args.draws):
            pick = rng.choice(len(stream), size=budget, replace=False)
            draws.append(base_state.vendi_with(stream[pick]) - base)
            side_draws.append(side_gain(pick))
        random_gain = float(np.mean(draws)) / budget
        table: dict[str, Any] = {
            "budget": budget,
            "random_gain_per_row": random_gain,
            "random_gain_per_row_sd": float(np.std(draws, ddof=1)) / budget,
            "random_embedding_gain_per_row": None if side is None else float(np.mean(side_draws)),
        }
        rules = ["none", "sparse-static", "sparse-grow", *(f"gain>={t:g}" for t in args.thresholds)]
        rules.append("gain>=median")
        none_gain = None
        for rule in rules:
            state = base_state.copy()
            started = time.perf_counter()
            accepted, read = run_rule(rule, state, stream, budget)
            seconds = time.perf_counter() - started
            kept = stream[accepted]
            gain = (state.vendi() - base) / max(1, len(accepted))
            if rule == "none":
                none_gain = gain
            labels = stream_labels[accepted]
            entry = {
                "accepted": len(accepted),
                "read": read,
                "read_per_accepted": read / max(1, len(accepted)),
                "gain_per_row": gain,
                "ratio_to_none": gain / none_gain if none_gain else float("nan"),
                "ratio_to_random": gain / random_gain if random_gain else float("nan"),
                "seconds": seconds,
                "embedding_gain_per_row": side_gain(np.asarray(accepted, dtype=np.int64)),
                **diagnostics(kept, pool, labels, sparse),
            }
            if kind == "skewed":
                entry["share_from_rare_sources"] = (
                    float(np.isin(sources[stream_at][accepted], rare).mean())
                    if len(accepted)
                    else float("nan")
                )
            table[rule] = entry
        report["budgets"][f"{fraction:g}"] = table
    return report


def print_report(report: dict[str, Any]) -> None:
    c = report["clusters"]
    print(
        f"\n== split {report['split']}: pool {report['pool']}, candidates {report['candidates']}, "
        f"k {report['k']}, pool Vendi {report['pool_vendi']:.2f}"
    )
    print(
        f"   clusters: median size {c['median_size']:g}, {c['sparse_clusters']} sparse, "
        f"{c['singletons']} singletons, {c['empty']} empty; pool rows in sparse "
        f"{c['pool_rows_in_sparse']:.0%}, candidates landing in sparse "
        f"{c['candidates_landing_in_sparse']:.0%} (hitting "
        f"{c['sparse_clusters_hit_by_candidates']} sparse clusters); cosine to centroid "
        "sparse/dense: pool "
        f"{c['pool_cosine_to_centroid_sparse']:.3f}/{c['pool_cosine_to_centroid_dense']:.3f}, "
        f"candidates {c['candidate_cosine_to_centroid_sparse']:.3f}/"
        f"{c['candidate_cosine_to_centroid_dense']:.3f}; Spearman(size, cohesion) "
        f"{c['size_cohesion_spearman']:+.2f}"
    )
    f = report["filter_candidates"]
    print(
        f"   filter-candidates (keep every candidate landing in a sparse cluster): kept "
        f"{f['kept']}, Vendi {f['vendi_pool']:.2f} -> {f['vendi_with_kept']:.2f} "
        f"(+{f['vendi_with_kept'] - f['vendi_pool']:.2f}) against "
        f"{f['vendi_with_random']:.2f} (+{f['vendi_with_random'] - f['vendi_pool']:.2f}) random"
    )
    quantiles = ", ".join(f"{k}: {v:+.3f}" for k, v in report["candidate_gain_quantiles"].items())
    sparse_gain, dense_gain = report["candidate_gain_sparse_vs_dense"]
    print(
        f"   each candidate's own gain on the pool, quantiles {quantiles}; mean landing in "
        f"sparse {sparse_gain:+.3f}, dense {dense_gain:+.3f}"
    )
    for fraction, table in report["budgets"].items():
        side = table["random_embedding_gain_per_row"]
        print(
            f"   B = {table['budget']} ({float(fraction):.0%} of pool); random: "
            f"{table['random_gain_per_row']:+.4f} +- {table['random_gain_per_row_sd']:.4f} per row"
            + ("" if side is None else f"; embedding-Vendi {side:+.4f} per row")
        )
        print(
            f"   {'rule':<14}{'acc':>5}{'gain/row':>10}{'x none':>8}{'x rand':>8}{'read/acc':>9}"
            f"{'clusters':>9}{'top':>6}{'in sparse':>10}{'pair cos':>9}{'pool cos':>9}"
            f"{'rare':>6}{'emb/row':>9}{'s':>6}"
        )
        for rule, e in table.items():
            if not isinstance(e, dict):
                continue
            rare = e.get("share_from_rare_sources")
            emb = e.get("embedding_gain_per_row")
            print(
                f"   {rule:<14}{e['accepted']:>5}{e['gain_per_row']:>+10.4f}"
                f"{e['ratio_to_none']:>8.2f}{e['ratio_to_random']:>8.2f}{e['read_per_accepted']:>9.2f}"
                f"{e.get('clusters_hit', 0):>9}{e.get('largest_cluster_share', 0):>6.2f}"
                f"{e.get('share_in_sparse', 0):>10.2f}{e.get('mean_pairwise_cosine', 0):>9.3f}"
                f"{e.get('mean_nearest_pool_cosine', 0):>9.3f}"
                f"{'' if rare is None else f'{rare:.2f}':>6}"
                f"{'' if emb is None else f'{emb:+.4f}':>9}{e['seconds']:>6.1f}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", choices=("demo", "docstrings"), default="demo")
    parser.add_argument("--rows", type=int, default=480, help="docstring rows to featurize")
    parser.add_argument(
        "--cache",
        type=Path,
        default=Path(tempfile.gettempdir()) / "vendiscope-bench-filter-{rows}.npy",
        help="where the docstrings' gradient rows are cached",
    )
    parser.add_argument("--pool-share", type=float, default=1 / 3)
    parser.add_argument("--budgets", type=float, nargs="+", default=[0.10, 0.25])
    parser.add_argument("--thresholds", type=float, nargs="+", default=[0.0])
    parser.add_argument("--draws", type=int, default=8)
    parser.add_argument("--splits", nargs="+", default=["random", "skewed"])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.dataset == "demo":
        rows, sources, side = demo_rows()
    else:
        cache = Path(str(args.cache).format(rows=args.rows))
        rows, sources, side = docstring_rows(args.rows, cache)
    results: dict[str, Any] = {
        "dataset": args.dataset,
        "rows": len(rows),
        "dim": int(rows.shape[1]),
        "sources": int(np.unique(sources).size),
        "pool_share": args.pool_share,
        "seed": args.seed,
        "splits": [],
    }
    print(f"{args.dataset}: {len(rows)} rows, d = {rows.shape[1]}, {results['sources']} sources")
    for kind in args.splits:
        report = experiment(rows, sources, side, kind, args)
        print_report(report)
        results["splits"].append(report)
    path = save(f"filter_rules_{args.dataset}", results)
    print(f"\nwritten {path}")


if __name__ == "__main__":
    main()
