"""The ``text-stats`` signal: Gopher-style quality heuristics of each record's text."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated

from vendiscope.api import CancelToken, Choices, Progress, Signal, SignalColumn
from vendiscope.plugins.signals._common import ROLES, texts_of

if TYPE_CHECKING:
    import numpy as np

NUMBERS = (
    ("words", "words", "word tokens"),
    ("chars", "chars", "characters"),
    ("mean-word-length", "mean_word_length", "mean characters of the word tokens"),
    ("symbol-ratio", "hash_ratio", "'#' per token"),
    ("ellipsis-ratio", "ellipsis_ratio", "'...' and '…' per token"),
    ("digit-ratio", "digit_ratio", "decimal digits per character"),
    ("non-alpha-ratio", "non_alpha_word_ratio", "share of tokens with no letter"),
    ("dup-line-frac", "dup_line_frac", "share of lines repeating an earlier line"),
    ("dup-para-frac", "dup_para_frac", "share of paragraphs repeating an earlier one"),
    ("top-2gram-frac", "top_2gram_char_frac", "characters in the most frequent word 2-gram"),
    ("top-4gram-frac", "top_4gram_char_frac", "characters in the most frequent word 4-gram"),
)
"""(column, the heuristic of :func:`vendiscope.api.text_stats`, what it measures)."""
REPETITION_RULES = ("dup_", "top_", "duplicated_")
"""The Gopher repetition rules (by name prefix): repeated lines, paragraphs and n-grams."""
MIN_WORDS = 50
"""Gopher's own shortest document: below it the repetition rules say little (a one-line
answer's top 4-gram is most of it), so ``low-quality`` does not apply them there."""


class TextStats(Signal):
    """Gopher-style heuristics (as datatrove and NeMo Curator apply them) of each record.

    Numbers (word counts, symbol, digit and non-alphabetic ratios, repeated lines, paragraphs
    and n-grams), the flags ``truncated`` (the text stops mid-sentence), ``empty``, and
    ``low-quality``: a Gopher repetition rule (repeated lines, paragraphs or n-grams, at
    datatrove's thresholds) removes a record of at least 50 words.

    The Gopher quality rules were made for web pages: on instruction data they remove most
    records (in the bundled demo, 69% are "too short" and every arithmetic and code record has
    "too few alphabetic words"). They count in ``low-quality`` only with ``document_rules``;
    their numbers are columns to filter on (``--keep 'non-alpha-ratio < 0.5'``).

    Parameters
    ----------
    role
        The text measured: ``all`` (prompt, response and text together), ``prompt``,
        ``response`` or ``text``.
    document_rules
        ``low-quality`` applies every Gopher rule, quality and repetition, to every record, as
        datatrove does for web documents.
    """

    def __init__(
        self, role: Annotated[str, Choices(*ROLES)] = "all", document_rules: bool = False
    ) -> None:
        self.role = role
        self.document_rules = document_rules

    @property
    def columns(self) -> tuple[SignalColumn, ...]:
        numbers = tuple(SignalColumn(name, "number", help) for name, _, help in NUMBERS)
        return (
            *numbers,
            SignalColumn(
                "truncated",
                "flag",
                "the text stops without ending its sentence (a closing "
                "code fence ends one; so may a poem's last line: check before dropping)",
            ),
            SignalColumn("empty", "flag", "no text"),
            SignalColumn("empty-response", "flag", "a prompt without a response"),
            SignalColumn("low-quality", "flag", "a Gopher repetition rule removes it (50+ words)"),
        )

    def compute(
        self,
        records: Sequence[dict[str, str | None]],
        *,
        progress: Progress,
        cancel: CancelToken,
    ) -> np.ndarray:
        import numpy as np

        from vendiscope.api import gopher_flags, text_stats

        if self.role not in ROLES:
            raise ValueError(f"role must be one of {', '.join(ROLES)}; got {self.role!r}")
        out = np.zeros((len(records), len(NUMBERS) + 4), dtype=np.float32)
        if not records:
            return out
        cancel.raise_if_cancelled()
        texts = texts_of(records, self.role)
        stats = text_stats(texts)
        for index, (_, key, _) in enumerate(NUMBERS):
            out[:, index] = stats[key]
        rules = gopher_flags(stats)
        if self.document_rules:
            low = np.asarray(rules["quality"], dtype=bool) | np.asarray(rules["repetition"], bool)
        else:
            low = np.zeros(len(records), dtype=bool)
            for rule in (r for r in rules if r.startswith(REPETITION_RULES)):
                low |= np.asarray(rules[rule], dtype=bool)
            low &= np.asarray(stats["words"]) >= MIN_WORDS
        empty = np.asarray(stats["empty"], dtype=bool)
        fenced = np.asarray([t.rstrip().endswith("```") for t in texts], dtype=bool)
        out[:, len(NUMBERS)] = np.asarray(stats["truncated"], dtype=bool) & ~empty & ~fenced
        out[:, len(NUMBERS) + 1] = empty
        out[:, len(NUMBERS) + 2] = [
            bool((r.get("prompt") or "").strip()) and not (r.get("response") or "").strip()
            for r in records
        ]
        out[:, len(NUMBERS) + 3] = low & ~empty
        return out

    @property
    def model_id(self) -> str:
        return f"text-stats/v3/role={self.role}/document_rules={self.document_rules}"

    def describe(self) -> dict[str, object]:
        return {"role": self.role, "document_rules": self.document_rules}
