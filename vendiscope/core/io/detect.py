"""Guess a field mapping from a sample of rows: chat formats first, then common column names."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from vendiscope.core.io.fields import FieldMapping

PAIR_NAMES = (
    ("question", "answer"),
    ("problem", "solution"),
    ("prompt", "response"),
    ("prompt", "completion"),
    ("prompt", "chosen"),
    ("query", "response"),
    ("instruction", "response"),
    ("question", "response"),
    ("input", "output"),
    ("input", "target"),
    ("source", "target"),
)
TEXT_NAMES = ("text", "content", "document", "body", "passage", "sentence", "prompt", "question")
LABEL_NAMES = ("label", "labels", "gold_label", "class")
SOURCE_NAMES = ("source", "domain", "dataset", "task", "subject", "category", "origin", "type")
ID_NAMES = ("id", "uid", "uuid", "_id", "idx", "example_id", "guid")


def detect_mapping(rows: Sequence[Mapping[str, Any]]) -> FieldMapping:
    """The most plausible mapping for rows like ``rows`` (a sample from the start of a source).

    Raises ``ValueError`` when no column holds text.
    """
    columns: dict[str, str] = {}
    for row in rows:
        for name in row:
            columns.setdefault(name.lower(), name)
    roles, detected = _content_roles(columns, rows)
    used = {spec for spec in roles.values() if isinstance(spec, str)}
    for role, names in (("label", LABEL_NAMES), ("source", SOURCE_NAMES), ("id", ID_NAMES)):
        if role in roles:
            continue
        for name in names:
            if name in columns and columns[name] not in used:
                roles[role] = columns[name]
                used.add(columns[name])
                break
    return FieldMapping(roles=roles, detected=detected)


def _content_roles(
    columns: dict[str, str], rows: Sequence[Mapping[str, Any]]
) -> tuple[dict[str, Any], str]:
    for key, role_key, fmt in (
        ("messages", "role", "openai-messages"),
        ("conversations", "from", "sharegpt"),
    ):
        if key in columns and _looks_like_chat(rows, columns[key], role_key):
            column = columns[key]
            return {
                "prompt": {"chat": column, "part": "prompt"},
                "response": {"chat": column, "part": "response"},
            }, fmt
    if "instruction" in columns and "output" in columns:
        prompt: Any = columns["instruction"]
        if "input" in columns:
            prompt = {"join": [columns["instruction"], columns["input"]], "sep": "\n\n"}
        return {"prompt": prompt, "response": columns["output"]}, "alpaca"
    if "premise" in columns and "hypothesis" in columns:
        template = f"Premise: {{{columns['premise']}}}\nHypothesis: {{{columns['hypothesis']}}}"
        return {"prompt": {"template": template}}, "nli"
    for prompt_name, response_name in PAIR_NAMES:
        if prompt_name in columns and response_name in columns:
            return {
                "prompt": columns[prompt_name],
                "response": columns[response_name],
            }, f"{prompt_name}/{response_name}"
    for name in TEXT_NAMES:
        if name in columns:
            return {"text": columns[name]}, "text"
    longest = _longest_text_column(columns, rows)
    if longest is None:
        raise ValueError(
            "no column holds text; map the fields yourself "
            "(e.g. text=COLUMN, or prompt=COLUMN response=COLUMN)"
        )
    return {"text": longest}, "longest-text-column"


def _looks_like_chat(rows: Sequence[Mapping[str, Any]], column: str, role_key: str) -> bool:
    for row in rows:
        value = row.get(column)
        if isinstance(value, list) and value:
            first = value[0]
            return isinstance(first, dict) and (role_key in first or "role" in first)
    return False


def _longest_text_column(columns: dict[str, str], rows: Sequence[Mapping[str, Any]]) -> str | None:
    lengths: dict[str, int] = {}
    for row in rows:
        for name in columns.values():
            value = row.get(name)
            if isinstance(value, str):
                lengths[name] = lengths.get(name, 0) + len(value)
    return max(lengths, key=lengths.__getitem__) if lengths else None
