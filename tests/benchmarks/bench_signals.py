"""Curation signals against their references, each as a ratio measured in the same run.

    .venv/bin/python tests/benchmarks/bench_signals.py            # the sizes below; ~10 minutes
    .venv/bin/python tests/benchmarks/bench_signals.py --heuristics-records 20000 \\
        --minhash-records 100000 --decon-records 100000          # quicker

1. **Heuristics** (``--heuristics-records``, 100,000): :func:`text_stats` + :func:`gopher_flags`
   against datatrove's ``GopherQualityFilter`` and ``GopherRepetitionFilter`` (default
   thresholds, given the module's tokenisation as their word tokeniser, so the rules match) on
   the same texts — real ones by default (``--heuristics-corpus docstrings``: the distinct
   docstrings of the standard library and the installed packages, prose and code mixed), or
   generated ones (``generated``, ``tests/core/signals/_texts.py``: prose, lists, repeats,
   hashtags, ellipses, tables, cut-off and empty texts): rows/s of each, and how many texts get
   the same verdict (datatrove's first reason) from both.
2. **MinHash** (``--minhash-records``, 1,000,000): ``near_duplicate_groups`` on word-soup
   records of 120 words (a 20,000-word vocabulary, Zipf-like) where a fifth are near copies
   (0 or 1 word replaced) of another, in a fresh process (wall time and peak RSS); datasketch
   (``MinHash.update_batch`` + ``MinHashLSH`` insert and query, 128 permutations, threshold 0.8)
   on the first ``--minhash-reference-records`` (20,000) of them, extrapolated linearly, and
   ours on the same subset; agreement = candidate pairs found by both / by either there.
3. **Decontamination** (``--decon-records`` x ``--targets``, 1,000,000 x 10,000): the MinHash
   records (a percent of them given a 13-word excerpt of a target) against 10,000 target texts
   of 80 words, in a fresh process; the plain-Python 13-gram reference of the tests on the
   first ``--decon-reference-records`` (20,000), extrapolated, with exact agreement checked
   there.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.benchmarks._common import measure, save

SYLLABLES = ["ka", "ri", "to", "ne", "mo", "sa", "lu", "pe", "vi", "da", "co", "ber", "tan", "gel"]


def word_soup(
    n: int, words: int, seed: int, *, near_copies: float = 0.2
) -> tuple[list[str], list[str]]:
    """``n`` texts of ``words`` words from a Zipf-like vocabulary; a share are near copies of an
    earlier text (one word replaced in half of them). Returns the texts and the vocabulary."""
    rng = np.random.default_rng(seed)
    syllables = np.array(SYLLABLES)
    vocab = sorted(
        {"".join(rng.choice(syllables, size=int(rng.integers(1, 5)))) for _ in range(40_000)}
    )
    vocab = np.array(vocab[:20_000])
    cdf = np.cumsum(1.0 / (np.arange(len(vocab)) + 10.0))
    ids = np.searchsorted(cdf, rng.random((n, words)) * cdf[-1])
    copy = np.flatnonzero(rng.random(n) < near_copies)
    copy = copy[copy > 0]
    ids[copy] = ids[rng.integers(0, copy)]  # a copy of an earlier text
    edit = copy[rng.random(len(copy)) < 0.5]
    ids[edit, rng.integers(0, words, size=len(edit))] = rng.integers(0, len(vocab), size=len(edit))
    return [" ".join(row) for row in vocab[ids]], vocab.tolist()


def docstring_texts(n: int, seed: int = 0) -> list[str]:
    """``n`` real texts: distinct docstrings (modules, classes, functions, any length) of the
    standard library and the installed packages, read with :mod:`ast`, in a seeded order."""
    import ast
    import random

    from tests.benchmarks.docstrings import _files, _roots

    seen: set[str] = set()
    for _domain, root in sorted(_roots().items()):
        for path in _files(root):
            try:
                tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
            except (SyntaxError, ValueError):
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef):
                    doc = ast.get_docstring(node)
                    if doc and doc.strip():
                        seen.add(doc.strip())
    texts = sorted(seen)
    random.Random(seed).shuffle(texts)
    if len(texts) < n:
        print(f"only {len(texts):,} distinct docstrings here; using them all", flush=True)
    return texts[:n]


def bench_heuristics(n: int, corpus: str = "generated") -> dict[str, Any]:
    from tests.core.signals._texts import make_texts
    from tests.core.signals.test_heuristics import _datatrove_reasons, _first_reason
    from vendiscope.core.signals.algorithms.heuristics import gopher_flags, text_stats

    started = time.perf_counter()
    made = make_texts(n, seed=11) if corpus == "generated" else docstring_texts(n)
    texts = [t for t in made if t.strip()]  # datatrove divides by 0 on blanks
    generated = time.perf_counter() - started
    started = time.perf_counter()
    flags = gopher_flags(text_stats(texts))
    ours = time.perf_counter() - started
    started = time.perf_counter()
    quality, repetition = _datatrove_reasons(texts)
    theirs = time.perf_counter() - started
    q_names = [k for k in flags if k.startswith("gopher_")]
    r_names = [k for k in flags if k not in q_names and k not in ("quality", "repetition")]
    same_q = sum(_first_reason(flags, q_names, i) == quality[i] for i in range(len(texts)))
    same_r = sum(_first_reason(flags, r_names, i) == repetition[i] for i in range(len(texts)))
    return {
        "corpus": corpus,
        "records": len(texts),
        "generation_s": generated,
        "ours_s": ours,
        "datatrove_s": theirs,
        "ours_rows_per_s": len(texts) / ours,
        "datatrove_rows_per_s": len(texts) / theirs,
        "speedup": theirs / ours,
        "same_quality_verdict": same_q / len(texts),
        "same_repetition_verdict": same_r / len(texts),
        "removed_by_quality": sum(bool(q) for q in quality) / len(texts),
        "removed_by_repetition": sum(bool(r) for r in repetition) / len(texts),
    }


OURS_MINHASH = """
# sys.argv: -c, this code, then the arguments
import json, sys, time
import pyarrow.feather as feather
from vendiscope.core.signals.algorithms.minhash import near_duplicate_groups
texts = feather.read_table(sys.argv[2]).column("text")
started = time.perf_counter()
groups = near_duplicate_groups(texts)
seconds = time.perf_counter() - started
json.dump({"seconds": seconds, "groups": int(len(set(groups.tolist())))}, open(sys.argv[3], "w"))
"""

DATASKETCH = """
import json, sys, time
import pyarrow.feather as feather
from datasketch import MinHash, MinHashLSH
texts = feather.read_table(sys.argv[2]).column("text").slice(0, int(sys.argv[4])).to_pylist()
started = time.perf_counter()
lsh = MinHashLSH(threshold=0.8, num_perm=128)
hashes = []
for i, text in enumerate(texts):
    toks = text.lower().split()
    m = MinHash(num_perm=128)
    m.update_batch([" ".join(toks[k : k + 5]).encode() for k in range(len(toks) - 4)])
    hashes.append(m)
    lsh.insert(i, m)
