"""MinHash-LSH near-duplicate groups (Broder 1997; the banding of Leskovec et al., ch. 3).

A text's shingles are its word n-grams (``shingle_size`` = 5 lower-cased word tokens
``[\\pL\\pM\\pN_]+`` by default; a text with fewer tokens has one shingle, all of them). Each
shingle is hashed to 64 bits (a hash of each distinct token, combined by multiply-add and a
mixer), and each of ``num_perm`` hash functions ``h_i(x) = a_i x + b_i mod 2^64`` (``a_i``
odd, from ``seed``) gives the signature's column ``i``: the minimum over the text's shingles,
kept as its top 32 bits. The estimated Jaccard similarity of two texts is the fraction of equal
columns. LSH splits the signature into ``bands`` bands of ``rows`` columns; texts with an
identical band are candidates. :func:`optimal_bands` picks ``(bands, rows)`` for a threshold
with datasketch's rule (minimising the equally weighted false-positive and false-negative
areas): 0.8 and 128 permutations give 9 bands of 13 rows.

:func:`near_duplicate_groups` links candidates (each text of a bucket to the bucket's first
text, verified by estimated Jaccard >= threshold unless ``verify=False``) and labels the
connected components (union-find by minimum-label propagation with pointer jumping, in NumPy).
Everything is vectorised except hashing each chunk's *distinct* tokens (one ``blake2b`` call
per distinct token).
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np

from vendiscope.core.signals.algorithms import _text

DEFAULT_THRESHOLD = 0.8
DEFAULT_NUM_PERM = 128
DEFAULT_SHINGLE = 5
_BLOCK = 32_768  # shingles hashed at once: a (block, num_perm) uint64 array


def optimal_bands(
    threshold: float = DEFAULT_THRESHOLD, num_perm: int = DEFAULT_NUM_PERM
) -> tuple[int, int]:
    """``(bands, rows)`` with ``bands * rows <= num_perm`` minimising the area under the
    candidate-probability curve ``1 - (1 - s^r)^b`` below ``threshold`` (false positives) plus
    the area above it under its complement (false negatives), weighted equally (datasketch's
    ``MinHashLSH`` rule, integrated here on a 1,001-point grid)."""
    if not 0.0 < threshold < 1.0:
        raise ValueError(f"threshold must be in (0, 1), not {threshold}")
    low = np.linspace(0.0, threshold, 1001)
    high = np.linspace(threshold, 1.0, 1001)
    best, best_error = (1, 1), float("inf")
    for b in range(1, num_perm + 1):
        for r in range(1, num_perm // b + 1):
            fp = _area(1 - (1 - low**r) ** b, low)
            fn = _area((1 - high**r) ** b, high)
            error = 0.5 * fp + 0.5 * fn
            if error < best_error:
                best, best_error = (b, r), error
    return best


def _area(y: np.ndarray, x: np.ndarray) -> float:
    """Trapezoidal integral of ``y`` over ``x`` (NumPy 1.26 has no ``trapezoid``)."""
    return float(np.sum((y[1:] + y[:-1]) * np.diff(x)) / 2)


def minhash_signatures(
    texts: Sequence[str] | Any,
    *,
    num_perm: int = DEFAULT_NUM_PERM,
    shingle_size: int = DEFAULT_SHINGLE,
    seed: int = 1,
    chunk_rows: int = 20_000,
) -> np.ndarray:
    """The MinHash signature of each text: an ``(N, num_perm)`` uint32 array (see the module
    docstring). A text without tokens gets all columns ``2**32 - 1`` (and no group)."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2**63, size=num_perm, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    b = rng.integers(0, 2**63, size=num_perm, dtype=np.uint64)
    array = _text.as_arrow(texts)
    out = np.full((len(array), num_perm), np.iinfo(np.uint32).max, np.uint32)
    for lo in range(0, len(array), chunk_rows):
        chunk = array.slice(lo, chunk_rows)
        rows, shingles = _shingles(chunk, shingle_size)
        out[lo : lo + len(chunk)] = _min_hashes(rows, shingles, len(chunk), a, b)
    return out


