"""Benchmark contamination: records sharing a word n-gram with a target benchmark.

As in GPT-3's and NeMo Curator's task decontamination: texts are lower-cased and split into
word tokens (runs of ``[\\pL\\pM\\pN_]``: letters, combining marks, digits, underscore; all
else separates), and a record is **contaminated** when one of its n-grams (13 by default) is an
n-gram of some target item. Texts with fewer than ``n`` tokens have no n-gram, so they neither
match nor are matched.

:func:`build_index` hashes every target n-gram to a uint64 (a multiply-add of the tokens' ids in
the target vocabulary, then a 64-bit mixer) and keeps the sorted unique hashes, each with the
first target item holding it. :func:`find_contamination` maps each record's tokens to the same
ids with ``pyarrow.compute.index_in`` (a token outside the target vocabulary cannot be part of a
match, so windows holding one are dropped), hashes its windows, looks them up with
``searchsorted`` and then compares the tokens of every hit with the target n-gram, so a hash
collision never makes a false match. The one inexactness left: two *distinct* target n-grams
with the same 64-bit hash (about one chance in 10\\ :sup:`5` for 10\\ :sup:`7` target n-grams)
would keep only the first of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from vendiscope.core.signals.algorithms import _text

DEFAULT_N = 13
_MULTIPLIERS = np.random.default_rng(0x5EED).integers(1, 2**63, size=64, dtype=np.uint64) | 1


@dataclass(frozen=True)
class NgramIndex:
    """The n-grams of a target benchmark (see :func:`build_index`).

    Attributes
    ----------
    n
        Tokens per n-gram.
    n_items
        Target items indexed.
    vocabulary
        The target's distinct tokens (a pyarrow ``large_string`` array); a token's id is its
        position here.
    hashes
        Sorted distinct uint64 hashes of the target n-grams.
    items
        For each hash, the first target item (its position in the target list) holding it.
    starts
        For each hash, where its n-gram starts in ``token_ids``.
    token_ids
        The target's token ids, all items one after another.
    """

    n: int
    n_items: int
    vocabulary: Any
    hashes: np.ndarray
    items: np.ndarray
    starts: np.ndarray
    token_ids: np.ndarray

    @property
    def n_ngrams(self) -> int:
        return len(self.hashes)


@dataclass(frozen=True)
class Contamination:
    """What :func:`find_contamination` found, one entry per record.

    Attributes
    ----------
    contaminated
        bool: the record shares at least one n-gram with the target.
    target
        int64: the target item holding the record's first matching n-gram (the first such item,
        by position in the target list); -1 when not contaminated.
    ngram
        The record's first matching n-gram (its lower-cased tokens joined by single spaces),
        ``None`` when not contaminated.
    matches
        int64: how many of the record's n-gram positions match.
    """

    contaminated: np.ndarray
    target: np.ndarray
    ngram: list[str | None]
    matches: np.ndarray


def build_index(targets: Sequence[str] | Any, *, n: int = DEFAULT_N) -> NgramIndex:
    """Index the word n-grams of a target benchmark's texts (``n`` >= 1)."""
    import pyarrow.compute as pc

    if not 1 <= n <= len(_MULTIPLIERS):
        raise ValueError(f"n must be between 1 and {len(_MULTIPLIERS)}, not {n}")
    array = _text.as_arrow(targets)
    tokens = _text.split_word_tokens(array, lower=True)
    vocabulary = pc.unique(tokens.values)
    ids = np.asarray(pc.index_in(tokens.values, value_set=vocabulary), np.int64)
    starts = _valid_starts(ids, tokens.rows, n)
    hashes = _hash_windows(ids, starts, n)
    order = np.argsort(hashes, kind="stable")  # windows come in item order: first item first
    hashes, starts = hashes[order], starts[order]
    first = np.r_[True, hashes[1:] != hashes[:-1]] if len(hashes) else np.zeros(0, bool)
    return NgramIndex(
        n=n,
        n_items=len(array),
        vocabulary=vocabulary,
        hashes=hashes[first],
        items=tokens.rows[starts[first]],
        starts=starts[first],
        token_ids=ids,
    )


