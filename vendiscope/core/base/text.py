"""User text made inert for people: control characters shown, never obeyed.

Records, source names and file names can hold escape sequences (``ESC[2J`` clears a
terminal, ``ESC]0;`` retitles it, OSC 8 makes links), bidirectional overrides (U+202E
reverses what follows) and characters XML forbids. Every human-readable output — tables,
messages, chart labels, SVG — shows them as visible escapes instead; ``--json`` and
``--raw`` outputs stay faithful.
"""

from __future__ import annotations

import re
from typing import Any

# C0 controls except tab and newline, DEL, C1 controls, bidi embeddings/overrides/isolates,
# line/paragraph separators, and the non-characters XML refuses.
_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ufffe\uffff]"
)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str, *, newlines: bool = True) -> str:
    """``text`` with every control or reordering character written as a visible escape."""
    shown = _UNSAFE.sub(_escape, text)
    return shown if newlines else shown.replace("\n", "\\n").replace("\t", "\\t")


def shown_path(path: object) -> str:
    """A path for a message: on one line, its newlines and control characters escaped, so
    ``new\\nline.jsonl`` reads as one name and a name cannot forge another line."""
    return printable(str(path), newlines=False)


def has_control_characters(text: str) -> bool:
    """Whether ``text`` holds anything :func:`printable` would escape (tab and newline too)."""
    return bool(_UNSAFE.search(text)) or "\n" in text or "\t" in text


def printable_tree(value: Any) -> Any:
    """:func:`printable` applied to every string inside dicts, lists and tuples.

    A list whose first item is a number is taken for a column of numbers (as every array
    of a validated chart is) and returned as it is, so a million-point map costs nothing.
    """
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, dict):
        return {printable_tree(k): printable_tree(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        if value and isinstance(value[0], int | float) and not isinstance(value[0], bool):
            return value  # a column of numbers (a chart's x, y): nothing to show differently
        return type(value)(printable_tree(v) for v in value)
    return value


MAX_NAME = 200


def check_name(name: object, what: str) -> str:
    """A name people type and read (dataset, subset): 1-200 printable characters.

    No control or reordering characters, no tab or newline, not starting with a space or
    '/' (names are also parts of keys such as ``scores/run-3``).
    """
    if (
        not isinstance(name, str)
        or not 1 <= len(name) <= MAX_NAME
        or has_control_characters(name)
        or name[0].isspace()
        or name.startswith("/")
    ):
        from vendiscope.core.base.errors import ProjectError

        shown = printable(str(name), newlines=False)
        raise ProjectError(
            f"{what} name '{shown}' is not valid: use 1-{MAX_NAME} characters without control "
            "characters, tabs or newlines, not starting with a space or '/'"
        )
    return name


def printable_name(text: str) -> str:
    """``text`` (e.g. a file name) turned into a valid name: unsafe characters become '_'."""
    safe = _UNSAFE.sub("_", text).replace("\n", "_").replace("\t", "_").lstrip(" /")
    return safe[:MAX_NAME] or "dataset"


def shorten(text: str | None, width: int = 80) -> str:
    """``text`` on one line (runs of whitespace made one space), cut to ``width`` characters
    with an ellipsis; ``""`` for ``None`` or empty text."""
    if not text:
        return ""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"
