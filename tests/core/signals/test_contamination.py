"""n-gram decontamination: exact agreement with a plain-Python 13-gram reference."""

from __future__ import annotations

import unicodedata

import numpy as np
import pytest

from tests.core.signals._texts import make_texts
from vendiscope.core.signals.algorithms.contamination import build_index, find_contamination


def _tokens(text: str) -> list[str]:
    """The module's word tokens, written out: runs of letters, marks, digits and "_", lowered."""
    out, word = [], []
    for ch in text.lower():
        if ch == "_" or unicodedata.category(ch)[0] in "LMN":
            word.append(ch)
        elif word:
            out.append("".join(word))
            word = []
    if word:
        out.append("".join(word))
    return out


def reference(records: list[str], targets: list[str], n: int = 13) -> list[tuple[int, str | None]]:
    """For each record, the first target holding its first matching n-gram, and that n-gram."""
    first: dict[tuple[str, ...], int] = {}
    for item, text in enumerate(targets):
        toks = _tokens(text)
        for i in range(len(toks) - n + 1):
            first.setdefault(tuple(toks[i : i + n]), item)
    result: list[tuple[int, str | None]] = []
    for text in records:
        toks = _tokens(text)
        hit: tuple[int, str | None] = (-1, None)
        for i in range(len(toks) - n + 1):
            gram = tuple(toks[i : i + n])
            if gram in first:
                hit = (first[gram], " ".join(gram))
                break
        result.append(hit)
    return result


def _planted(seed: int) -> tuple[list[str], list[str]]:
    rng = np.random.default_rng(seed)
    texts = make_texts(1500, seed=seed)
    targets, records = texts[:150], texts[150:]
    for k in range(0, len(records), 5):  # plant excerpts of 11 to 15 words, re-cased, re-punctuated
        source = targets[int(rng.integers(len(targets)))].split()
        if len(source) < 16:
            continue
        size = int(rng.integers(11, 16))
        at = int(rng.integers(0, len(source) - size))
        excerpt = " ".join(source[at : at + size])
        if rng.random() < 0.5:
            excerpt = excerpt.upper().replace(" ", " -- ")
        words = records[k].split(" ")
        cut = int(rng.integers(0, len(words) + 1))
        records[k] = " ".join([*words[:cut], excerpt, *words[cut:]])
    records += ["", "   ", "Straße über 中文 naïve café " * 3]
    return targets, records


@pytest.mark.parametrize("seed", [0, 1])
def test_agrees_exactly_with_the_plain_python_reference(seed: int) -> None:
    targets, records = _planted(seed)
    index = build_index(targets)
    found = find_contamination(records, index, chunk_rows=97)
    expected = reference(records, targets)
    assert found.target.tolist() == [item for item, _ in expected]
    assert found.ngram == [gram for _, gram in expected]
    assert found.contaminated.tolist() == [item >= 0 for item, _ in expected]
    assert 50 < found.contaminated.sum() < len(records) / 2  # the planted excerpts, mostly


def test_small_cases_by_hand() -> None:
    index = build_index(["The quick brown fox jumps over the lazy dog", "a b c d", "x y"], n=3)
    assert index.n_items == 3 and index.n_ngrams == 7 + 2  # "x y" is too short for a 3-gram
    found = find_contamination(["nothing here", "I saw the LAZY dog, it was lazy", "c b a b c d e",
                                "", "x y z"], index)  # fmt: skip
    assert found.contaminated.tolist() == [False, True, True, False, False]
    assert found.target.tolist() == [-1, 0, 1, -1, -1]
    assert found.ngram == [None, "the lazy dog", "a b c", None, None]
    assert found.matches.tolist() == [0, 1, 2, 0, 0]


def test_the_first_target_holding_the_ngram_is_named() -> None:
    gram = "one two three four five six seven eight nine ten eleven twelve thirteen"
    index = build_index(["unrelated text", f"B {gram} b", f"C {gram} c"])
    found = find_contamination([f"prefix {gram.upper()}!"], index)
    assert found.target.tolist() == [1]
    assert found.ngram == [gram]
    twelve = " ".join(gram.split()[:12])
    assert not find_contamination([twelve], index).contaminated.any()


def test_empty_inputs_and_long_texts() -> None:
    empty = build_index([])
    assert empty.n_ngrams == 0
    assert find_contamination(["a b c"], empty).contaminated.tolist() == [False]
    index = build_index(make_texts(20, seed=5))
    assert len(find_contamination([], index).ngram) == 0
    long = " ".join(make_texts(300, seed=9)) * 2  # ~ a quarter of a megabyte in one record
    found = find_contamination([long], index)
    expected = reference([long], make_texts(20, seed=5))
    assert (found.target[0], found.ngram[0]) == expected[0]
    with pytest.raises(ValueError, match="n must be"):
        build_index(["a"], n=0)
