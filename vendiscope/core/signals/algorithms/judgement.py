"""Reading the LLM judge's reply: a rating from 1 to 5 and a short reason.

The judge asks for ``{"rating": "N", "reason": "..."}`` (:data:`SCHEMA`, structured output
where the backend has it). A reply that is not that object is read as plain text as well as
can be (``Rating: 4 - ...``, ``4/5 ...``, a bare ``4`` first); what cannot be read is a
:class:`Judgement` with a NaN rating and the reason it failed (:attr:`Judgement.failure`).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass

SCHEMA = {
    "type": "object",
    "properties": {
        "rating": {"type": "string", "enum": ["1", "2", "3", "4", "5"]},
        "reason": {"type": "string"},
    },
    "required": ["rating", "reason"],
    "additionalProperties": False,
}
"""What the judge asks the generator for. The rating is one of the strings "1" to "5" (the
generator API's structured output is an object of text fields); the reply is read as a
number."""
MAX_REASON = 400
"""Characters of a reason kept (a longer one is cut with an ellipsis)."""
_LABELLED = re.compile(
    r"\b(?:rating|score|grade)\b\W{0,3}\s*(?:is\s*)?[:=]?\s*\**\s*([1-5])\b", re.I
)
_OUT_OF = re.compile(r"(?<![\d.])([1-5])\s*(?:/|out of)\s*5\b", re.I)
_LEADING = re.compile(r"^\W{0,3}([1-5])(?![\d.])\W")
_REASON = re.compile(r"\breason\b\W{0,3}\s*[:=]\s*(.+)", re.I | re.S)


@dataclass(frozen=True)
class Judgement:
    """One record's rating (NaN when the reply could not be read) and the reason."""

    rating: float
    reason: str
    failure: str | None = None
    """Why the reply could not be read (``None``: it was)."""
    asked: bool = True
    """``False``: the record was not sent to the judge (nothing in it to judge)."""

    @property
    def text(self) -> str:
        """What is stored as the record's reason: the judge's, or why there is no rating."""
        if self.failure is None:
            return self.reason
        if not self.asked:
            return f"not judged: {self.failure}"
        return f"could not read the reply ({self.failure})" + (
            f": {self.reason}" if self.reason else ""
        )


_FAILED = re.compile(r"^could not read the reply \((.*?)\)(?::|$)", re.S)


def failure_of(text: str | None) -> str | None:
    """Why a stored reason has no rating (:attr:`Judgement.text` of a failure), else None."""
    match = _FAILED.match(text or "")
    return match.group(1) if match else None


def failed(failure: str, reply: str | None = None) -> Judgement:
    """A judgement with no rating, saying why (and what the judge wrote, cut short)."""
    return Judgement(math.nan, _short(reply or ""), failure)


def parse_judgement(text: str | None, finish_reason: str | None = None) -> Judgement:
    """The rating and reason in a judge's reply (see the module's docstring)."""
    if text is None or not text.strip():
        return failed("the reply was empty")
    found = _json_object(text)
    if found is not None:
        rating = _rating(found.get("rating"))
        reason = str(found.get("reason") or "").strip()
        if rating is None:
            return failed(f"the rating {found.get('rating')!r} is not a whole number 1-5", text)
        return Judgement(float(rating), _short(reason))
    for pattern in (_LABELLED, _OUT_OF, _LEADING):
        match = pattern.search(text.strip())
        if match:
            reason_match = _REASON.search(text)
            reason = reason_match.group(1) if reason_match else text.strip()
            return Judgement(float(match.group(1)), _short(reason.strip().strip('"}').strip()))
    if finish_reason == "length":
        return failed("the reply was cut at max_new_tokens before a rating", text)
    return failed("no rating 1-5 in the reply", text)


def _json_object(text: str) -> dict[str, object] | None:
    """The first JSON object in ``text`` that has a ``rating`` (bare, fenced or in prose)."""
    decoder = json.JSONDecoder(strict=False)
    for start in (i for i, c in enumerate(text) if c == "{"):
        try:
            found, _ = decoder.raw_decode(text, start)
        except ValueError:
            continue
        if isinstance(found, dict) and "rating" in found:
            return found
    return None


def _rating(value: object) -> int | None:
    """A rating 1-5 from an int, a whole float or a text such as ``"4"`` or ``"4/5"``."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        number = float(value)
    elif isinstance(value, str):
        match = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*(?:/\s*5)?\s*", value)
        if match is None:
            return None
        number = float(match.group(1))
    else:
        return None
    if number != int(number) or not 1 <= number <= 5:
        return None
    return int(number)


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_REASON else text[: MAX_REASON - 1].rstrip() + "…"


__all__ = ["MAX_REASON", "SCHEMA", "Judgement", "failed", "failure_of", "parse_judgement"]
