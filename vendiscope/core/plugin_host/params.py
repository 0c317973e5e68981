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

``typing.Annotated`` adds a :class:`Range`, :class:`Choices` (for choices held in a tuple), a
:class:`Unit`, a :class:`Label` (what a form calls it) and a help text (any ``str`` in the
metadata)::

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

The declarations live in :mod:`~vendiscope.core.plugin_host.param_annotations` and the spec with
its value checks in :mod:`~vendiscope.core.plugin_host.param_specs`; this module reads signatures
into specs and re-exports the public names.
"""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from vendiscope.core.plugin_host.conversion import CONTAINERS, SCALARS, guess_value
from vendiscope.core.plugin_host.docstrings import parse_numpy_params
from vendiscope.core.plugin_host.param_annotations import (
    PROJECT_DATASETS,
    PROJECT_THINGS,
    Choices,
    FromProject,
    Label,
    Range,
    Unit,
)
from vendiscope.core.plugin_host.param_specs import REQUIRED, ParamError, ParamSpec


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
    unit = None
    title = None
    for item in metadata:
        if isinstance(item, FromProject):
            source = item
        elif isinstance(item, Unit):
            unit = item
        elif isinstance(item, Label):
            title = item
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
        unit=unit,
        title=title,
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


__all__ = [
    "PROJECT_DATASETS",
    "PROJECT_THINGS",
    "REQUIRED",
    "Choices",
    "FromProject",
    "Label",
    "ParamError",
    "ParamSpec",
    "Range",
    "Unit",
    "coerce_params",
    "describe_params",
    "parse_numpy_params",
]
