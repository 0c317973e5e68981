"""The ``pii`` signal: e-mail addresses, phone numbers, IP addresses, payment cards, secrets."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated

from vendiscope.api import CancelToken, Choices, Progress, Signal, SignalColumn, Span
from vendiscope.plugins.signals._common import ROLES, spans_role, texts_of

if TYPE_CHECKING:
    import numpy as np

KIND_COLUMNS = {
    "EMAIL": "email",
    "PHONE": "phone",
    "IP": "ip-address",
    "CARD": "payment-card",
    "SECRET": "secret",
}
BATCH = 2_000


class Pii(Signal):
    """Personal data and secrets in each record, found by patterns (Luhn-checked card
    numbers; common API-key formats): a flag per kind, ``pii`` when any is found and
    ``pii-count``. A signal for review, not a guarantee: patterns miss and over-match.

    Parameters
    ----------
    role
        The text searched: ``all`` (prompt, response and text), ``prompt``, ``response`` or
        ``text``.
    """

    def __init__(self, role: Annotated[str, Choices(*ROLES)] = "all") -> None:
        self.role = role

    @property
    def columns(self) -> tuple[SignalColumn, ...]:
        kinds = tuple(
            SignalColumn(name, "flag", f"a {name.replace('-', ' ')} was found")
            for name in KIND_COLUMNS.values()
        )
        return (
            SignalColumn("pii", "flag", "any personal data or secret was found"),
            SignalColumn("pii-count", "number", "how many were found"),
            *kinds,
        )

    def compute(
        self,
        records: Sequence[dict[str, str | None]],
        *,
        progress: Progress,
        cancel: CancelToken,
    ) -> np.ndarray:
        import numpy as np

        from vendiscope.api import find_pii

        if self.role not in ROLES:
            raise ValueError(f"role must be one of {', '.join(ROLES)}; got {self.role!r}")
        kinds = list(KIND_COLUMNS)
        out = np.zeros((len(records), 2 + len(kinds)), dtype=np.float32)
        texts = texts_of(records, self.role)
        progress.start("Looking for personal data", total=len(records), unit="records")
        for start in range(0, len(texts), BATCH):
            cancel.raise_if_cancelled()
            found = find_pii(texts[start : start + BATCH])
            for row, spans in enumerate(found, start=start):
                out[row, 1] = len(spans)
                for kind, _, _ in spans:
                    out[row, 2 + kinds.index(kind)] = 1.0
            progress.update(min(start + BATCH, len(texts)), len(texts))
        out[:, 0] = out[:, 1] > 0
        progress.finish()
        return out

    def spans(self, record: dict[str, str | None]) -> list[Span]:
        from vendiscope.api import find_pii_spans

        return [
            Span(KIND_COLUMNS[kind], role, start, end, kind.lower())
            for role, text in spans_role(record, self.role)
            for kind, start, end in find_pii_spans(text)
        ]
