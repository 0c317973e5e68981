"""One parameter as data (:class:`ParamSpec`), and turning a typed or typed-in value into it.

A :class:`ParamSpec` holds what a form or a command line needs to know about one keyword
argument of a contribution: types, default, choices, range, help. :meth:`ParamSpec.coerce`
converts a string from a command line or a form (or a typed value) to the declared type and
checks it, raising :class:`ParamError` naming the parameter. Specs are read from a signature by
:func:`~vendiscope.core.plugin_host.params.describe_params`.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vendiscope.core.base.errors import VendiscopeError
from vendiscope.core.plugin_host.conversion import (
    CONTAINERS,
    NONE_WORDS,
    Misfit,
    convert,
    guess_value,
)
from vendiscope.core.plugin_host.param_annotations import FromProject, Label, Range, Unit

_TYPE_NAMES = {bool: "bool", int: "int", float: "float", str: "str", Path: "path"}
_TYPE_NAMES.update({c: "json" for c in CONTAINERS})
_EXPECT = {
    bool: "true or false",
    int: "an integer",
    float: "a number",
    str: "a string",
    Path: "a path",
    list: "a JSON list",
    tuple: "a JSON list",
    dict: "a JSON object",
}


class ParamError(VendiscopeError, ValueError):
    """A parameter value that does not fit its declaration; the message names the parameter."""

    def __init__(self, name: str, problem: str, *, prefix: str = "") -> None:
        super().__init__(f"{prefix}{name}: {problem}")
        self.name = name
        self.problem = problem


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()
"""The :attr:`ParamSpec.default` of a parameter without a default (against the conventions)."""


@dataclass(frozen=True)
class ParamSpec:
    """What a form or a command line needs to know about one parameter.

    Attributes
    ----------
    name
        The keyword argument.
    types
        Accepted value types, in the order a string is tried (``(int, str)`` for
        ``int | str``); ``()`` when undeclared (a string is then read as a number, boolean,
        ``none`` or kept as text).
    default
        The default value, or :data:`REQUIRED`.
    optional
        ``None`` is a valid value.
    choices
        The allowed values (from ``Literal`` or :class:`Choices`); empty when any value of
        the type is allowed.
    range
        Bounds of a number, or ``None``.
    help
        One paragraph of help text (may be empty).
    source
        A :class:`FromProject` when the value names something in the project (forms offer
        the existing names), else ``None``.
    unit
        The unit of a number (:class:`Unit`), or ``None``.
    title
        What a form calls it (:class:`Label`), or ``None`` for its name in words.
    """

    name: str
    types: tuple[type, ...] = ()
    default: Any = REQUIRED
    optional: bool = False
    choices: tuple[Any, ...] = ()
    range: Range | None = None
    help: str = ""
    annotation: str = field(default="", compare=False)
    source: FromProject | None = None
    unit: Unit | None = None
    title: Label | None = None

    @property
    def type(self) -> type | None:
        """The main type (the first of :attr:`types`), or ``None`` when undeclared."""
        return self.types[0] if self.types else None

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    @property
    def label(self) -> str:
        """A form label: its :class:`Label`, else ``batch_size`` -> ``"Batch size"``."""
        if self.title is not None:
            return self.title.text
        text = self.name.replace("_", " ").strip()
        return text[:1].upper() + text[1:]

    @property
    def widget(self) -> str:
        """The kind of form field that fits: choice, bool, int, float, path, json or text."""
        if self.choices:
            return "choice"
        if len(self.types) == 1:
            name = _TYPE_NAMES[self.types[0]]
            return name if name in ("bool", "int", "float", "path", "json") else "text"
        return "text"

    def expects(self) -> str:
        """What a valid value looks like, in words: ``"an integer >= 1 or none"``."""
        if self.choices:
            text = "one of " + ", ".join(_show(c) for c in self.choices)
        elif self.types:
            text = " or ".join(_EXPECT[t] for t in dict.fromkeys(self.types))
            if self.range is not None:
                text += f" {self.range}"
        else:
            text = "a value"
        return text + (" or none" if self.optional else "")

    def coerce(self, value: Any, *, prefix: str = "") -> Any:
        """``value`` (a string from a command line or form, or a typed value) as a valid value.

        Raises :class:`ParamError` naming this parameter when it does not fit.
        """
        try:
            return self._coerce(value)
        except Misfit:
            raise ParamError(
                self.name, f"expected {self.expects()}, got {_show(value)}", prefix=prefix
            ) from None

    def _coerce(self, value: Any) -> Any:
        if value is None or (
            self.optional and isinstance(value, str) and value.strip().lower() in NONE_WORDS
        ):
            if self.optional:
                return None
            raise Misfit
        if self.choices:
            return self._choice(value)
        if not self.types:
            return guess_value(value) if isinstance(value, str) else value
        for kind in self.types:
            try:
                converted = convert(value, kind)
            except Misfit:
                continue
            if self.range is not None and isinstance(converted, (int, float)):
                if isinstance(converted, float) and math.isnan(converted):
                    raise Misfit
                if converted not in self.range:
                    raise Misfit
            return converted
        raise Misfit

    def _choice(self, value: Any) -> Any:
        for choice in self.choices:
            if value == choice and type(value) is type(choice):
                return choice
        if isinstance(value, str):
            text = value.strip()
            for choice in self.choices:
                if text == str(choice) or (
                    isinstance(choice, bool) and text.lower() == str(choice).lower()
                ):
                    return choice
        for choice in self.choices:  # 2 for a choice of 2.0, numpy scalars
            if not isinstance(choice, (bool, str)) and not isinstance(value, (bool, str)):
                try:
                    if value == choice:
                        return choice
                except (TypeError, ValueError):
                    pass
        raise Misfit

    def to_dict(self) -> dict[str, Any]:
        """A JSON-friendly description (types as names: int, float, bool, str, path, json)."""
        return {
            "name": self.name,
            "label": self.label,
            "type": "|".join(_TYPE_NAMES[t] for t in self.types) or "any",
            "widget": self.widget,
            "default": None if self.required else _jsonable(self.default),
            "required": self.required,
            "optional": self.optional,
            "choices": [_jsonable(c) for c in self.choices],
            "range": self.range.to_dict() if self.range is not None else None,
            "help": self.help,
            "expects": self.expects(),
            "from_project": self.source.to_dict() if self.source is not None else None,
            "unit": str(self.unit) if self.unit is not None else None,
        }


def _show(value: Any) -> str:
    return repr(value)


def _jsonable(value: Any) -> Any:
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)
    return value


__all__ = ["REQUIRED", "ParamError", "ParamSpec"]
