"""MinHash-LSH near-duplicate groups: datasketch agreement, groups, components."""

from __future__ import annotations

import numpy as np
import pytest

from tests.core.signals._texts import make_texts
from tests.core.signals.test_contamination import _tokens
from vendiscope.core.signals.algorithms.minhash import (
    candidate_pairs,
    connected_components,
    jaccard_estimate,
    keep_one_per_group,
    minhash_signatures,
    near_duplicate_groups,
    optimal_bands,
)


def _near_duplicates(n_base: int, seed: int) -> tuple[list[str], np.ndarray]:
    """Base texts of 150+ words and 1 or 2 variants of some: an exact copy, a re-cased and
    re-punctuated copy, a sentence added at the end, or one word in 150 replaced (5-gram
    Jaccard with the base 0.93-1). Returns the texts and each one's base."""
    rng = np.random.default_rng(seed)
    pieces = make_texts(n_base * 4, seed=seed)
    joined = (" ".join(pieces[k : k + 4]) for k in range(0, len(pieces), 4))
    base = [t for t in joined if len(t.split()) >= 150]
    texts, origin = list(base), list(range(len(base)))
    for b, text in enumerate(base):
        if rng.random() < 0.6:
            for _ in range(int(rng.integers(1, 3))):
                kind = int(rng.integers(4))
                words = text.split()
                if kind == 1:
                    words = [w.upper() + ";" for w in words]
                elif kind == 2:
                    words += ["And", "one", "more", "thing", "here."]
                elif kind == 3:
                    for _ in range(max(1, len(words) // 150)):
                        words[int(rng.integers(len(words)))] = f"edit{int(rng.integers(10**6))}"
                texts.append(" ".join(words))
                origin.append(b)
    order = rng.permutation(len(texts))
    return [texts[i] for i in order], np.asarray(origin)[order]


def _datasketch_pairs(texts: list[str]) -> set[tuple[int, int]]:
    datasketch = pytest.importorskip("datasketch")
    lsh = datasketch.MinHashLSH(threshold=0.8, num_perm=128)
    hashes = []
    for i, text in enumerate(texts):
        toks = _tokens(text)
        shingles = {" ".join(toks[k : k + 5]).encode() for k in range(len(toks) - 4)}
        m = datasketch.MinHash(num_perm=128)
        m.update_batch(list(shingles))
        hashes.append(m)
        lsh.insert(i, m)
    return {(min(i, j), max(i, j)) for i, m in enumerate(hashes) for j in lsh.query(m) if i != j}


def test_bands_for_the_default_threshold_are_datasketchs() -> None:
    assert optimal_bands(0.8, 128) == (9, 13)
    assert optimal_bands(0.5, 128)[0] * optimal_bands(0.5, 128)[1] <= 128


@pytest.mark.slow
def test_candidate_pairs_agree_with_datasketch() -> None:
    """About 2,850 texts; ~12 s on 2 shared cores, most of it datasketch's SHA-1 hashing."""
    texts, _ = _near_duplicates(1500, seed=0)
    assert len(texts) > 2000
    ours = {tuple(p) for p in candidate_pairs(minhash_signatures(texts), bands=9, rows=13).tolist()}
    theirs = _datasketch_pairs(texts)
    both, either = len(ours & theirs), len(ours | theirs)
    print(f"pairs: ours {len(ours)}, datasketch {len(theirs)}, both/either {both / either:.3f}")
    assert either > 700
    assert both / either >= 0.95, (both, len(ours), len(theirs))


def test_groups_follow_the_planted_duplicates() -> None:
    texts, origin = _near_duplicates(800, seed=1)
    groups = near_duplicate_groups(texts)
    # texts of one base share a group, texts of different bases never do (at these edit rates)
    same_base = origin[:, None] == origin[None, :]
    same_group = groups[:, None] == groups[None, :]
    assert not (same_group & ~same_base).any()
    recall = (same_group & same_base).sum() / same_base.sum()
    assert recall > 0.95
    assert (groups <= np.arange(len(texts))).all()  # a group's id is its smallest member
    keep = keep_one_per_group(groups)
    assert keep.sum() == len(np.unique(groups))
    assert np.flatnonzero(keep).tolist() == sorted(np.unique(groups).tolist())


def test_exact_copies_short_texts_empty_texts_and_unicode() -> None:
    long = " ".join(make_texts(50, seed=2))  # tens of thousands of words in one text
    texts = ["same short", "Same, short!", "", "  ", "other short", "Straße über 中文 naïve café",
             "straße über 中文 naïve café", long, long]  # fmt: skip
    groups = near_duplicate_groups(texts)
    assert groups.tolist() == [0, 0, 2, 3, 4, 5, 5, 7, 7]
    signatures = minhash_signatures(texts)
    assert signatures.dtype == np.uint32 and signatures.shape == (9, 128)
    assert (signatures[2] == np.iinfo(np.uint32).max).all()
    assert jaccard_estimate(signatures, np.array([0, 0]), np.array([1, 4])).tolist()[0] == 1.0
    assert near_duplicate_groups([]).shape == (0,)


def test_estimated_jaccard_is_close_to_the_true_one() -> None:
    texts, _ = _near_duplicates(200, seed=3)
    sig = minhash_signatures(texts, num_perm=256)
    sets = []
    for text in texts:
        toks = _tokens(text)
        sets.append({tuple(toks[k : k + 5]) for k in range(len(toks) - 4)})
    rng = np.random.default_rng(0)
    i, j = rng.integers(len(texts), size=(2, 300))
    true = np.array(
        [len(sets[a] & sets[b]) / len(sets[a] | sets[b]) for a, b in zip(i, j, strict=True)]
    )
    # standard error of the estimate is at most 0.5 / sqrt(256) = 0.031; allow 5 of them
    assert np.abs(jaccard_estimate(sig, i, j) - true).max() < 0.16


def test_connected_components_match_a_breadth_first_search() -> None:
    rng = np.random.default_rng(4)
    n = 2000
    u, v = rng.integers(n, size=(2, 1500))
    labels = connected_components(n, u, v)
    neighbours: list[list[int]] = [[] for _ in range(n)]
    for a, b in zip(u.tolist(), v.tolist(), strict=True):
        neighbours[a].append(b)
        neighbours[b].append(a)
    expected = [-1] * n
    for start in range(n):
        if expected[start] >= 0:
            continue
        stack, expected[start] = [start], start
        while stack:
            for nb in neighbours[stack.pop()]:
                if expected[nb] < 0:
                    expected[nb] = start
                    stack.append(nb)
    assert labels.tolist() == expected
    # a long chain needs many rounds
    chain = np.arange(999)
    assert (connected_components(1000, chain[::-1], chain[::-1] + 1) == 0).all()
