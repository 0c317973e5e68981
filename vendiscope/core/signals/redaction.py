"""Redaction on export: personal data and secrets replaced in the rows written, never in the
project (``vendiscope export --redact pii``)."""

from __future__ import annotations

from typing import Any

from vendiscope.core.base.errors import ProjectError
from vendiscope.core.io.exporting import Redaction

KINDS = ("pii",)
"""What ``--redact`` can remove."""


def redaction(kind: str) -> Redaction:
    """The redaction named ``kind`` (``pii``: e-mail addresses, phone numbers, IP addresses,
    payment cards and secrets become ``[EMAIL]``, ``[PHONE]``, ``[IP]``, ``[CARD]``,
    ``[SECRET]`` in every text value of a row, nested ones included)."""
    if kind not in KINDS:
        raise ProjectError(f"--redact: unknown kind '{kind}' (kinds: {', '.join(KINDS)})")
    return Redaction(
        "pii",
        "e-mail addresses, phone numbers, IP addresses, payment cards and secrets replaced by "
        "[EMAIL], [PHONE], [IP], [CARD], [SECRET] (patterns: a review aid, not a guarantee)",
        _redact_row,
    )


def _redact_row(row: dict[str, Any]) -> dict[str, Any]:
    redacted = _redact(row)
    assert isinstance(redacted, dict)
    return redacted


def _redact(value: Any) -> Any:
    from vendiscope.core.signals.algorithms.pii import find_spans, redact

    if isinstance(value, str):
        spans = find_spans(value)
        return redact(value, spans) if spans else value
    if isinstance(value, dict):
        return {key: _redact(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_redact(item) for item in value]
    return value


__all__ = ["KINDS", "redaction"]
