"""A contribution's parameters as data, for forms and the command line.

Parameters are the keyword arguments of a contribution's ``__init__`` (scikit-learn style).
:func:`describe_params` reads them — name, type, default, choices, range, help — from the
signature, the type hints and the docstring, as a list of :class:`ParamSpec`; the GUI builds
its parameter form from that list. :func:`coerce_params` turns strings typed on a command line
(``--param k=10``) or into a form into values of the declared types, and checks ranges and
choices, with errors that name the parameter.

Declaring parameters
--------------------
Plain type hints give the type and the default::

    def __init__(self, k: int = 10, mode: Literal["fast", "exact"] = "fast",
                 model: str | None = None) -> None: ...

``typing.Annotated`` adds a :class:`Range`, :class:`Choices` (for choices held in a tuple) and
a help text (any ``str`` in the metadata)::

    def __init__(
        self,
        k: Annotated[int, Range(1), "Neighbours per record."] = 10,
        level: Annotated[float, Range(gt=0, lt=1)] = 0.95,
        precision: Annotated[str, Choices(*PRECISIONS)] = "auto",
    ) -> None: ...

A :class:`FromProject` says the value names something of the open project (a subset, a vector
set), so a form offers the existing ones::

    subset: Annotated[str | None, FromProject("subset", none="the whole dataset")] = None

Help not given in the hints comes from the numpy-style "Parameters" section of the class (or
``__init__``) docstring. Supported types: ``int``, ``float``, ``bool``, ``str``,
``pathlib.Path``, ``Literal[...]``, unions of these, ``X | None`` (optional: ``none`` on the
command line), and ``list``/``tuple``/``dict`` (given as JSON). A parameter without a hint
takes the type of its default.
"""

from __future__ import annotations

import inspect
import json
import math
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vendiscope.core.base.errors import VendiscopeError
from vendiscope.core.plugins.conversion import (
    CONTAINERS,
    NONE_WORDS,
    SCALARS,
    Misfit,
    convert,
    guess_value,
)
from vendiscope.core.plugins.docstrings import parse_numpy_params

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


@dataclass(frozen=True)
class Range:
    """Bounds of a numeric parameter, for ``Annotated[int, Range(...)]``.

    ``Range(1)`` is ``>= 1``; ``Range(0, 1)`` is ``0 <= x <= 1``; ``gt``/``lt`` give strict
    bounds: ``Range(gt=0)`` is ``> 0``, ``Range(gt=0, lt=1)`` is ``0 < x < 1``.
    """

    ge: float | None = None
    le: float | None = None
    gt: float | None = None
    lt: float | None = None

    def __post_init__(self) -> None:
        if self.ge is not None and self.gt is not None:
            raise ValueError("Range: give ge or gt, not both")
        if self.le is not None and self.lt is not None:
            raise ValueError("Range: give le or lt, not both")

    def __contains__(self, value: Any) -> bool:
        return not (
            (self.ge is not None and not value >= self.ge)
            or (self.gt is not None and not value > self.gt)
            or (self.le is not None and not value <= self.le)
            or (self.lt is not None and not value < self.lt)
        )

    def __str__(self) -> str:
        parts = [
            f"{op} {_number(bound)}"
            for op, bound in ((">=", self.ge), (">", self.gt), ("<=", self.le), ("<", self.lt))
            if bound is not None
        ]
        return " and ".join(parts)

    @property
    def minimum(self) -> float | None:
        return self.ge if self.ge is not None else self.gt

    @property
    def maximum(self) -> float | None:
        return self.le if self.le is not None else self.lt

    def to_dict(self) -> dict[str, float]:
        return {k: v for k, v in self.__dict__.items() if v is not None}


class Choices:
    """The allowed values of a parameter, for ``Annotated[str, Choices(*MODES)]``.

    Same meaning as ``Literal[...]``; use it when the values live in a tuple elsewhere.
    """

    def __init__(self, *values: Any) -> None:
        if not values:
            raise ValueError("Choices needs at least one value")
        self.values = tuple(values)

    def __repr__(self) -> str:
        return f"Choices{self.values!r}"


PROJECT_THINGS = ("subset", "vector_set", "dataset")
PROJECT_DATASETS = ("dataset", "target")


