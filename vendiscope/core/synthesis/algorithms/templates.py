"""Prompt templates: what the generator is asked, one family per kind of task, editable as a file.

A template is UTF-8 text with a ``[system]`` and a ``[user]`` section (the system section may
be empty or absent). Placeholders, filled by :func:`render`:

``{examples}``
    The seed examples, one JSON object per line (the dataset's own keys).
``{count}``
    How many seed examples there are.
``{keys}``
    The keys the answer must have, e.g. ``"prompt", "response"``.
``{format}``
    A one-line JSON skeleton of the answer, e.g. ``{"prompt": "...", "response": "..."}``.
``{labels}``
    The labels seen in the seed examples (NLI), comma-separated.

Literal braces are written ``{{`` and ``}}``. Write a family's default to a file with
``vendiscope synthesize --write-template FAMILY FILE``, edit it, and pass ``--template FILE``.
"""

from __future__ import annotations

import hashlib
import json
import re
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FIELDS = ("examples", "count", "keys", "format", "labels")
SECTION = re.compile(r"^\[(system|user)\]\s*$", re.MULTILINE)

_INTRO = "You write new, varied training examples for a language model."
_ANSWER = (
    "Reply with exactly one JSON object, with the keys {keys} and string values, and nothing "
    "else:\n{format}"
)
FAMILIES: dict[str, str] = {
    "instruction": f"""[system]
{_INTRO}
[user]
Here are {{count}} examples from an instruction dataset, one JSON object per line:

{{examples}}

Write ONE new example of the same kind: an instruction a user could give and a helpful,
correct response. Make it clearly different from the examples in topic and wording.
{_ANSWER}
""",
    "qa": f"""[system]
{_INTRO}
[user]
Here are {{count}} question-answer pairs from a dataset, one JSON object per line:

{{examples}}

Write ONE new question of the same kind, on a different topic, with its correct answer.
{_ANSWER}
""",
    "math": f"""[system]
{_INTRO}
[user]
Here are {{count}} math problems with worked solutions, one JSON object per line:

{{examples}}

Write ONE new problem of similar difficulty that needs a different idea, with a worked
solution that ends with "The final answer is X." where X is the answer.
{_ANSWER}
""",
    "nli": f"""[system]
{_INTRO}
[user]
Here are {{count}} natural-language-inference examples (a premise, a hypothesis and whether
the premise entails it), one JSON object per line:

{{examples}}

Write ONE new example about a different situation. Its label must be one of: {{labels}}.
{_ANSWER}
""",
}
DEFAULT_FAMILY = "instruction"


@dataclass(frozen=True)
class Template:
    """A parsed template: its name (a family or a file name), sections and a content digest."""

    name: str
    system: str
    user: str
    digest: str

    def describe(self) -> dict[str, str]:
        return {"template": self.name, "template_sha256": self.digest}


def family_for(keys: Sequence[str], roles: Mapping[str, str]) -> str:
    """The family that fits a dataset: NLI when it has labels, Q&A when its keys say so."""
    lowered = {k.lower() for k in keys}
    if "label" in roles:
        return "nli"
    if lowered & {"question", "query"} and lowered & {"answer", "answers"}:
        return "qa"
    if lowered & {"problem"} or lowered & {"solution"}:
        return "math"
    return DEFAULT_FAMILY


def parse_template(text: str, name: str) -> Template:
    """Split ``text`` into its sections; a clear ``ValueError`` naming ``name`` when it is bad."""
    parts = SECTION.split(text)
    sections: dict[str, str] = {}
    if parts[0].strip():
        raise ValueError(f"template {name}: text before the first [system] or [user] header")
    for header, body in zip(parts[1::2], parts[2::2], strict=True):
        if header in sections:
            raise ValueError(f"template {name}: the [{header}] section appears twice")
        sections[header] = body.strip()
    if not sections.get("user"):
        raise ValueError(f"template {name}: it needs a non-empty [user] section")
    for header, body in sections.items():
        for _, field, _, _ in string.Formatter().parse(body):
            if field is not None and field not in FIELDS:
                raise ValueError(
                    f"template {name}, [{header}]: unknown placeholder {{{field}}} "
                    f"(known: {', '.join('{' + f + '}' for f in FIELDS)}; write {{{{ for a brace)"
                )
    if "{examples}" not in sections["user"]:
        raise ValueError(f"template {name}: the [user] section must contain {{examples}}")
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return Template(name, sections.get("system", ""), sections["user"], digest)


def load_template(choice: str | None, keys: Sequence[str], roles: Mapping[str, str]) -> Template:
    """A family by name, a template file, or (``None``) the family that fits the dataset."""
    if choice is None:
        choice = family_for(keys, roles)
    if choice in FAMILIES:
        return parse_template(FAMILIES[choice], choice)
    path = Path(choice)
    if not path.is_file():
        raise ValueError(
            f"template {choice!r} is neither a family ({', '.join(FAMILIES)}) nor a file"
        )
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"template file {path}: not UTF-8 text ({exc.reason})") from None
    return parse_template(text, path.name)


def render(
    template: Template,
    examples: Sequence[Mapping[str, str | None]],
    keys: Sequence[str],
    *,
    label_key: str | None = None,
) -> list[dict[str, str]]:
    """The chat messages for one prompt showing ``examples`` (dicts of the dataset's keys).

    ``label_key`` names the key holding a label (``{labels}`` lists the ones shown).
    """
    if not examples:
        raise ValueError("a prompt needs at least one seed example")
    shown = [{k: e.get(k) or "" for k in keys} for e in examples]
    labels = sorted({str(e[label_key]) for e in shown if label_key and e.get(label_key)})
    values = {
        "examples": "\n".join(json.dumps(e, ensure_ascii=False) for e in shown),
        "count": str(len(shown)),
        "keys": ", ".join(json.dumps(k) for k in keys),
        "format": json.dumps({k: "..." for k in keys}, ensure_ascii=False),
        "labels": ", ".join(labels) or "(any)",
    }
    messages = []
    if template.system:
        messages.append({"role": "system", "content": template.system.format(**values)})
    messages.append({"role": "user", "content": template.user.format(**values)})
    return messages


def example_schema(keys: Sequence[str]) -> dict[str, Any]:
    """The JSON schema of one generated example: an object with every key as non-empty text
    and nothing else (what a generator's structured output is asked for)."""
    return {
        "type": "object",
        "properties": {key: {"type": "string", "minLength": 1} for key in keys},
        "required": list(keys),
        "additionalProperties": False,
    }
