"""Generated, realistic-looking texts for the curation-signal tests and benchmarks (seeded)."""

from __future__ import annotations

import numpy as np

COMMON = [
    "the",
    "be",
    "to",
    "of",
    "and",
    "a",
    "in",
    "that",
    "have",
    "it",
    "for",
    "not",
    "on",
    "with",
    "he",
    "as",
    "you",
    "do",
    "at",
    "this",
    "but",
    "his",
    "by",
    "from",
    "they",
    "we",
    "say",
    "her",
    "she",
    "or",
    "an",
    "will",
    "my",
    "one",
    "all",
    "would",
    "there",
    "their",
    "what",
    "so",
    "up",
    "out",
    "if",
    "about",
    "who",
    "get",
    "which",
    "go",
    "me",
    "when",
    "make",
    "can",
    "like",
    "time",
    "no",
    "just",
    "him",
    "know",
    "take",
    "people",
    "into",
    "year",
    "your",
    "good",
    "some",
    "could",
    "them",
    "see",
    "other",
    "than",
    "then",
    "now",
    "look",
    "only",
    "come",
    "its",
    "over",
    "think",
    "also",
    "back",
    "after",
    "use",
    "two",
    "how",
    "our",
    "work",
    "first",
    "well",
    "way",
    "even",
    "new",
    "want",
    "because",
    "any",
    "these",
    "give",
    "day",
    "most",
    "us",
    "is",
    "was",
    "are",
    "were",
    "been",
]
SYLLABLES = [
    "ka",
    "ri",
    "to",
    "ne",
    "mo",
    "sa",
    "lu",
    "pe",
    "vi",
    "da",
    "co",
    "ber",
    "tan",
    "gel",
    "for",
    "mis",
    "ul",
    "tra",
    "pro",
    "con",
    "sti",
    "ment",
    "ing",
    "ed",
]
UNICODE_WORDS = ["café", "naïve", "Straße", "über", "façade", "中文", "日本語", "Привет", "μάθημα"]


def vocabulary(rng: np.random.Generator, size: int = 4000) -> list[str]:
    words: set[str] = set()
    while len(words) < size:
        k = int(rng.integers(1, 5))
        words.add("".join(rng.choice(SYLLABLES, size=k)))
    ordered = sorted(words)
    rng.shuffle(ordered)
    return ordered


def _ranks(rng: np.random.Generator, size: int, n: int, offset: float) -> np.ndarray:
    """``n`` ranks below ``size`` drawn with probability proportional to 1 / (rank + offset)."""
    cdf = np.cumsum(1.0 / (np.arange(size) + offset))
    return np.searchsorted(cdf, rng.random(n) * cdf[-1])


def _sentence(rng: np.random.Generator, vocab: list[str], n_words: int) -> str:
    kind = rng.random(n_words)
    common = _ranks(rng, len(COMMON), n_words, 2.0)
    rare = _ranks(rng, len(vocab), n_words, 20.0)
    words = []
    for i in range(n_words):
        if kind[i] < 0.45:
            words.append(COMMON[common[i]])
        elif kind[i] < 0.97:
            words.append(vocab[rare[i]])
        elif kind[i] < 0.985:
            words.append(str(int(rng.integers(0, 10_000))))
        else:
            words.append(UNICODE_WORDS[int(rng.integers(len(UNICODE_WORDS)))])
    if n_words > 6 and rng.random() < 0.5:
        words[int(rng.integers(1, n_words - 1))] += ","
    text = " ".join(words)
    return text[:1].upper() + text[1:] + str(rng.choice([".", ".", ".", "!", "?"]))


def _paragraph(rng: np.random.Generator, vocab: list[str]) -> str:
    return " ".join(
        _sentence(rng, vocab, int(rng.integers(5, 25))) for _ in range(int(rng.integers(1, 7)))
    )


def make_text(rng: np.random.Generator, vocab: list[str]) -> str:
    kind = rng.choice(
        ["prose", "prose", "prose", "short", "list", "repeat", "hashtags", "ellipsis", "numbers",
         "cut", "empty"],
        p=[0.3, 0.2, 0.1, 0.08, 0.06, 0.07, 0.04, 0.04, 0.04, 0.05, 0.02],
    )  # fmt: skip
    if kind == "empty":
        return str(rng.choice(["", " ", "\n\n"]))
    if kind == "short":
        return _sentence(rng, vocab, int(rng.integers(2, 30)))
    if kind == "list":
        bullet = str(rng.choice(["- ", "• ", "  - "]))
        lines = [bullet + _sentence(rng, vocab, int(rng.integers(3, 12))) for _ in range(12)]
        if rng.random() < 0.5:
            lines.insert(0, _sentence(rng, vocab, 8))
        return "\n".join(lines)
    if kind == "repeat":
        paragraphs = [_paragraph(rng, vocab) for _ in range(int(rng.integers(1, 4)))]
        repeated = [paragraphs[int(rng.integers(len(paragraphs)))] for _ in range(4)]
        return "\n\n".join(paragraphs + repeated)
    if kind == "hashtags":
        words = [
            f"#{vocab[int(rng.integers(len(vocab)))]}" for _ in range(int(rng.integers(5, 30)))
        ]
        return _paragraph(rng, vocab) + " " + " ".join(words)
    if kind == "ellipsis":
        return "\n".join(
            _sentence(rng, vocab, int(rng.integers(4, 14)))[:-1] + str(rng.choice(["...", "…"]))
            for _ in range(int(rng.integers(3, 10)))
        )
    if kind == "numbers":
        rows = [
            " | ".join(str(int(x)) for x in rng.integers(0, 100_000, size=6)) for _ in range(20)
        ]
        return _sentence(rng, vocab, 10) + "\n" + "\n".join(rows)
    text = "\n\n".join(_paragraph(rng, vocab) for _ in range(int(rng.integers(1, 6))))
    if kind == "cut":
        text = text[: max(1, int(len(text) * rng.uniform(0.3, 0.9)))]
    return text


def make_texts(n: int, seed: int = 0) -> list[str]:
    """``n`` varied texts: prose, short lines, bullet lists, repeated paragraphs, hashtags,
    ellipsis lines, number tables, cut-off prose and empty texts."""
    rng = np.random.default_rng(seed)
    vocab = vocabulary(rng)
    return [make_text(rng, vocab) for _ in range(n)]
