"""Field mapping: which source column (or combination of columns) plays which role.

Roles are ``prompt``, ``response``, ``text``, ``label``, ``source`` and ``id``. A role maps to
a *spec*, a JSON-serialisable value stored with the dataset:

- ``"question"`` or ``"meta.domain"``: a column, or a dotted path into nested objects;
- ``{"join": ["instruction", "input"], "sep": "\\n\\n"}``: non-empty columns joined;
- ``{"template": "Premise: {premise}\\nHypothesis: {hypothesis}"}``: columns formatted;
- ``{"chat": "messages", "part": "prompt"}``: the prompt (turns before the last assistant turn)
  or the ``"response"`` (the last assistant turn) of an OpenAI ``messages`` or ShareGPT
  ``conversations`` list.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

ROLES = ("prompt", "response", "text", "label", "source", "id")
CONTENT_ROLES = ("prompt", "response", "text")
RECORD_COLUMN = {"id": "ext_id"}  # role -> records column, where the names differ

MISSING = object()
_MISSING = MISSING


class MappingError(ValueError):
    """A row does not fit the mapping; ``field`` names the column."""

    def __init__(self, message: str, field: str | None) -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class FieldMapping:
    """Role -> spec. See the module docstring for the spec forms."""

    roles: dict[str, Any] = field(default_factory=dict)
    detected: str = "manual"

    def __post_init__(self) -> None:
        for role, spec in self.roles.items():
            if role not in ROLES:
                raise ValueError(f"unknown role '{role}' (roles: {', '.join(ROLES)})")
            _validate_spec(role, spec)
        if not any(role in self.roles for role in CONTENT_ROLES):
            raise ValueError("the mapping needs at least one of prompt, response or text")

    def to_json(self) -> dict[str, Any]:
        return {"roles": dict(self.roles), "detected": self.detected}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> FieldMapping:
        return cls(roles=dict(data["roles"]), detected=data.get("detected", "manual"))

    def columns(self) -> list[str]:
        """Top-level source columns the mapping reads."""
        found: list[str] = []
        for spec in self.roles.values():
            for column in _spec_columns(spec):
                top = column.split(".", 1)[0]
                if top not in found:
                    found.append(top)
        return found

    def apply(self, row: Mapping[str, Any]) -> dict[str, str | None]:
        """Values of every role for one row; raises :class:`MappingError` naming the field."""
        values: dict[str, str | None] = {role: None for role in ROLES}
        for role, spec in self.roles.items():
            values[role] = _evaluate(spec, row)
        if all(not values[role] for role in CONTENT_ROLES):
            mapped = ", ".join(
                f"{r}={_describe(self.roles[r])}" for r in CONTENT_ROLES if r in self.roles
            )
            raise MappingError(f"no text in the mapped fields ({mapped})", None)
        return values

    def compile(self) -> Callable[[Mapping[str, Any]], tuple[str | None, ...]]:
        """A fast function from a row to its role values, in :data:`ROLES` order.

        Equivalent to :meth:`apply` (same errors), with plain columns read directly.
        """
        getters = [_getter(self.roles.get(role)) for role in ROLES]
        content = [ROLES.index(role) for role in CONTENT_ROLES]
        apply = self.apply

        def values(row: Mapping[str, Any]) -> tuple[str | None, ...]:
            try:
                result = tuple(getter(row) for getter in getters)
            except KeyError:
                return tuple(apply(row).values())  # raises MappingError naming the field
            if not any(result[i] for i in content):
                return tuple(apply(row).values())
            return result

        return values

    def shared_columns(self) -> list[tuple[str, int]]:
        """``(column, role index)`` for roles read straight from one column (see rawjson)."""
        return [
            (spec, ROLES.index(role)) for role, spec in self.roles.items() if isinstance(spec, str)
        ]

    def describe(self) -> str:
        return ", ".join(f"{role}={_describe(spec)}" for role, spec in self.roles.items())


def parse_assignments(assignments: list[str], base: FieldMapping | None = None) -> FieldMapping:
    """Build a mapping from ``role=column`` strings (``role=`` removes a role from ``base``)."""
    roles = dict(base.roles) if base is not None else {}
    for item in assignments:
        role, sep, column = item.partition("=")
        role = role.strip()
        if not sep or role not in ROLES:
            raise ValueError(f"'{item}': expected ROLE=COLUMN with ROLE one of {', '.join(ROLES)}")
        column = column.strip()
        if column:
            roles[role] = column
        else:
            roles.pop(role, None)
    return FieldMapping(roles=roles, detected="manual")


# ----------------------------------------------------------------------------- specs
def _validate_spec(role: str, spec: Any) -> None:
    if isinstance(spec, str) and spec:
        return
    if isinstance(spec, dict):
        if "join" in spec and isinstance(spec["join"], list) and spec["join"]:
            return
        if "template" in spec and isinstance(spec["template"], str):
            return
        if "chat" in spec and spec.get("part") in ("prompt", "response"):
            return
    raise ValueError(f"role '{role}': invalid field spec {spec!r}")


def _spec_columns(spec: Any) -> list[str]:
    if isinstance(spec, str):
        return [spec]
    if "join" in spec:
        return list(spec["join"])
    if "template" in spec:
        return [name for _, name, _, _ in string.Formatter().parse(spec["template"]) if name]
    return [spec["chat"]]


def _describe(spec: Any) -> str:
    if isinstance(spec, str):
        return spec
    if "join" in spec:
        return "+".join(spec["join"])
    if "template" in spec:
        return "template(" + ",".join(_spec_columns(spec)) + ")"
    return f"{spec['chat']}[{spec['part']}]"


def _getter(spec: Any) -> Callable[[Mapping[str, Any]], str | None]:
    if spec is None:
        return lambda row: None
    if isinstance(spec, str):

        def column(row: Mapping[str, Any]) -> str | None:
            value = row[spec]
            return value if value is None or value.__class__ is str else as_text(value)

        return column
    return lambda row: _evaluate(spec, row)


def lookup(row: Mapping[str, Any], column: str) -> Any:
    """The value of ``column`` (a key, or a dotted path into nested objects), or :data:`MISSING`."""
    if column in row:
        return row[column]
    node: Any = row
    for part in column.split("."):
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        else:
            return _MISSING
    return node


def _required(row: Mapping[str, Any], column: str) -> Any:
    value = lookup(row, column)
    if value is _MISSING:
        raise MappingError(f"missing mapped column '{column}'", column)
    return value


def as_text(value: Any) -> str | None:
    """A cell as text: strings unchanged, None stays None, structures as compact JSON."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool | int | float):
        return str(value)
    try:
        return orjson.dumps(value, default=str).decode()
    except TypeError:
        return str(value)


