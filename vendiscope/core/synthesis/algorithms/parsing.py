"""Reading a generated example out of a generator's text: one JSON object with the dataset's keys.

The object is accepted bare, inside a fenced code block, or embedded in other text (the first
object that has every key wins). Anything else is a reject with a short reason, counted per
round; the reasons are the constants below, so counts group.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

REQUEST_FAILED = "request failed"
TRUNCATED = "truncated (token limit)"
EMPTY = "empty output"
NO_JSON = "no JSON object"
MISSING_KEY = "missing key"
EMPTY_VALUE = "empty value"
NOT_TEXT = "value is not text"
FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)


@dataclass(frozen=True)
class Parsed:
    """The example's values by key, or why there is none (``reason`` and a ``detail``)."""

    values: dict[str, str] | None
    reason: str | None = None
    detail: str = ""


def parse_example(
    text: str | None, keys: Sequence[str], *, finish_reason: str | None = None
) -> Parsed:
    """The example in ``text``.

    A complete object with every key is taken even when the generator went on writing
    until its token limit (``finish_reason == "length"``): its closing brace was read, so
    its values are whole. Without one, a cut-off output is rejected as truncated.
    """
    cut = finish_reason == "length"
    if text is None or not text.strip():
        return Parsed(None, TRUNCATED if cut else EMPTY)
    objects = list(_objects(text))
    if not objects:
        if cut:
            return Parsed(None, TRUNCATED, "the generator stopped at its token limit")
        return Parsed(None, NO_JSON, "no {...} object could be read as JSON")
    first_problem: Parsed | None = None
    for found in objects:
        checked = _check(found, keys)
        if checked.values is not None:
            return checked
        first_problem = first_problem or checked
    assert first_problem is not None
    if cut:
        return Parsed(None, TRUNCATED, f"cut at the token limit; {first_problem.detail}")
    return first_problem


def _check(found: dict, keys: Sequence[str]) -> Parsed:
    values: dict[str, str] = {}
    for key in keys:
        if key not in found:
            return Parsed(None, MISSING_KEY, f"no '{key}' in the object")
        value = found[key]
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            return Parsed(None, NOT_TEXT, f"'{key}' is {type(value).__name__}, not text")
        value = str(value).strip()
        if not value:
            return Parsed(None, EMPTY_VALUE, f"'{key}' is empty")
        values[key] = value
    return Parsed(values)


def _objects(text: str):
    """JSON objects in ``text``: the whole text, then fenced blocks, then any embedded one.

    Raw line breaks and tabs inside a string are taken as written (``strict=False``): models
    write them, and constrained decoders let them through.
    """
    decoder = json.JSONDecoder(strict=False)
    candidates = [text.strip(), *(m.group(1).strip() for m in FENCE.finditer(text))]
    for candidate in candidates:
        try:
            value = decoder.decode(candidate)
        except ValueError:
            continue
        if isinstance(value, dict):
            yield value
    for start in (i for i, c in enumerate(text) if c == "{"):
        try:
            value, _ = decoder.raw_decode(text, start)
        except ValueError:
            continue
        if isinstance(value, dict):
            yield value
