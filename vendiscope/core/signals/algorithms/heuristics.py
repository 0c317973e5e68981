"""Gopher-style text heuristics (Rae et al. 2021), as datatrove and NeMo Curator filter by them.

:func:`text_stats` computes every statistic for a list of texts at once with pyarrow string
kernels and NumPy (no per-row Python loop, except the duplicated 5- to 10-gram fractions: see
:func:`text_stats`); :func:`gopher_flags` applies datatrove's ``GopherQualityFilter`` and
``GopherRepetitionFilter`` default thresholds to them.

Definitions (shared with :mod:`._text`):

- **words**: whitespace-separated runs (Unicode whitespace).
- **tokens**: runs of word characters ``[\\pL\\pM\\pN_]+`` or runs of other non-space characters
  ``[^\\pL\\pM\\pN_\\s]+`` ("Hello, world..." is ``Hello`` ``,`` ``world`` ``...``). This plays the
  part of datatrove's NLTK word tokeniser: the Gopher rules count tokens, punctuation included.
- a **word token** has at least one letter, mark or digit (datatrove: a word with a character
  outside its punctuation set); an **alphabetic** token has at least one letter (``\\pL``,
  Python's ``str.isalpha``).
- **lines** for bullets and ellipses are Python's ``str.splitlines()``; for duplicated lines the
  pieces between runs of ``\\n``; **paragraphs** the pieces of the stripped text between runs of
  two or more ``\\n`` (datatrove's definitions).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from vendiscope.core.signals.algorithms import _text

STOP_WORDS = ("the", "be", "to", "of", "and", "that", "have", "with")
"""Gopher's stop words (case-sensitive, as in datatrove)."""

TOP_NGRAMS = (2, 3, 4)
DUP_NGRAMS = (5, 6, 7, 8, 9, 10)

STAT_NAMES = (
    "chars", "words", "tokens", "word_tokens", "mean_word_length", "hash_ratio",
    "ellipsis_ratio", "digit_ratio", "bullet_lines_ratio", "ellipsis_lines_ratio",
    "non_alpha_word_ratio", "stop_words", "dup_line_frac", "dup_line_char_frac",
    "dup_para_frac", "dup_para_char_frac",
    *(f"top_{n}gram_char_frac" for n in TOP_NGRAMS),
    *(f"dup_{n}gram_char_frac" for n in DUP_NGRAMS),
    "truncated", "empty",
)  # fmt: skip
"""The keys of :func:`text_stats`, in order."""

_LINE_BREAK = r"\r\n|[\n\r\x{0b}\x{0c}\x{1c}-\x{1e}\x{85}\x{2028}\x{2029}]"  # str.splitlines
_LINE_SPACE = r"[\t\x{1f}\p{Zs}]"  # what str.strip removes inside a line
_CLOSERS = "\"'\u201d\u2019\u00bb)\\]}"  # " ' right quotes, guillemet, brackets
_TERMINAL = ".!?\u3002\uff01\uff1f\u061f\u0964"  # . ! ? and CJK, Arabic, Devanagari


