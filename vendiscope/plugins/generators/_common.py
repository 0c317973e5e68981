"""What both built-in generators share: checking prompts and schemas, deriving seeds, stop tokens.

The built-in trainer's greedy answers stop where the local generator stops
(:func:`stop_token_ids`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

ROLES = ("system", "user", "assistant")


def check_prompts(prompts: Sequence[Sequence[dict[str, str]]]) -> None:
    """Raise ``ValueError`` naming the first prompt that is not a list of chat messages."""
    for number, messages in enumerate(prompts):
        if isinstance(messages, (str, bytes, dict)) or not isinstance(messages, Sequence):
            raise ValueError(
                f"prompt {number} is a {type(messages).__name__}; expected a list of chat "
                'messages ({"role": ..., "content": ...})'
            )
        if not messages:
            raise ValueError(f"prompt {number} has no messages")
        for message in messages:
            if not isinstance(message, dict):
                raise ValueError(f"prompt {number}: a message is a {type(message).__name__}")
            role, content = message.get("role"), message.get("content")
            if role not in ROLES:
                raise ValueError(
                    f"prompt {number}: message role {role!r} is not one of {', '.join(ROLES)}"
                )
            if not isinstance(content, str):
                raise ValueError(f"prompt {number}: message content must be text")


def derive_seed(seed: int, index: int) -> int:
    """A 31-bit seed for batch or request ``index`` of a call seeded with ``seed``.

    Hashed, so runs with neighbouring seeds do not share their streams; 31 bits, which every
    server's ``seed`` field accepts.
    """
    digest = hashlib.sha256(f"vendiscope-generate:{int(seed)}:{int(index)}".encode()).digest()
    return int.from_bytes(digest[:4], "big") >> 1


def stop_token_ids(lm: Any, tokenizer: Any) -> set[int]:
    """The token ids that end a completion: the model's and the tokenizer's end tokens."""
    ids: set[int] = set()
    configured = getattr(getattr(lm, "generation_config", None), "eos_token_id", None)
    for value in (configured, tokenizer.eos_token_id):
        if isinstance(value, int):
            ids.add(value)
        elif isinstance(value, (list, tuple)):
            ids.update(int(v) for v in value)
    end_of_turn = tokenizer.convert_tokens_to_ids("<|im_end|>")
    if isinstance(end_of_turn, int) and end_of_turn != tokenizer.unk_token_id:
        ids.add(end_of_turn)
    return ids


def completion_text(ids: Sequence[int], stop: set[int], tokenizer: Any) -> tuple[str, int | None]:
    """A completion's text up to its first stop token, and that token's index (None: none)."""
    end = next((i for i, token in enumerate(ids) if token in stop), None)
    kept = ids if end is None else ids[:end]
    return tokenizer.decode(kept, skip_special_tokens=True).strip(), end


def check_schema(schema: object) -> None:
    """Raise ``ValueError`` unless ``schema`` is the JSON schema of an object whose properties
    are all strings (what the synthesis job asks for: one key per field of the dataset)."""
    if not isinstance(schema, dict) or schema.get("type") != "object":
        raise ValueError('schema must be a JSON schema of an object ({"type": "object", ...})')
    properties = schema.get("properties")
    if not isinstance(properties, dict) or not properties:
        raise ValueError("schema must name the object's properties")
    for name, spec in properties.items():
        if not isinstance(spec, dict) or spec.get("type") != "string":
            raise ValueError(f"schema property {name!r} must be a string property")
    required = schema.get("required", [])
    if not isinstance(required, list) or any(r not in properties for r in required):
        raise ValueError("schema 'required' must list some of its properties")


def schema_keys(schema: dict[str, Any]) -> list[str]:
    """The schema's keys in the order the object is written (``required`` first)."""
    required = [str(k) for k in schema.get("required", [])]
    return required + [str(k) for k in schema["properties"] if k not in required]


def find_object(text: str, keys: Sequence[str]) -> dict[str, Any] | None:
    """The first JSON object in ``text`` (bare, fenced or embedded in prose) that has every
    key in ``keys`` as non-empty text; ``None`` when there is none."""
    decoder = json.JSONDecoder(strict=False)  # raw line breaks in strings, as the parser takes
    stripped = text.strip()
    starts = [0] if stripped.startswith("{") else []
    starts += [i for i, c in enumerate(stripped) if c == "{" and i]
    for start in starts:
        try:
            found, _ = decoder.raw_decode(stripped, start)
        except ValueError:
            continue
        if isinstance(found, dict) and all(
            isinstance(found.get(k), str) and found[k].strip() for k in keys
        ):
            return found
    return None


def conforms(text: str, schema: dict[str, Any]) -> bool:
    """Whether ``text`` holds a JSON object with every required key as non-empty text (what
    a server that enforces the schema always returns; one that ignores it often does not)."""
    return find_object(text, schema_keys(schema)) is not None
