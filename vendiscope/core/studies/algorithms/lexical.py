"""The lexical diversity baseline: how many of a subset's n-grams are distinct (pure Python).

distinct-n (Li et al., 2016, "A Diversity-Promoting Objective Function for Neural Conversation
Models") is the share of a subset's n-grams that are distinct. The n-gram diversity score (NGD;
e.g. Meister et al., 2023, "Locally Typical Sampling") sums distinct-n over n = 1..4, so it runs
from 0 to 4. It is the baseline a study compares embedding-based diversity scores against.

Texts are lower-cased and split into words and punctuation marks (``\\w+|[^\\w\\s]``); each text's
n-grams stay inside that text, so no n-gram spans two texts.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

_TOKEN = re.compile(r"\w+|[^\w\s]")


def tokens(text: str) -> list[str]:
    """The lower-cased words and punctuation marks of ``text``."""
    return _TOKEN.findall(text.lower())


def distinct_n(texts: Sequence[str], n: int) -> float:
    """Distinct n-grams / all n-grams of ``texts`` (distinct-n, Li et al., 2016).

    1.0 when no n-gram repeats; repeated or duplicate texts lower it. NaN when the texts hold
    no n-gram (empty input, or every text shorter than ``n`` tokens).
    """
    if n < 1:
        raise ValueError(f"n must be at least 1, not {n}")
    return _distinct(_streams(texts), n)


def ngram_diversity(texts: Sequence[str], *, max_n: int = 4) -> float:
    """The n-gram diversity score (NGD): distinct-n summed over n = 1..max_n, from 0 to max_n.

    The lexical baseline: higher is more diverse. NaN when any n has no n-gram (empty input, or
    every text shorter than ``max_n`` tokens).
    """
    if max_n < 1:
        raise ValueError(f"max_n must be at least 1, not {max_n}")
    streams = _streams(texts)
    return math.fsum(_distinct(streams, n) for n in range(1, max_n + 1))


def _streams(texts: Sequence[str]) -> list[list[str]]:
    """Each text's tokens; a lone string is an error, not a sequence of one-letter texts."""
    if isinstance(texts, str):
        raise TypeError("texts must be a sequence of strings, not one string")
    return [tokens(text) for text in texts]


def _distinct(streams: list[list[str]], n: int) -> float:
    """distinct-n over token streams, each stream's n-grams taken within it."""
    seen: set[tuple[str, ...]] = set()
    total = 0
    for stream in streams:
        grams = [tuple(stream[i : i + n]) for i in range(len(stream) - n + 1)]
        seen.update(grams)
        total += len(grams)
    return len(seen) / total if total else math.nan