def text_stats(texts: Sequence[str] | Any, *, chunk_rows: int = 10_000) -> dict[str, np.ndarray]:
    """Gopher heuristics of each text.

    Parameters
    ----------
    texts
        N strings (a list, or a pyarrow string array); ``None`` counts as ``""``.
    chunk_rows
        Rows computed at once (bounds memory: about 1 KiB per token of a chunk).

    Returns
    -------
    dict
        Name to an array of length N (keys in :data:`STAT_NAMES`). Counts are int64, flags bool,
        the rest float64; a ratio whose denominator is 0 is 0, ``mean_word_length`` of a text
        without word tokens is NaN.

        ``chars``, ``words``, ``tokens``, ``word_tokens``: counts. ``mean_word_length``: mean
        characters of the word tokens. ``hash_ratio``: ``#`` per token; ``ellipsis_ratio``:
        (``...`` + ``…``) per token (the symbol-to-word ratios). ``digit_ratio``: decimal digits
        per character. ``bullet_lines_ratio`` / ``ellipsis_lines_ratio``: lines starting with
        ``•`` or ``-`` / ending with ``...`` or ``…``. ``non_alpha_word_ratio``: tokens without a
        letter. ``stop_words``: how many of :data:`STOP_WORDS` occur. ``dup_line_frac`` /
        ``dup_para_frac``: repeats of an earlier line / paragraph per line / paragraph;
        ``*_char_frac``: their characters per character of the text. ``top_{n}gram_char_frac``:
        characters of the most frequent token n-gram (joined by spaces) times its count, per
        character (on a tie in count, the n-gram seen first). ``dup_{n}gram_char_frac``:
        characters (tokens concatenated) of n-grams repeating an earlier one, scanning left to
        right and skipping past each repeat, per character (datatrove's rule, except that an
        n-gram is a token sequence, where datatrove compares the concatenated string).
        ``truncated``: see :func:`truncated`. ``empty``: nothing but whitespace.

    Notes
    -----
    The ``dup_{n}gram_char_frac`` scan is sequential by definition (each repeat moves the scan
    past it), so it runs as a Python loop over the integer n-gram ids of only those rows with at
    least one repeated n-gram, starting at the first repeat; everything else is vectorised.
    """
    array = _text.as_arrow(texts)
    parts = [_chunk_stats(array.slice(i, chunk_rows)) for i in range(0, len(array), chunk_rows)]
    if not parts:
        return {name: _empty_like(name) for name in STAT_NAMES}
    return {name: np.concatenate([p[name] for p in parts]) for name in STAT_NAMES}


def truncated(texts: Sequence[str] | Any) -> np.ndarray:
    """Whether each text looks cut off: not empty, and after trailing whitespace and closing
    quotes/brackets (``"``, ``'``, right quotes, ``»``, ``)``, ``]``, ``}``) it does not end with
    terminal punctuation (``.``, ``!``, ``?`` and their CJK full-width, Arabic and Devanagari
    forms), or it ends with an ellipsis (``...`` or ``…``). So a text ending mid-word,
    mid-sentence, after a comma or with "..." is truncated; "Done." and "(Done.)" are not. Code
    and lists ending without punctuation count as truncated too."""
    import pyarrow.compute as pc

    array = _text.as_arrow(texts)
    tail = rf"[{_CLOSERS}]*[\s\p{{Z}}]*$"
    ends_terminal = np.asarray(pc.match_substring_regex(array, rf"[{_TERMINAL}]{tail}"), bool)
    ends_ellipsis = np.asarray(pc.match_substring_regex(array, rf"(?:\.\.\.|…){tail}"), bool)
    blank = np.asarray(pc.utf8_length(pc.utf8_trim_whitespace(array)), np.int64) == 0
    flags: np.ndarray = ~blank & (~ends_terminal | ends_ellipsis)
    return flags