def lsh_buckets(signatures: np.ndarray, *, bands: int, rows: int) -> list[np.ndarray]:
    """For each band, the bucket key (uint64) of every text: texts with the same key in some band
    are LSH candidates. Texts without tokens get distinct keys."""
    n, num_perm = signatures.shape
    if bands * rows > num_perm:
        raise ValueError(f"{bands} bands x {rows} rows need {bands * rows} permutations")
    empty = (signatures == np.iinfo(np.uint32).max).all(axis=1)
    mult = np.random.default_rng(0xB4D5).integers(1, 2**63, size=rows, dtype=np.uint64) | 1
    keys = []
    for band in range(bands):
        block = signatures[:, band * rows : (band + 1) * rows].astype(np.uint64)
        key = (block * mult).sum(axis=1, dtype=np.uint64)
        key = _text.mix64(key + np.uint64(band))
        key[empty] = np.arange(n, dtype=np.uint64)[empty] * np.uint64(2**20 + 7)  # never shared
        keys.append(key)
    return keys


def candidate_pairs(signatures: np.ndarray, *, bands: int, rows: int) -> np.ndarray:
    """Every pair of texts sharing a bucket in at least one band: a ``(P, 2)`` int64 array of
    ``i < j``, sorted, without repeats. The count grows with the square of bucket sizes (a
    thousand exact copies make half a million pairs); :func:`near_duplicate_groups` does not
    enumerate them."""
    found = []
    for key in lsh_buckets(signatures, bands=bands, rows=rows):
        order = np.argsort(key, kind="stable")
        sorted_key = key[order]
        starts = np.flatnonzero(np.r_[True, sorted_key[1:] != sorted_key[:-1]])
        ends = np.r_[starts[1:], len(key)]
        bucket_end = np.repeat(ends, ends - starts)
        position = np.arange(len(key))
        d = 1
        while True:
            position = position[bucket_end[position] - position > d]
            if not len(position):
                break
            pair = np.stack([order[position], order[position + d]], axis=1)
            found.append(np.sort(pair, axis=1))
            d += 1
    if not found:
        return np.zeros((0, 2), np.int64)
    pairs: np.ndarray = np.unique(np.concatenate(found).astype(np.int64), axis=0)
    return pairs


