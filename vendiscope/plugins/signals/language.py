"""The ``language`` signal: the language of each record, with the detector's confidence."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated

from vendiscope.api import CancelToken, Choices, Progress, Signal, SignalColumn
from vendiscope.plugins.signals._common import ROLES, texts_of

if TYPE_CHECKING:
    import numpy as np

BATCH = 1_000


class Language(Signal):
    """The most likely language of each record (ISO 639-1 code; lingua's models, shipped in
    its package, no download) and the detector's confidence (0 to 1).

    Parameters
    ----------
    role
        The text read: ``all`` (prompt, response and text), ``prompt``, ``response`` or
        ``text``.
    languages
        Comma-separated ISO 639-1 codes to choose among (``"en,de,fr"``: faster and more
        confident); empty: all 75 the detector knows.
    accurate
        Use all of the detector's models (slower; better on very short texts).
    """

    def __init__(
        self,
        role: Annotated[str, Choices(*ROLES)] = "all",
        languages: str = "",
        accurate: bool = False,
    ) -> None:
        self.role = role
        self.languages = languages
        self.accurate = accurate

    def _chosen(self) -> list[str] | None:
        codes = [c.strip().lower() for c in self.languages.split(",") if c.strip()]
        return codes or None

    @property
    def columns(self) -> tuple[SignalColumn, ...]:
        from vendiscope.api import supported_languages

        categories = tuple(sorted(self._chosen() or supported_languages()))
        return (
            SignalColumn("language", "label", "ISO 639-1 code", categories=categories),
            SignalColumn("language-confidence", "number", "the detector's confidence"),
        )

    def compute(
        self,
        records: Sequence[dict[str, str | None]],
        *,
        progress: Progress,
        cancel: CancelToken,
    ) -> np.ndarray:
        import numpy as np

        from vendiscope.api import detect_languages

        if self.role not in ROLES:
            raise ValueError(f"role must be one of {', '.join(ROLES)}; got {self.role!r}")
        categories = self.columns[0].categories
        out = np.zeros((len(records), 2), dtype=np.float32)
        texts = texts_of(records, self.role)
        progress.start("Identifying languages", total=len(records), unit="records")
        for start in range(0, len(texts), BATCH):
            cancel.raise_if_cancelled()
            codes, confidence = detect_languages(
                texts[start : start + BATCH], accurate=self.accurate, languages=self._chosen()
            )
            rows = slice(start, start + len(codes))
            out[rows, 0] = [categories.index(c) if c in categories else -1 for c in codes]
            out[rows, 1] = confidence
            progress.update(min(start + BATCH, len(texts)), len(texts))
        progress.finish()
        return out