def gopher_flags(stats: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """datatrove's Gopher quality and repetition rules at their default thresholds.

    Parameters
    ----------
    stats
        The output of :func:`text_stats`.

    Returns
    -------
    dict
        Rule name (datatrove's reason) to a bool array, True where the rule **removes** the
        text: ``gopher_short_doc`` (< 50 word tokens), ``gopher_long_doc`` (> 100,000),
        ``gopher_below_avg_threshold`` / ``gopher_above_avg_threshold`` (mean word length < 3 /
        > 10), ``gopher_too_many_hashes`` / ``gopher_too_many_ellipsis`` (> 0.1 per token),
        ``gopher_too_many_bullets`` (> 90% of lines), ``gopher_too_many_end_ellipsis`` (> 30%),
        ``gopher_below_alpha_threshold`` (< 80% of tokens alphabetic), ``gopher_enough_stop_words``
        (< 2 stop words); ``empty``, ``dup_para_frac`` / ``dup_line_frac`` (> 0.3),
        ``dup_para_char_frac`` / ``dup_line_char_frac`` (> 0.2), ``top_{2,3,4}_gram`` (> 0.20,
        0.18, 0.16), ``duplicated_{5..10}_n_grams`` (> 0.15, 0.14, 0.13, 0.12, 0.11, 0.10).
        Every rule is evaluated on every text (datatrove stops at the first that fires: the
        first True key in this order is its reason), plus ``quality`` and ``repetition``: any
        rule of that filter. A text without tokens fires ``gopher_short_doc`` only (its ratios
        are 0).
    """
    s = stats
    has_tokens = s["tokens"] > 0
    with np.errstate(invalid="ignore"):
        quality = {
            "gopher_short_doc": s["word_tokens"] < 50,
            "gopher_long_doc": s["word_tokens"] > 100_000,
            "gopher_below_avg_threshold": s["mean_word_length"] < 3,
            "gopher_above_avg_threshold": s["mean_word_length"] > 10,
            "gopher_too_many_hashes": s["hash_ratio"] > 0.1,
            "gopher_too_many_ellipsis": s["ellipsis_ratio"] > 0.1,
            "gopher_too_many_bullets": s["bullet_lines_ratio"] > 0.9,
            "gopher_too_many_end_ellipsis": s["ellipsis_lines_ratio"] > 0.3,
            "gopher_below_alpha_threshold": has_tokens & (1 - s["non_alpha_word_ratio"] < 0.8),
            "gopher_enough_stop_words": has_tokens & (s["stop_words"] < 2),
        }
    repetition = {
        "empty": s["chars"] == 0,
        "dup_para_frac": s["dup_para_frac"] > 0.3,
        "dup_para_char_frac": s["dup_para_char_frac"] > 0.2,
        "dup_line_frac": s["dup_line_frac"] > 0.3,
        "dup_line_char_frac": s["dup_line_char_frac"] > 0.2,
    }
    for n, limit in zip(TOP_NGRAMS, (0.20, 0.18, 0.16), strict=True):
        repetition[f"top_{n}_gram"] = s[f"top_{n}gram_char_frac"] > limit
    for n, limit in zip(DUP_NGRAMS, (0.15, 0.14, 0.13, 0.12, 0.11, 0.10), strict=True):
        repetition[f"duplicated_{n}_n_grams"] = s[f"dup_{n}gram_char_frac"] > limit
    flags = {**quality, **repetition}
    flags["quality"] = np.logical_or.reduce(list(quality.values()))
    flags["repetition"] = np.logical_or.reduce(list(repetition.values()))
    return flags


def _empty_like(name: str) -> np.ndarray:
    if name in ("truncated", "empty"):
        return np.zeros(0, bool)
    if name in ("chars", "words", "tokens", "word_tokens", "stop_words"):
        return np.zeros(0, np.int64)
    return np.zeros(0, np.float64)


def _chunk_stats(array: Any) -> dict[str, np.ndarray]:
    import pyarrow.compute as pc

    n = len(array)
    out: dict[str, np.ndarray] = {}
    chars = _text.lengths(array)
    out["chars"] = chars
    words = _text.flatten(pc.utf8_split_whitespace(array))
    out["words"] = np.bincount(words.rows, minlength=n).astype(np.int64)

    tokens = _text.split_tokens(array)
    ntok = np.bincount(tokens.rows, minlength=n).astype(np.int64)
    out["tokens"] = ntok
    tok_len = _text.lengths(tokens.values)
    is_word = np.asarray(pc.match_substring_regex(tokens.values, r"[\pL\pM\pN]"), bool)
    is_alpha = np.asarray(pc.match_substring_regex(tokens.values, r"\pL"), bool)
    nword = np.bincount(tokens.rows[is_word], minlength=n).astype(np.int64)
    out["word_tokens"] = nword
    with np.errstate(invalid="ignore", divide="ignore"):
        out["mean_word_length"] = _text.per_row(tok_len * is_word, tokens.rows, n) / nword
    out["hash_ratio"] = _text.safe_ratio(_count(array, "#"), ntok)
    out["ellipsis_ratio"] = _text.safe_ratio(_count(array, "...") + _count(array, "…"), ntok)
    digits = np.asarray(pc.count_substring_regex(array, r"\p{Nd}"), np.int64)
    out["digit_ratio"] = _text.safe_ratio(digits, chars)
    out["bullet_lines_ratio"], out["ellipsis_lines_ratio"] = _line_ratios(array)
    out["non_alpha_word_ratio"] = _text.safe_ratio(_text.per_row(~is_alpha, tokens.rows, n), ntok)
    out["stop_words"] = _stop_words(tokens, n)
    _duplicates(array, chars, out)
    _ngram_stats(tokens, tok_len, chars, out)
    out["truncated"] = truncated(array)
    stripped = pc.utf8_trim_whitespace(array)
    out["empty"] = _text.lengths(stripped) == 0
    return out


def _count(array: Any, pattern: str) -> np.ndarray:
    import pyarrow.compute as pc

    return np.asarray(pc.count_substring(array, pattern), np.int64)


def _line_ratios(array: Any) -> tuple[np.ndarray, np.ndarray]:
    """Bullet and ellipsis line ratios over ``str.splitlines()`` lines."""
    import pyarrow as pa
    import pyarrow.compute as pc

    n = len(array)
    pieces = pc.split_pattern_regex(array, _LINE_BREAK)
    values = pc.list_flatten(pieces)
    rows = np.asarray(pc.list_parent_indices(pieces), np.int64)
    # splitlines() has no piece after a final line break (and none at all for "")
    offsets = np.asarray(pieces.offsets, np.int64)
    sizes = np.diff(offsets)
    last = offsets[1:][sizes > 0] - 1
    keep = np.ones(len(rows), bool)
    empty_last = _text.lengths(values.take(pa.array(last))) == 0
    keep[last[empty_last]] = False
    values, rows = values.filter(pa.array(keep)), rows[keep]
    nlines = np.bincount(rows, minlength=n)
    bullets = np.asarray(pc.match_substring_regex(values, rf"^{_LINE_SPACE}*[•\-]"), bool)
    ellipses = np.asarray(pc.match_substring_regex(values, rf"(?:\.\.\.|…){_LINE_SPACE}*$"), bool)
    return (
        _text.safe_ratio(_text.per_row(bullets, rows, n), nlines),
        _text.safe_ratio(_text.per_row(ellipses, rows, n), nlines),
    )


def _stop_words(tokens: _text.Flat, n: int) -> np.ndarray:
    import pyarrow as pa
    import pyarrow.compute as pc

    which = pc.index_in(tokens.values, value_set=pa.array(STOP_WORDS, pa.large_string()))
    hit = np.asarray(pc.fill_null(which, -1), np.int64)
    mask = hit >= 0
    present = np.unique(tokens.rows[mask] * len(STOP_WORDS) + hit[mask])
    return np.bincount(present // len(STOP_WORDS), minlength=n).astype(np.int64)


def _repeats(flat: _text.Flat) -> np.ndarray:
    """Mask of the pieces equal to an earlier piece of the same row."""
    code, vocab = _text.codes(flat.values)
    key = flat.rows * np.int64(max(vocab, 1)) + code
    first = np.unique(key, return_index=True)[1]
    repeat = np.ones(len(key), bool)
    repeat[first] = False
    return repeat


def _duplicates(array: Any, chars: np.ndarray, out: dict[str, np.ndarray]) -> None:
    """Duplicated line and paragraph fractions (by count and by characters)."""
    import pyarrow.compute as pc

    n = len(array)
    paragraphs = pc.split_pattern_regex(pc.utf8_trim_whitespace(array), r"\n{2,}")
    lines = pc.split_pattern_regex(array, r"\n+")
    for name, pieces in (("para", paragraphs), ("line", lines)):
        flat = _text.Flat(
            pc.list_flatten(pieces), np.asarray(pc.list_parent_indices(pieces), np.int64)
        )
        repeat = _repeats(flat)
        total = np.bincount(flat.rows, minlength=n)
        out[f"dup_{name}_frac"] = _text.safe_ratio(_text.per_row(repeat, flat.rows, n), total)
        dup_chars = _text.per_row(_text.lengths(flat.values) * repeat, flat.rows, n)
        out[f"dup_{name}_char_frac"] = _text.safe_ratio(dup_chars, chars)


def _ngram_stats(
    tokens: _text.Flat, tok_len: np.ndarray, chars: np.ndarray, out: dict[str, np.ndarray]
) -> None:
    """Top and duplicated n-gram character fractions.

    Only n-grams that can repeat are given ids: an n-gram whose (n-1)-gram prefix occurs once in
    its row occurs once too, so each step groups the windows whose prefix repeats, a shrinking
    set (in prose, most 2-grams, few 5-grams)."""
    n_rows = len(chars)
    code, vocab = _text.codes(tokens.values)
    vocab = max(vocab, 1)
    rows = tokens.rows
    total = len(code)
    _, ids, counts = np.unique(
        rows * np.int64(vocab) + code, return_inverse=True, return_counts=True
    )
    ids = ids.reshape(-1)
    count = counts[ids]
    cum = np.concatenate([[0], np.cumsum(tok_len)])
    for n in range(2, max(DUP_NGRAMS) + 1):
        if total < n:
            for name in (f"top_{n}gram_char_frac", f"dup_{n}gram_char_frac"):
                if name in STAT_NAMES:
                    out[name] = np.zeros(n_rows)
            continue
        start = np.arange(total - n + 1)
        valid = start[rows[start] == rows[start + n - 1]]  # windows inside one row
        cand = valid[count[valid] >= 2]  # windows whose prefix repeats in the row
        new_ids = np.full(total, -1, np.int64)
        new_count = np.zeros(total, np.int64)
        if len(cand):
            key = ids[cand] * np.int64(vocab) + code[cand + n - 1]
            _, inv, cnt = np.unique(key, return_inverse=True, return_counts=True)
            new_ids[cand], new_count[cand] = inv.reshape(-1), cnt[inv.reshape(-1)]
        ids, count = new_ids, new_count
        size = cum[valid + n] - cum[valid]  # characters of the tokens, concatenated
        if n in TOP_NGRAMS:
            top = _top_ngram_chars(valid, size + n - 1, count[valid], rows, n_rows)
            out[f"top_{n}gram_char_frac"] = _text.safe_ratio(top, chars)
        if n in DUP_NGRAMS:
            dup = _dup_ngram_chars(valid, size, ids[valid], count[valid], rows, n, n_rows)
            out[f"dup_{n}gram_char_frac"] = _text.safe_ratio(dup, chars)


def _top_ngram_chars(
    start: np.ndarray, size: np.ndarray, count: np.ndarray, rows: np.ndarray, n_rows: int
) -> np.ndarray:
    """Per row: characters of the most frequent n-gram times its count; on a tie, the n-gram
    seen first (``Counter.most_common``), so the first n-gram when none repeats."""
    result = np.zeros(n_rows)
    if not len(start):
        return result
    row = rows[start]
    first = np.flatnonzero(np.r_[True, row[1:] != row[:-1]])  # windows come in order
    result[row[first]] = size[first]
    repeated = np.flatnonzero(count >= 2)
    if len(repeated):
        r = row[repeated]
        order = repeated[np.lexsort((start[repeated], -count[repeated], r))]
        best = order[np.r_[True, row[order][1:] != row[order][:-1]]]
        result[row[best]] = size[best] * count[best]
    return result


def _dup_ngram_chars(
    start: np.ndarray,
    size: np.ndarray,
    ids: np.ndarray,
    count: np.ndarray,
    rows: np.ndarray,
    n: int,
    n_rows: int,
) -> np.ndarray:
    """Per row: characters of the n-grams repeating an earlier one, skipping past each repeat.

    A Python loop, but only over the rows holding a repeated n-gram, from their first repeat;
    n-grams occurring once in their row cannot be skipped to, so they are left out of the scan's
    set (they only move it one window on).
    """
    result = np.zeros(n_rows)
    repeated = np.flatnonzero(count >= 2)
    if not len(repeated):
        return result
    first_seen = repeated[np.unique(ids[repeated], return_index=True)[1]]
    is_repeat = np.zeros(len(start), bool)
    is_repeat[repeated] = True
    is_repeat[first_seen] = False
    row = rows[start]
    bounds = np.flatnonzero(np.r_[True, row[1:] != row[:-1], True])
    has_repeat = np.add.reduceat(is_repeat, bounds[:-1]) > 0
    for lo, hi in zip(
        bounds[:-1][has_repeat].tolist(), bounds[1:][has_repeat].tolist(), strict=True
    ):
        begin = int(np.argmax(is_repeat[lo:hi]))
        window = ids[lo:hi].tolist()
        sizes = size[lo:hi].tolist()
        seen = {w for w in window[:begin] if w >= 0}
        total, i, end = 0, begin, hi - lo
        while i < end:
            w = window[i]
            if w in seen:
                total += sizes[i]
                i += n
            else:
                if w >= 0:
                    seen.add(w)
                i += 1
        result[row[lo]] = total
    return result
