"""The LLM judge's rubric: what the judge is told, the 1-5 scale and the prompt template, as
an editable Markdown file.

A rubric file has three sections, each a ``## `` heading (in any order; anything before the
first heading is a note for people and is ignored):

``## Instructions``
    What the judge is asked to look at.
``## Scale``
    One line per score, ``1: what a 1 means`` up to ``5: ...`` (a leading ``-`` is fine).
``## Template``
    The record as the judge sees it, with the placeholders ``{prompt}``, ``{response}`` and
    ``{text}`` (the record's roles; at least ``{response}`` or ``{text}``). Literal braces
    are written ``{{`` and ``}}``.

A bad rubric raises :class:`RubricError` naming the file and the line. The built-in rubric
(:func:`builtin_rubric_text`) rates an instruction's response; write it to a file with
``vendiscope signals ... --write-rubric FILE`` to edit it.
"""

from __future__ import annotations

import hashlib
import re
import string
from dataclasses import dataclass
from pathlib import Path

from vendiscope.core.base.errors import VendiscopeError

SECTIONS = ("instructions", "scale", "template")
FIELDS = ("prompt", "response", "text")
"""The placeholders a template may use: the record's roles."""
JUDGED = ("response", "text")
"""A template uses at least one of these: what is judged."""
SCORES = (1, 2, 3, 4, 5)
MISSING = "(none)"
"""What a placeholder shows for a record without that role."""
ANSWER = (
    'Reply with exactly one JSON object and nothing else, with two keys: "rating", the score '
    'from the scale as text ("1" to "5"), and "reason", one short sentence of your own that '
    "says why."
)
"""Appended to the instructions: the reply the judge parses (not part of the file)."""
BUILTIN = "quality.md"
_HEADING = re.compile(r"^##\s+(.*?)\s*$")
_SCALE_LINE = re.compile(r"^\s*(?:[-*]\s*)?(\d+)\s*[:=.)-]\s*(.*?)\s*$")


class RubricError(VendiscopeError, ValueError):
    """A rubric that cannot be used, with the file and the line at fault."""

    def __init__(self, source: str, line: int | None, message: str) -> None:
        where = f"rubric {source}" + (f", line {line}" if line else "")
        super().__init__(f"{where}: {message}")
        self.source = source
        self.line = line


@dataclass(frozen=True)
class Rubric:
    """A parsed rubric: its name (the file's, or ``built-in``), sections and content digest."""

    name: str
    instructions: str
    scale: tuple[tuple[int, str], ...]
    template: str
    digest: str

    def system_prompt(self) -> str:
        """The instructions, the scale and the reply format: the judge's system message."""
        scale = "\n".join(f"{score}: {meaning}" for score, meaning in self.scale)
        return f"{self.instructions}\n\nScale:\n{scale}\n\n{ANSWER}"

    def user_prompt(self, record: dict[str, str | None], max_chars: int) -> str:
        """The template filled with ``record``'s roles, each cut to ``max_chars`` characters."""
        values = {}
        for field in FIELDS:
            text = (record.get(field) or "").strip()
            if len(text) > max_chars:
                text = text[:max_chars].rstrip() + " [...]"
            values[field] = text or MISSING
        return self.template.format(**values)

    def messages(self, record: dict[str, str | None], max_chars: int) -> list[dict[str, str]]:
        """The chat prompt that asks for ``record``'s rating."""
        return [
            {"role": "system", "content": self.system_prompt()},
            {"role": "user", "content": self.user_prompt(record, max_chars)},
        ]


def builtin_rubric_text() -> str:
    """The built-in rubric file's text (what ``--write-rubric`` writes)."""
    return (Path(__file__).parents[3] / "resources" / "rubrics" / BUILTIN).read_text("utf-8")


def load_rubric(path: str | Path | None = None) -> Rubric:
    """The rubric in file ``path``; the built-in one when ``path`` is empty or ``None``."""
    if not path:
        return parse_rubric(builtin_rubric_text(), "built-in")
    file = Path(path).expanduser()
    try:
        text = file.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise RubricError(file.name, None, f"not UTF-8 text ({exc.reason})") from None
    except OSError as exc:
        raise RubricError(str(path), None, f"cannot be read ({exc.strerror or exc})") from None
    return parse_rubric(text, file.name)


def parse_rubric(text: str, source: str) -> Rubric:
    """Parse a rubric file's ``text``; :class:`RubricError` names ``source`` and the line."""
    sections: dict[str, tuple[int, list[tuple[int, str]]]] = {}
    current: list[tuple[int, str]] | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        heading = _HEADING.match(line)
        if heading:
            name = heading.group(1).lower()
            if name not in SECTIONS:
                raise RubricError(
                    source, number, f"unknown section '## {heading.group(1)}' (sections: "
                    f"{', '.join('## ' + s.title() for s in SECTIONS)})",
                )  # fmt: skip
            if name in sections:
                raise RubricError(source, number, f"the section '## {name.title()}' appears twice")
            current = []
            sections[name] = (number, current)
        elif current is not None:
            current.append((number, line))
    for name in SECTIONS:
        if name not in sections:
            raise RubricError(source, None, f"no '## {name.title()}' section")
    instructions = _body(sections["instructions"][1])
    if not instructions:
        heading_line = sections["instructions"][0]
        raise RubricError(source, heading_line, "the '## Instructions' section is empty")
    scale = _scale(source, *sections["scale"])
    template = _template(source, *sections["template"])
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return Rubric(source, instructions, scale, template, digest)


def _body(lines: list[tuple[int, str]]) -> str:
    return "\n".join(line for _, line in lines).strip()


def _scale(source: str, heading: int, lines: list[tuple[int, str]]) -> tuple[tuple[int, str], ...]:
    found: dict[int, str] = {}
    for number, line in lines:
        if not line.strip():
            continue
        match = _SCALE_LINE.match(line)
        if match is None:
            raise RubricError(
                source, number, f"a scale line reads '3: what a 3 means', not '{line.strip()}'"
            )
        score, meaning = int(match.group(1)), match.group(2)
        if score not in SCORES:
            raise RubricError(source, number, f"score {score} is not one of 1 to 5")
        if score in found:
            raise RubricError(source, number, f"score {score} appears twice in the scale")
        if not meaning:
            raise RubricError(source, number, f"score {score} says nothing")
        found[score] = meaning
    missing = [score for score in SCORES if score not in found]
    if missing:
        scores = ", ".join(str(score) for score in missing)
        raise RubricError(source, heading, f"the scale has no line for score {scores}")
    return tuple((score, found[score]) for score in SCORES)


def _template(source: str, heading: int, lines: list[tuple[int, str]]) -> str:
    used: set[str] = set()
    for number, line in lines:
        try:
            fields = [field for _, field, _, _ in string.Formatter().parse(line)]
        except ValueError as exc:
            raise RubricError(
                source, number, f"{exc} (write {{{{ and }}}} for a literal brace)"
            ) from None
        for field in fields:
            if field is None:
                continue
            if field not in FIELDS:
                known = ", ".join("{" + f + "}" for f in FIELDS)
                raise RubricError(
                    source, number, f"unknown placeholder {{{field}}} (known: {known}; "
                    "write {{ for a literal brace)",
                )  # fmt: skip
            used.add(field)
    template = _body(lines)
    if not used & set(JUDGED):
        raise RubricError(
            source, heading, "the template has neither {response} nor {text}: nothing to judge"
        )
    return template


__all__ = [
    "ANSWER",
    "FIELDS",
    "Rubric",
    "RubricError",
    "builtin_rubric_text",
    "load_rubric",
    "parse_rubric",
]
