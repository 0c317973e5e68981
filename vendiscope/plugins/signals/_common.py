"""What the built-in signals share: which text of a record they read."""

from __future__ import annotations

from collections.abc import Sequence

ROLES = ("all", "prompt", "response", "text")
"""``all``: the prompt, the response and the text together (one blank line between)."""


def texts_of(records: Sequence[dict[str, str | None]], role: str) -> list[str]:
    """Each record's text for ``role`` (``""`` where it has none)."""
    if role == "all":
        return [
            "\n\n".join(t for t in (r.get("prompt"), r.get("response"), r.get("text")) if t)
            for r in records
        ]
    return [r.get(role) or "" for r in records]


def spans_role(record: dict[str, str | None], role: str) -> list[tuple[str, str]]:
    """``(role, text)`` pairs a span may point into (``all`` reads every role on its own)."""
    roles = ("prompt", "response", "text") if role == "all" else (role,)
    return [(name, text) for name in roles if (text := record.get(name))]