pairs = sorted(
    {(min(i, j), max(i, j)) for i, m in enumerate(hashes) for j in lsh.query(m) if i != j}
)
seconds = time.perf_counter() - started
json.dump({"seconds": seconds, "pairs": pairs}, open(sys.argv[3], "w"))
"""

OURS_DECON = """
import json, sys, time
import pyarrow.feather as feather
from vendiscope.core.signals.algorithms.contamination import build_index, find_contamination
texts = feather.read_table(sys.argv[2]).column("text")
targets = feather.read_table(sys.argv[4]).column("text")
started = time.perf_counter()
index = build_index(targets)
built = time.perf_counter() - started
found = find_contamination(texts, index)
seconds = time.perf_counter() - started
json.dump({"seconds": seconds, "index_s": built, "contaminated": int(found.contaminated.sum()),
           "target": found.target[: int(sys.argv[5])].tolist(),
           "ngram": found.ngram[: int(sys.argv[5])]}, open(sys.argv[3], "w"))
"""


def _write(path: Path, texts: list[str]) -> None:
    import pyarrow as pa
    import pyarrow.feather as feather

    feather.write_feather(pa.table({"text": pa.array(texts, pa.large_string())}), str(path))


def _run(code: str, *args: str) -> tuple[dict[str, Any], dict[str, Any]]:
    import json

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.json"
        measured = measure(code, args[0], str(out), *args[1:])
        return measured, json.loads(out.read_text())


def bench_minhash(records: list[str], folder: Path, n_ref: int) -> dict[str, Any]:
    from vendiscope.core.signals.algorithms.minhash import candidate_pairs, minhash_signatures

    corpus = folder / "minhash.feather"
    _write(corpus, records)
    measured, ours = _run(OURS_MINHASH, str(corpus))
    ref_measured, ref = _run(DATASKETCH, str(corpus), str(n_ref))
    subset = records[:n_ref]
    started = time.perf_counter()
    mine = {
        tuple(p) for p in candidate_pairs(minhash_signatures(subset), bands=9, rows=13).tolist()
    }
    ours_subset = time.perf_counter() - started
    theirs = {tuple(p) for p in ref["pairs"]}
    both, either = len(mine & theirs), len(mine | theirs)
    extrapolated = ref["seconds"] / n_ref * len(records)
    return {
        "records": len(records),
        "ours_s": ours["seconds"],
        "ours_peak_rss_mib": measured["peak_rss_mib"],
        "groups": ours["groups"],
        "reference_records": n_ref,
        "datasketch_s": ref["seconds"],
        "datasketch_peak_rss_mib": ref_measured["peak_rss_mib"],
        "ours_subset_s": ours_subset,
        "subset_speedup": ref["seconds"] / ours_subset,
        "datasketch_extrapolated_s": extrapolated,
        "speedup": extrapolated / ours["seconds"],
        "pairs_ours": len(mine),
        "pairs_datasketch": len(theirs),
        "agreement": both / max(either, 1),
    }


def bench_decontamination(
    records: list[str], vocab: list[str], n_targets: int, folder: Path, n_ref: int
) -> dict[str, Any]:
    from tests.core.signals.test_contamination import reference

    rng = np.random.default_rng(5)
    targets, _ = word_soup(n_targets, 80, seed=99, near_copies=0.0)
    records = list(records)
    for k in np.flatnonzero(rng.random(len(records)) < 0.01).tolist():
        source = targets[int(rng.integers(n_targets))].split()
        at = int(rng.integers(0, len(source) - 13))
        records[k] = records[k] + " " + " ".join(source[at : at + 13])
    corpus, target_file = folder / "decon.feather", folder / "targets.feather"
    _write(corpus, records)
    _write(target_file, targets)
    measured, ours = _run(OURS_DECON, str(corpus), str(target_file), str(n_ref))
    started = time.perf_counter()
    expected = reference(records[:n_ref], targets)
    ref_s = time.perf_counter() - started
    agree = ours["target"] == [t for t, _ in expected] and ours["ngram"] == [g for _, g in expected]
    extrapolated = ref_s / n_ref * len(records)
    return {
        "records": len(records),
        "targets": n_targets,
        "ours_s": ours["seconds"],
        "index_s": ours["index_s"],
        "ours_peak_rss_mib": measured["peak_rss_mib"],
        "contaminated": ours["contaminated"],
        "reference_records": n_ref,
        "reference_s": ref_s,
        "reference_extrapolated_s": extrapolated,
        "speedup": extrapolated / ours["seconds"],
        "exact_agreement_on_reference_records": agree,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--heuristics-records", type=int, default=100_000)
    parser.add_argument(
        "--heuristics-corpus", choices=["generated", "docstrings"], default="docstrings",
        help="generated texts of every kind the rules judge, or real docstrings",
    )  # fmt: skip
    parser.add_argument("--minhash-records", type=int, default=1_000_000)
    parser.add_argument("--minhash-reference-records", type=int, default=20_000)
    parser.add_argument("--decon-records", type=int, default=1_000_000)
    parser.add_argument("--decon-reference-records", type=int, default=20_000)
    parser.add_argument("--targets", type=int, default=10_000)
    parser.add_argument("--skip", nargs="*", default=[], choices=["heuristics", "minhash", "decon"])
    args = parser.parse_args()
    results: dict[str, Any] = {}
    if "heuristics" not in args.skip:
        results["heuristics"] = bench_heuristics(args.heuristics_records, args.heuristics_corpus)
        print("heuristics", results["heuristics"], flush=True)
    n = max(args.minhash_records, args.decon_records)
    started = time.perf_counter()
    records, vocab = word_soup(n, 120, seed=3)
    print(f"generated {n:,} word-soup records in {time.perf_counter() - started:.0f} s", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if "minhash" not in args.skip:
            results["minhash"] = bench_minhash(
                records[: args.minhash_records], folder, args.minhash_reference_records
            )
            print("minhash", results["minhash"], flush=True)
        if "decon" not in args.skip:
            results["decontamination"] = bench_decontamination(
                records[: args.decon_records], vocab, args.targets, folder,
                args.decon_reference_records,
            )  # fmt: skip
            print("decontamination", results["decontamination"], flush=True)
    print("results:", save("bench_signals", results))


if __name__ == "__main__":
    main()