def _evaluate(spec: Any, row: Mapping[str, Any]) -> str | None:
    if isinstance(spec, str):
        return as_text(_required(row, spec))
    if "join" in spec:
        parts = [as_text(_required(row, column)) for column in spec["join"]]
        joined = spec.get("sep", "\n\n").join(p for p in parts if p)
        return joined or None
    if "template" in spec:
        names = _spec_columns(spec)
        values = {name: as_text(_required(row, name)) or "" for name in names}
        return spec["template"].format(**values)
    return _chat_part(_required(row, spec["chat"]), spec["chat"], spec["part"])


# ----------------------------------------------------------------------------- chats
_ROLE_KEYS = ("role", "from")
_CONTENT_KEYS = ("content", "value")
_ASSISTANT = {"assistant", "gpt", "bot", "model", "chatgpt"}
_ROLE_NAMES = {"human": "user", "gpt": "assistant", "bot": "assistant", "model": "assistant"}


def _turns(messages: Any, column: str) -> list[tuple[str, str]]:
    if not isinstance(messages, list):
        raise MappingError(f"'{column}' should be a list of chat turns", column)
    turns = []
    for index, message in enumerate(messages):
        role = next(
            (message[k] for k in _ROLE_KEYS if isinstance(message, dict) and k in message), None
        )
        content = next(
            (message[k] for k in _CONTENT_KEYS if isinstance(message, dict) and k in message),
            _MISSING,
        )
        if role is None or content is _MISSING:
            raise MappingError(
                f"turn {index + 1} of '{column}' needs a role/from and a content/value", column
            )
        turns.append((str(role).lower(), as_text(content) or ""))
    return turns


def _chat_part(messages: Any, column: str, part: str) -> str | None:
    turns = _turns(messages, column)
    last_assistant = max(
        (i for i, (role, _) in enumerate(turns) if role in _ASSISTANT), default=None
    )
    if part == "response":
        return turns[last_assistant][1] if last_assistant is not None else None
    context = turns[:last_assistant] if last_assistant is not None else turns
    if not context:
        return None
    if len(context) == 1:
        return context[0][1]
    return "\n\n".join(f"{_ROLE_NAMES.get(role, role)}: {content}" for role, content in context)