def jaccard_estimate(signatures: np.ndarray, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Estimated Jaccard similarity of texts ``i[k]`` and ``j[k]``: their fraction of equal
    signature columns (float64)."""
    out = np.empty(len(i))
    for lo in range(0, len(i), 65_536):
        a, b = i[lo : lo + 65_536], j[lo : lo + 65_536]
        out[lo : lo + 65_536] = (signatures[a] == signatures[b]).mean(axis=1)
    return out


def groups_from_signatures(
    signatures: np.ndarray,
    *,
    threshold: float = DEFAULT_THRESHOLD,
    bands: int | None = None,
    rows: int | None = None,
    verify: bool = True,
) -> np.ndarray:
    """Near-duplicate group of each text from its signature (see :func:`near_duplicate_groups`)."""
    n, num_perm = signatures.shape
    if n == 0:
        return np.zeros(0, np.int64)
    if bands is None or rows is None:
        bands, rows = optimal_bands(threshold, num_perm)
    u_parts, v_parts = [], []
    for key in lsh_buckets(signatures, bands=bands, rows=rows):
        order = np.argsort(key, kind="stable")
        sorted_key = key[order]
        new = np.r_[True, sorted_key[1:] != sorted_key[:-1]]
        head = order[np.flatnonzero(new)[np.cumsum(new) - 1]]  # each text's bucket's first text
        linked = head != order
        u_parts.append(head[linked])
        v_parts.append(order[linked])
    u = np.concatenate(u_parts) if u_parts else np.zeros(0, np.int64)
    v = np.concatenate(v_parts) if v_parts else np.zeros(0, np.int64)
    if len(u):
        edges = np.unique(np.stack([u, v], axis=1), axis=0)
        u, v = edges[:, 0], edges[:, 1]
    if verify and len(u):
        keep = jaccard_estimate(signatures, u, v) >= threshold
        u, v = u[keep], v[keep]
    return connected_components(n, u, v)


def near_duplicate_groups(
    texts: Sequence[str] | Any,
    *,
    threshold: float = DEFAULT_THRESHOLD,
    num_perm: int = DEFAULT_NUM_PERM,
    shingle_size: int = DEFAULT_SHINGLE,
    verify: bool = True,
    seed: int = 1,
) -> np.ndarray:
    """The near-duplicate group of each text: an int64 array, equal for texts in one group, the
    group's id being its smallest text index (so a text alone has its own index).

    Texts sharing an LSH bucket (bands and rows from :func:`optimal_bands`) are linked —
    each to the first text of the bucket, and only when their estimated Jaccard similarity is at
    least ``threshold`` if ``verify`` — and the groups are the connected components. Texts
    without tokens are never grouped.
    """
    signatures = minhash_signatures(texts, num_perm=num_perm, shingle_size=shingle_size, seed=seed)
    return groups_from_signatures(signatures, threshold=threshold, verify=verify)


def keep_one_per_group(groups: np.ndarray) -> np.ndarray:
    """Mask keeping the first text (lowest index) of each group: a bool array."""
    groups = np.asarray(groups)
    keep = np.zeros(len(groups), bool)
    keep[np.unique(groups, return_index=True)[1]] = True
    return keep


def connected_components(n: int, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Component of each of ``n`` nodes joined by the edges ``(u[k], v[k])``: the smallest node of
    its component (int64). Minimum-label propagation with pointer jumping, vectorised."""
    labels = np.arange(n, dtype=np.int64)
    u, v = np.asarray(u, np.int64), np.asarray(v, np.int64)
    while len(u):
        low = np.minimum(labels[u], labels[v])
        before = labels.copy()
        np.minimum.at(labels, labels[u], low)
        np.minimum.at(labels, labels[v], low)
        np.minimum.at(labels, u, low)
        np.minimum.at(labels, v, low)
        while True:  # pointer jumping until every label is a root
            jumped = labels[labels]
            if np.array_equal(jumped, labels):
                break
            labels = jumped
        if np.array_equal(labels, before):
            break
    components: np.ndarray = labels
    return components


def _token_hashes(values: Any) -> np.ndarray:
    """A stable 64-bit hash of each token (``blake2b`` of each distinct token, once)."""
    encoded = values.dictionary_encode()
    distinct = np.fromiter(
        (
            int.from_bytes(hashlib.blake2b(t.encode(), digest_size=8).digest(), "little")
            for t in encoded.dictionary.to_pylist()
        ),
        dtype=np.uint64,
        count=len(encoded.dictionary),
    )
    return distinct[np.asarray(encoded.indices, np.int64)]


def _shingles(chunk: Any, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Row and uint64 hash of every shingle of the chunk, rows in order."""
    tokens = _text.split_word_tokens(chunk, lower=True)
    if not len(tokens.rows):
        return np.zeros(0, np.int64), np.zeros(0, np.uint64)
    th = _token_hashes(tokens.values)
    rows = tokens.rows
    counts = np.bincount(rows, minlength=len(chunk))
    row_start = np.r_[0, np.cumsum(counts)[:-1]]
    # one window per full-size position, or one window of all tokens for a short row
    width = np.minimum(counts, size)
    n_windows = np.where(counts >= size, counts - size + 1, (counts > 0).astype(np.int64))
    window_row = np.repeat(np.arange(len(chunk)), n_windows)
    offset = np.arange(len(window_row)) - np.repeat(np.cumsum(n_windows) - n_windows, n_windows)
    start = row_start[window_row] + offset
    w = width[window_row]
    mult = np.random.default_rng(0x5417).integers(1, 2**63, size=size, dtype=np.uint64) | 1
    h = np.zeros(len(start), np.uint64)
    short = np.flatnonzero(w < size)
    for k in range(size):
        if len(short):  # a short row's one window: its k-th token only where it has one
            th_k = np.where(k < w, th[np.minimum(start + k, len(th) - 1)], np.uint64(0))
        else:
            th_k = th[start + k]
        h += th_k * mult[k]
    return window_row, _text.mix64(h + w.astype(np.uint64))


def _min_hashes(
    rows: np.ndarray, shingles: np.ndarray, n_rows: int, a: np.ndarray, b: np.ndarray
) -> np.ndarray:
    """Per row, the minimum of ``a_i x + b_i`` over its shingles ``x``, top 32 bits (uint32)."""
    out = np.full((len(a), n_rows), np.iinfo(np.uint64).max, np.uint64)  # permutation-major
    if len(rows):
        # blocks of whole rows, about _BLOCK shingles each; (num_perm, block) so that the
        # minimum runs along contiguous memory
        row_first = np.flatnonzero(np.r_[True, rows[1:] != rows[:-1]])
        cuts = np.unique(np.searchsorted(row_first, np.arange(0, len(rows), _BLOCK)))
        block_starts = [*row_first[cuts].tolist(), len(rows)]
        for lo, hi in itertools.pairwise(block_starts):
            x = a[:, None] * shingles[None, lo:hi]
            x += b[:, None]
            seg = row_first[(row_first >= lo) & (row_first < hi)]
            out[:, rows[seg]] = np.minimum.reduceat(x, seg - lo, axis=1)
    top: np.ndarray = (out.T >> np.uint64(32)).astype(np.uint32)
    return top
