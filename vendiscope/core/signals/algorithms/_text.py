"""Shared vectorised tokenisation (pyarrow string kernels) for the signal algorithms.

One definition of a *word character* for every signal: letters, combining marks, digits and
underscore (``[\\pL\\pM\\pN_]``). The heuristics' *tokens* (:func:`split_tokens`) are runs of word
characters or runs of other non-space characters (punctuation and symbols), in order;
contamination and MinHash use only the runs of word characters (:func:`split_word_tokens`),
lower-cased. Unicode whitespace separates both.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

WORD_CHARS = r"\pL\pM\pN_"
SYMBOL_RUN = rf"([^{WORD_CHARS}\s]+)"


def as_arrow(texts: Sequence[str] | Any) -> Any:
    """``texts`` as a pyarrow ``large_string`` array (``None`` becomes ``""``)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(texts, pa.ChunkedArray):
        texts = texts.combine_chunks()
    array = texts if isinstance(texts, pa.Array) else pa.array(list(texts), pa.large_string())
    if array.type != pa.large_string():
        array = array.cast(pa.large_string())
    return pc.fill_null(array, "")


@dataclass(frozen=True)
class Flat:
    """The non-empty pieces of every row, flattened: ``values[k]`` belongs to row ``rows[k]``."""

    values: Any  # pyarrow large_string array
    rows: np.ndarray  # int64, non-decreasing


def flatten(lists: Any) -> Flat:
    """Flatten a pyarrow list-of-strings array, dropping empty strings."""
    import pyarrow.compute as pc

    values = pc.list_flatten(lists)
    rows = np.asarray(pc.list_parent_indices(lists), dtype=np.int64)
    keep = np.asarray(pc.greater(pc.utf8_length(values), 0), dtype=bool)
    if not keep.all():
        values = values.filter(keep)
        rows = rows[keep]
    return Flat(values, rows)


def split_tokens(array: Any, *, lower: bool = False) -> Flat:
    """The tokens of every row (see the module docstring), optionally lower-cased."""
    import pyarrow.compute as pc

    if lower:
        array = pc.utf8_lower(array)
    spaced = pc.replace_substring_regex(array, SYMBOL_RUN, r" \1 ")
    return flatten(pc.utf8_split_whitespace(spaced))


def split_word_tokens(array: Any, *, lower: bool = False) -> Flat:
    """Only the word-character runs of every row (``[\\pL\\pM\\pN_]+``), optionally lower-cased."""
    import pyarrow.compute as pc

    if lower:
        array = pc.utf8_lower(array)
    spaced = pc.replace_substring_regex(array, rf"[^{WORD_CHARS}]+", " ")
    return flatten(pc.utf8_split_whitespace(spaced))


def lengths(values: Any) -> np.ndarray:
    """Characters (code points) of each string, int64."""
    import pyarrow.compute as pc

    return np.asarray(pc.utf8_length(values), dtype=np.int64)


def codes(values: Any) -> tuple[np.ndarray, int]:
    """Dense integer codes of equal strings (``dictionary_encode``) and how many there are."""
    encoded = values.dictionary_encode()
    return np.asarray(encoded.indices, dtype=np.int64), len(encoded.dictionary)


def window_ids(
    first: np.ndarray, codes_: np.ndarray, rows: np.ndarray, n: int, vocab: int
) -> np.ndarray:
    """Dense ids of the token n-grams starting at each position (``-1`` where none fits in the
    row), from the ids of the (n-1)-grams ``first`` (for ``n == 1`` pass the row-folded codes)."""
    out = np.full(len(codes_), -1, dtype=np.int64)
    if len(codes_) < n:
        return out
    start = np.arange(len(codes_) - n + 1)
    ok = (rows[start] == rows[start + n - 1]) & (first[start] >= 0)
    start = start[ok]
    if len(start):
        key = first[start] * np.int64(vocab) + codes_[start + n - 1]
        out[start] = np.unique(key, return_inverse=True)[1].reshape(-1)
    return out


def per_row(values: np.ndarray, rows: np.ndarray, n_rows: int) -> np.ndarray:
    """Sum of ``values`` per row (float64)."""
    return np.bincount(rows, weights=values, minlength=n_rows)


def safe_ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """``numerator / denominator``, 0 where the denominator is 0."""
    num = np.asarray(numerator, dtype=np.float64)
    den = np.asarray(denominator, dtype=np.float64)
    return np.divide(num, den, out=np.zeros_like(num), where=den > 0)


def mix64(h: np.ndarray) -> np.ndarray:
    """The murmur3 64-bit finaliser of each uint64 (spreads every input bit over the output)."""
    h = h ^ (h >> np.uint64(33))
    h = h * np.uint64(0xFF51AFD7ED558CCD)
    h = h ^ (h >> np.uint64(33))
    h = h * np.uint64(0xC4CEB9FE1A85EC53)
    mixed: np.ndarray = h ^ (h >> np.uint64(33))
    return mixed