@dataclass(frozen=True)
class FromProject:
    """A value naming something in the open project: ``Annotated[str, FromProject(...)]``.

    Forms offer the existing names in a list instead of a free-text field; on the command
    line the parameter stays plain text. The value is still checked by the contribution.

    Parameters
    ----------
    what
        ``"subset"`` (a subset of the dataset), ``"vector_set"`` (one of its vector sets)
        or ``"dataset"`` (another dataset of the project).
    kinds
        For vector sets: the kinds offered (``"embedding"``, ``"gradient"``, ``"score"``,
        ``"projection"``, ``"cluster"``); empty offers every complete set.
    dataset
        Whose subsets or vector sets: ``"dataset"`` (the one the contribution runs on) or
        ``"target"`` (a view's target dataset, see ``View.needs_target``).
    free_text
        Names not in the project are accepted too (e.g. a new subset's name): the list is
        then editable.
    none
        What ``None`` means, in words, shown as the first entry of the list (for example
        ``"the latest embedding set"``); used when the parameter is optional.
    """

    what: str
    kinds: tuple[str, ...] = ()
    dataset: str = "dataset"
    free_text: bool = False
    none: str = ""

    def __post_init__(self) -> None:
        if self.what not in PROJECT_THINGS:
            raise ValueError(
                f"FromProject: what must be one of {PROJECT_THINGS}; got {self.what!r}"
            )
        if self.dataset not in PROJECT_DATASETS:
            raise ValueError(
                f"FromProject: dataset must be one of {PROJECT_DATASETS}; got {self.dataset!r}"
            )
        if isinstance(self.kinds, str):
            object.__setattr__(self, "kinds", (self.kinds,))
        else:
            object.__setattr__(self, "kinds", tuple(self.kinds))

    def to_dict(self) -> dict[str, Any]:
        return {
            "what": self.what,
            "kinds": list(self.kinds),
            "dataset": self.dataset,
            "free_text": self.free_text,
            "none": self.none,
        }


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

    @property
    def type(self) -> type | None:
        """The main type (the first of :attr:`types`), or ``None`` when undeclared."""
        return self.types[0] if self.types else None

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    @property
    def label(self) -> str:
        """A form label: ``batch_size`` -> ``"Batch size"``."""
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
        }


# --------------------------------------------------------------------------- describing
def describe_params(cls: type | Any) -> list[ParamSpec]:
    """The parameters of ``cls.__init__`` (a class or an instance), in signature order.

    ``self``, ``*args`` and ``**kwargs`` are left out. Hints that cannot be resolved (names
    imported only for type checking) fall back to the type of the default.
    """
    cls = cls if inspect.isclass(cls) else type(cls)
    init = cls.__init__
    if init is object.__init__:
        return []
    signature = inspect.signature(init)
    hints = _hints(init)
    docs = {**parse_numpy_params(inspect.getdoc(cls)), **parse_numpy_params(init.__doc__)}
    specs = []
    for name, parameter in list(signature.parameters.items())[1:]:
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        default = REQUIRED if parameter.default is parameter.empty else parameter.default
        specs.append(
            _spec(name, hints.get(name, parameter.annotation), default, docs.get(name, ""))
        )
    return specs


def _hints(function: Any) -> dict[str, Any]:
    try:
        return typing.get_type_hints(function, include_extras=True)
    except Exception:  # one unresolvable hint: resolve the others one by one
        resolved = {}
        namespace = getattr(function, "__globals__", {})
        for name, hint in getattr(function, "__annotations__", {}).items():
            try:
                resolved[name] = eval(hint, namespace) if isinstance(hint, str) else hint
            except Exception:
                resolved[name] = inspect.Parameter.empty
        return resolved


