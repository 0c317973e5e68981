"""Help text per parameter from the "Parameters" section of a numpy-style docstring."""

from __future__ import annotations

import inspect
import re

_SECTION = re.compile(r"^\s*-{3,}\s*$")


def parse_numpy_params(doc: str | None) -> dict[str, str]:
    """Help text per parameter from the "Parameters" section of a numpy-style docstring.

    Handles ``name``, ``name : type`` and ``a, b`` (shared) entries; each help text is one
    paragraph with whitespace collapsed.
    """
    if not doc:
        return {}
    lines = inspect.cleandoc(doc).splitlines()
    found: dict[str, str] = {}
    start = None
    for index, line in enumerate(lines[:-1]):
        if line.strip() == "Parameters" and _SECTION.match(lines[index + 1]):
            start = index + 2
            break
    if start is None:
        return found
    names: list[str] = []
    text: list[str] = []

    def flush() -> None:
        for name in names:
            found[name] = " ".join(" ".join(text).split()).replace("``", "")

    for index in range(start, len(lines)):
        line = lines[index]
        if index + 1 < len(lines) and _SECTION.match(lines[index + 1]) and line.strip():
            break  # the next section's title
        if line and not line[0].isspace():
            flush()
            names = [n.strip().lstrip("*") for n in line.split(":")[0].split(",") if n.strip()]
            text = []
        elif line.strip():
            text.append(line.strip())
    flush()
    return found


__all__ = ["parse_numpy_params"]
