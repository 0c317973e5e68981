"""The ``contamination`` signal: records sharing a word n-gram with a benchmark."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any, ClassVar

from vendiscope.api import CancelToken, Choices, Progress, Range, Signal, SignalColumn, Span
from vendiscope.plugins.signals._common import ROLES, spans_role, texts_of

if TYPE_CHECKING:
    import numpy as np


class Contamination(Signal):
    """Benchmark contamination, as GPT-3's and NeMo Curator's task decontamination: a record
    is ``contaminated`` when one of its word n-grams (13 by default, lower-cased) is an n-gram
    of an item of the target dataset (``--target BENCHMARK``); ``contamination-item`` is the
    position of that target record and ``contamination-matches`` the n-grams that match.

    Parameters
    ----------
    n
        Words per n-gram.
    role
        The record's text compared: ``all`` (prompt, response and text), ``prompt``,
        ``response`` or ``text``; the target's records are read whole (``all``).
    """

    needs_target: ClassVar[bool] = True

    def __init__(
        self, n: Annotated[int, Range(1, 64)] = 13, role: Annotated[str, Choices(*ROLES)] = "all"
    ) -> None:
        self.n = n
        self.role = role
        self._index: Any = None

    @property
    def columns(self) -> tuple[SignalColumn, ...]:
        return (
            SignalColumn("contaminated", "flag", "shares an n-gram with the target"),
            SignalColumn("contamination-item", "number", "the target record it matches"),
            SignalColumn("contamination-matches", "number", "n-grams matching the target"),
        )

    def fit_target(self, records: Sequence[dict[str, str | None]]) -> None:
        from vendiscope.api import build_ngram_index

        self._index = build_ngram_index(texts_of(records, "all"), n=self.n)

    def compute(
        self,
        records: Sequence[dict[str, str | None]],
        *,
        progress: Progress,
        cancel: CancelToken,
    ) -> np.ndarray:
        import numpy as np

        from vendiscope.api import find_contamination

        if self._index is None:
            raise ValueError("no target: contamination compares with a target dataset (--target)")
        cancel.raise_if_cancelled()
        found = find_contamination(texts_of(records, self.role), self._index)
        out = np.full((len(records), 3), np.nan, dtype=np.float32)
        out[:, 0] = found.contaminated
        out[:, 2] = found.matches
        hit = np.asarray(found.contaminated, dtype=bool)
        out[hit, 1] = np.asarray(found.target)[hit]
        return out

    def spans(self, record: dict[str, str | None]) -> list[Span]:
        """Where the first matching n-gram of each role lies (searched case-insensitively)."""
        from vendiscope.api import find_contamination

        if self._index is None:
            return []
        found = []
        for role, text in spans_role(record, self.role):
            ngram = find_contamination([text], self._index).ngram[0]
            if ngram is None:
                continue
            words = ngram.split()
            start = text.lower().find(words[0])
            end = text.lower().find(words[-1], start) + len(words[-1]) if start >= 0 else -1
            if 0 <= start < end <= len(text):
                found.append(Span("contaminated", role, start, end, "n-gram"))
        return found