def find_contamination(
    texts: Sequence[str] | Any, index: NgramIndex, *, chunk_rows: int = 20_000
) -> Contamination:
    """Check each text against ``index`` (see the module docstring).

    Parameters
    ----------
    texts
        N record texts (a list, or a pyarrow string array); ``None`` counts as ``""``.
    index
        From :func:`build_index`.
    chunk_rows
        Records tokenised at once (bounds memory: roughly 100 bytes per token of a chunk).
    """
    array = _text.as_arrow(texts)
    parts = [
        _find_chunk(array.slice(lo, chunk_rows), index) for lo in range(0, len(array), chunk_rows)
    ]
    if not parts:
        return Contamination(np.zeros(0, bool), np.zeros(0, np.int64), [], np.zeros(0, np.int64))
    return Contamination(
        contaminated=np.concatenate([p.contaminated for p in parts]),
        target=np.concatenate([p.target for p in parts]),
        ngram=[g for p in parts for g in p.ngram],
        matches=np.concatenate([p.matches for p in parts]),
    )


def _find_chunk(array: Any, index: NgramIndex) -> Contamination:
    import pyarrow.compute as pc

    n_rows, n = len(array), index.n
    contaminated = np.zeros(n_rows, bool)
    target = np.full(n_rows, -1, np.int64)
    ngram: list[str | None] = [None] * n_rows
    matches = np.zeros(n_rows, np.int64)
    if not index.n_ngrams:
        return Contamination(contaminated, target, ngram, matches)
    tokens = _text.split_word_tokens(array, lower=True)
    ids = np.asarray(pc.fill_null(pc.index_in(tokens.values, index.vocabulary), -1), np.int64)
    starts = _valid_starts(ids, tokens.rows, n)
    hashes = _hash_windows(ids, starts, n)
    pos = np.minimum(np.searchsorted(index.hashes, hashes), index.n_ngrams - 1)
    hit = index.hashes[pos] == hashes
    starts, pos = starts[hit], pos[hit]
    same = np.ones(len(starts), bool)
    for k in range(n):  # the tokens themselves, so a hash collision never matches
        same &= ids[starts + k] == index.token_ids[index.starts[pos] + k]
    starts, pos = starts[same], pos[same]
    rows = tokens.rows[starts]
    matches[:] = np.bincount(rows, minlength=n_rows)
    found, first = np.unique(rows, return_index=True)  # windows are in order: first per row
    contaminated[found] = True
    target[found] = index.items[pos[first]]
    for row, start in zip(found.tolist(), starts[first].tolist(), strict=True):
        ngram[row] = " ".join(tokens.values.slice(start, n).to_pylist())
    return Contamination(contaminated, target, ngram, matches)


def _valid_starts(ids: np.ndarray, rows: np.ndarray, n: int) -> np.ndarray:
    """Starts of the windows of ``n`` tokens within one row, all in the vocabulary."""
    if len(ids) < n:
        return np.zeros(0, np.int64)
    unknown = np.concatenate([[0], np.cumsum(ids < 0)])
    start = np.arange(len(ids) - n + 1, dtype=np.int64)
    ok = (rows[start] == rows[start + n - 1]) & (unknown[start + n] == unknown[start])
    valid: np.ndarray = start[ok]
    return valid


def _hash_windows(ids: np.ndarray, starts: np.ndarray, n: int) -> np.ndarray:
    """uint64 hash of each window's token ids (multiply-add, then the murmur3 finaliser)."""
    h = np.zeros(len(starts), np.uint64)
    for k in range(n):
        h += (ids[starts + k] + 1).astype(np.uint64) * _MULTIPLIERS[k]
    return _text.mix64(h)