def _spec(name: str, hint: Any, default: Any, doc_help: str) -> ParamSpec:
    metadata: tuple[Any, ...] = ()
    if typing.get_origin(hint) is typing.Annotated:
        hint, *extra = typing.get_args(hint)
        metadata = tuple(extra)
    accepted, optional, choices = _flatten(hint)
    if not accepted and not choices and hint is inspect.Parameter.empty:
        if default is not REQUIRED and default is not None and type(default) in SCALARS:
            accepted = (type(default),)
        optional = default is None
    bounds = None
    help_text = ""
    source = None
    for item in metadata:
        if isinstance(item, FromProject):
            source = item
        elif isinstance(item, Range):
            bounds = item
        elif isinstance(item, Choices):
            choices = item.values
        elif isinstance(item, str):
            help_text = " ".join(item.split())
        elif any(hasattr(item, b) for b in ("ge", "gt", "le", "lt")):  # annotated-types
            bounds = Range(
                **{
                    b: getattr(item, b)
                    for b in ("ge", "gt", "le", "lt")
                    if getattr(item, b, None) is not None
                }
            )
    if None in choices:
        optional = True
        choices = tuple(c for c in choices if c is not None)
    if choices and not accepted:
        accepted = tuple(t for t in SCALARS if any(type(c) is t for c in choices))
    return ParamSpec(
        name=name,
        types=accepted,
        default=default,
        optional=optional or default is None,
        choices=tuple(choices),
        range=bounds,
        help=help_text or doc_help,
        annotation=_annotation_text(hint),
        source=source,
    )


def _flatten(hint: Any) -> tuple[tuple[type, ...], bool, tuple[Any, ...]]:
    """``(types, optional, choices)`` of a hint; unsupported hints give no types ("any")."""
    if hint is inspect.Parameter.empty or hint is Any:
        return (), False, ()
    if hint is None or hint is type(None):
        return (), True, ()
    origin = typing.get_origin(hint)
    if origin is typing.Literal:
        values = typing.get_args(hint)
        return (), None in values, tuple(v for v in values if v is not None)
    if origin is typing.Union or origin is types.UnionType:
        found: list[type] = []
        optional = False
        choices: list[Any] = []
        for arg in typing.get_args(hint):
            sub_types, sub_optional, sub_choices = _flatten(arg)
            found.extend(sub_types)
            optional = optional or sub_optional
            choices.extend(sub_choices)
        if choices and found:  # Literal["auto"] | int: let anything of the types through
            found.extend(type(c) for c in choices if type(c) in SCALARS)
            choices = []
        ordered = tuple(t for t in (*SCALARS, *CONTAINERS) if t in found)
        return ordered, optional, tuple(choices)
    if origin in CONTAINERS:
        return (origin,), False, ()
    if hint in SCALARS or hint in CONTAINERS:
        return (hint,), False, ()
    if inspect.isclass(hint) and issubclass(hint, Path):
        return (Path,), False, ()
    return (), False, ()


def _annotation_text(hint: Any) -> str:
    if hint is inspect.Parameter.empty:
        return ""
    if inspect.isclass(hint):
        return hint.__name__
    return str(hint).replace("typing.", "")


# --------------------------------------------------------------------------- coercing
def coerce_params(
    cls: type | Any,
    values: Mapping[str, Any],
    *,
    prefix: str = "",
    owner: str = "",
) -> dict[str, Any]:
    """``values`` (strings from a command line or a form, or typed values) as typed keywords.

    Each value is converted to its parameter's declared type and checked against its range
    and choices. Raises :class:`ParamError` naming the parameter, e.g. with
    ``prefix="--param "``: ``"--param k: expected an integer >= 1, got 'x'"``. ``owner``
    (``"metric 'vendi'"``) is named in the message for an unknown parameter.
    """
    specs = {spec.name: spec for spec in describe_params(cls)}
    init = (cls if inspect.isclass(cls) else type(cls)).__init__
    takes_any = init is not object.__init__ and any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in inspect.signature(init).parameters.values()
    )
    typed: dict[str, Any] = {}
    for name, value in values.items():
        spec = specs.get(name)
        if spec is None:
            if takes_any:
                typed[name] = guess_value(value) if isinstance(value, str) else value
                continue
            where = f" of {owner}" if owner else ""
            raise ParamError(
                name,
                f"no such parameter{where} (parameters: {', '.join(specs) or 'none'})",
                prefix=prefix,
            )
        typed[name] = spec.coerce(value, prefix=prefix)
    return typed


def _show(value: Any) -> str:
    return repr(value)


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(value)


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


__all__ = [
    "REQUIRED",
    "Choices",
    "FromProject",
    "ParamError",
    "ParamSpec",
    "Range",
    "coerce_params",
    "describe_params",
    "parse_numpy_params",
]
