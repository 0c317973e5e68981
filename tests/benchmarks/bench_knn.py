"""Top-10 neighbours of 100,000 queries over 1,000,000 x 384 float32 vectors.

Compared in one run: FAISS exact (``build_index(kind="flat")``), FAISS through Vendiscope's
``"auto"`` index (a calibrated IVF at this size), and scikit-learn's brute-force
``NearestNeighbors`` (``metric="cosine"``, and ``"euclidean"`` on normalised vectors, which
ranks the same and takes scikit-learn's faster code path).

Exact search of 100,000 x 1,000,000 x 384 is ~8e13 flops: far too long for two cores. The
exact methods are therefore timed on a fixed subset of the queries (``--exact-queries``,
the first 2,000) and **extrapolated linearly** to all queries (the output says so); the
approximate index is timed on all of them, and its recall@10 is measured against the exact
results of that subset.

The data is a Gaussian mixture on the unit sphere (100 topics, 2,000 clusters, varying
spread), a stand-in for sentence embeddings; ``--data random`` gives isotropic random unit
vectors, the pessimistic case no approximate index handles well.

Other modes:

``--compare-kinds``  IVF against HNSW: build time, and query time and recall@10 at several
                     ``nprobe`` / ``efSearch`` values (1,000 held-out queries).
``--threshold``      searching every row of an n-row set against itself (what near-duplicate
                     detection does), exact vs ``"auto"``-style IVF, for several n: where the
                     ``AUTO_THRESHOLD`` comes from.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.benchmarks._common import save
from vendiscope.core.neighbors.algorithms.index import _faiss, build_index, ivf_lists

K = 10


def mixture(n: int, dim: int, data: str, seed: int, *, centres_seed: int = 0) -> np.ndarray:
    """``n`` unit rows: clustered (a fixed mixture per ``centres_seed``) or random."""
    rng = np.random.default_rng(seed)
    out = np.empty((n, dim), dtype=np.float32)
    if data == "clustered":
        crng = np.random.default_rng(centres_seed)
        topics = crng.standard_normal((100, dim), dtype=np.float32)
        topics /= np.linalg.norm(topics, axis=1, keepdims=True)
        centres = topics[crng.integers(0, 100, 2000)] + crng.standard_normal(
            (2000, dim), dtype=np.float32
        ) * np.float32(0.8 / np.sqrt(dim))
        centres /= np.linalg.norm(centres, axis=1, keepdims=True)
        spread = crng.uniform(0.6, 1.6, 2000).astype(np.float32) / np.float32(np.sqrt(dim))
    for start in range(0, n, 100_000):
        m = min(100_000, n - start)
        block = rng.standard_normal((m, dim), dtype=np.float32)
        if data == "clustered":
            labels = rng.integers(0, 2000, m)
            block = centres[labels] + block * spread[labels, None]
        block /= np.linalg.norm(block, axis=1, keepdims=True)
        out[start : start + m] = block
    return out


def recall(found: np.ndarray, truth: np.ndarray) -> float:
    return float(
        np.mean([len(set(a) & set(b)) / len(b) for a, b in zip(found, truth, strict=True)])
    )


def timed(fn: Any, *args: Any, **kwargs: Any) -> tuple[Any, float]:
    started = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - started


# ----------------------------------------------------------------------------- main benchmark
def benchmark(args: argparse.Namespace) -> dict[str, Any]:
    from sklearn.neighbors import NearestNeighbors

    n, nq, sub, dim = args.rows, args.queries, args.exact_queries, args.dim
    base = mixture(n, dim, args.data, seed=1)
    queries = mixture(nq, dim, args.data, seed=2)
    exact_q = queries[:sub]
    scale = nq / sub
    results: dict[str, Any] = {
        "rows": n, "dim": dim, "queries": nq, "k": K, "data": args.data,
        "exact_methods_timed_on": sub, "exact_methods_extrapolated_by": scale,
    }  # fmt: skip
    print(f"{n} x {dim} base, {nq} queries ({args.data}); exact methods on {sub} queries, "
          f"extrapolated x{scale:g}", flush=True)  # fmt: skip

    flat, build_flat = timed(build_index, base, kind="flat")
    (_flat_sims, truth), search_flat = timed(flat.search, exact_q, K)
    del flat
    results["faiss_flat"] = {
        "build_s": build_flat,
        "search_subset_s": search_flat,
        "search_all_s_extrapolated": search_flat * scale,
        "ms_per_query": search_flat / sub * 1000,
    }
    print("faiss flat", results["faiss_flat"], flush=True)

    for metric, data in (("euclidean", base), ("cosine", base)):
        model, fit_s = timed(NearestNeighbors(n_neighbors=K, algorithm="brute", metric=metric).fit,
                             data)  # fmt: skip
        (_, sk_ids), search_s = timed(model.kneighbors, exact_q, K)
        del model
        results[f"sklearn_brute_{metric}"] = {
            "fit_s": fit_s,
            "search_subset_s": search_s,
            "search_all_s_extrapolated": search_s * scale,
            "ms_per_query": search_s / sub * 1000,
            "agreement_with_faiss_flat": recall(sk_ids, truth),
        }
        print(f"sklearn {metric}", results[f"sklearn_brute_{metric}"], flush=True)

    auto, build_auto = timed(build_index, base, kind="auto")
    (_, found), search_auto = timed(auto.search, queries, K)
    results["faiss_auto"] = {
        "index": auto.describe(),
        "build_s": build_auto,
        "search_all_s": search_auto,
        "ms_per_query": search_auto / nq * 1000,
        "recall_at_10_vs_exact": recall(found[:sub], truth),
    }
    print("faiss auto", results["faiss_auto"], flush=True)

    best_sklearn = min(
        results["sklearn_brute_euclidean"]["search_all_s_extrapolated"],
        results["sklearn_brute_cosine"]["search_all_s_extrapolated"],
    )
    flat_all = results["faiss_flat"]["search_all_s_extrapolated"]
    results["speed_ratios"] = {
        "faiss_flat_vs_best_sklearn": best_sklearn / flat_all,
        "faiss_flat_vs_sklearn_cosine": (
            results["sklearn_brute_cosine"]["search_all_s_extrapolated"] / flat_all
        ),
        "faiss_auto_search_vs_best_sklearn": best_sklearn / search_auto,
        "faiss_auto_build_and_search_vs_best_sklearn": best_sklearn / (search_auto + build_auto),
        "faiss_auto_search_vs_faiss_flat": flat_all / search_auto,
    }
    return results


# ----------------------------------------------------------------------------- kinds
def compare_kinds(args: argparse.Namespace) -> dict[str, Any]:
    """IVF vs HNSW as raw FAISS indexes: the measurements behind the choice of IVF."""
    faiss = _faiss()  # the same threads and BLAS blocks as Vendiscope uses

    n, dim = args.rows, args.dim
    base = mixture(n, dim, args.data, seed=1)
    queries = mixture(1000, dim, args.data, seed=2)
    flat = faiss.IndexFlatIP(dim)
    flat.add(base)
    (_, truth), flat_s = timed(flat.search, queries, K)
    del flat
    results: dict[str, Any] = {"rows": n, "dim": dim, "data": args.data,
                               "flat_ms_per_query": flat_s}  # fmt: skip
    print(results, flush=True)

    nlist = ivf_lists(n)
    ivf = faiss.IndexIVFFlat(faiss.IndexFlatIP(dim), dim, nlist, faiss.METRIC_INNER_PRODUCT)
    sample = base[np.sort(np.random.default_rng(0).choice(n, min(n, 40 * nlist), replace=False))]
    _, train_s = timed(ivf.train, sample)
    _, add_s = timed(ivf.add, base)
    sweep = {}
    for nprobe in (1, 2, 4, 8, 16, 32, 64, 128, 256):
        ivf.nprobe = nprobe
        (_, found), s = timed(ivf.search, queries, K)
        sweep[nprobe] = {"ms_per_query": s, "recall_at_10": recall(found, truth)}
        print("ivf nprobe", nprobe, sweep[nprobe], flush=True)
    results["ivf"] = {"nlist": nlist, "train_s": train_s, "add_s": add_s,
                      "build_s": train_s + add_s, "by_nprobe": sweep}  # fmt: skip
    print("ivf", {k: v for k, v in results["ivf"].items() if k != "by_nprobe"}, flush=True)
    del ivf

    hnsw = faiss.IndexHNSWFlat(dim, 32, faiss.METRIC_INNER_PRODUCT)
    hnsw.hnsw.efConstruction = 40
    _, build_s = timed(hnsw.add, base)
    print("hnsw build_s", build_s, flush=True)
    sweep = {}
    for ef in (16, 32, 64, 128, 256, 512):
        hnsw.hnsw.efSearch = ef
        (_, found), s = timed(hnsw.search, queries, K)
        sweep[ef] = {"ms_per_query": s, "recall_at_10": recall(found, truth)}
        print("hnsw efSearch", ef, sweep[ef], flush=True)
    results["hnsw"] = {"m": 32, "ef_construction": 40, "build_s": build_s, "by_ef_search": sweep}
    return results


# ----------------------------------------------------------------------------- threshold
def threshold(args: argparse.Namespace) -> dict[str, Any]:
    """Every row against its set (k=21, as near-duplicate detection does): flat vs IVF."""
    results: dict[str, Any] = {"dim": args.dim, "data": args.data, "sizes": {}}
    for n in (10_000, 20_000, 50_000, 100_000):
        base = mixture(n, args.dim, args.data, seed=1)
        row: dict[str, Any] = {}
        for kind in ("flat", "ivf"):
            index, build_s = timed(build_index, base, kind=kind)
            _, search_s = timed(index.search, base, 21)
            row[kind] = {"build_s": build_s, "search_s": search_s, "total_s": build_s + search_s,
                         "index": index.describe()}  # fmt: skip
        results["sizes"][n] = row
        print(n, {k: round(v["total_s"], 2) for k, v in row.items()},
              row["ivf"]["index"].get("nprobe"), flush=True)  # fmt: skip
    return results


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=100_000)
    parser.add_argument("--exact-queries", type=int, default=2_000)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--data", choices=("clustered", "random"), default="clustered")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--compare-kinds", action="store_true")
    mode.add_argument("--threshold", action="store_true")
    args = parser.parse_args()
    if args.compare_kinds:
        results, name = compare_kinds(args), f"knn_kinds_{args.data}_{args.rows}"
    elif args.threshold:
        results, name = threshold(args), f"knn_threshold_{args.data}"
    else:
        results, name = benchmark(args), f"knn_{args.data}_{args.rows}"
    path = save(name, results)
    print(orjson.dumps(results, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS).decode())
    if "speed_ratios" in results:
        print(
            f"exact methods timed on {args.exact_queries} of {args.queries} queries and "
            "extrapolated linearly; the approximate index was timed on all queries"
        )
    print(f"saved {path}")


if __name__ == "__main__":
    main()
