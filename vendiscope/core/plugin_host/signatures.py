"""Does a contribution class fit its interface? Checked when it is loaded, before it is used.

A class that subclasses the right interface can still be unusable: an ``__init__`` parameter
without a default (forms and the command line could not create it), or a ``select`` without
the keyword-only ``progress``/``cancel`` that jobs pass. :func:`signature_problems` lists such
problems in words; the registry refuses (and reports) a class that has any.
"""

from __future__ import annotations

import inspect
from typing import Any

_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def signature_problems(cls: type, base: type) -> list[str]:
    """What keeps ``cls`` from being used as a ``base`` contribution; empty when nothing."""
    problems = _init_problems(cls)
    abstract = sorted(getattr(cls, "__abstractmethods__", ()))
    if abstract:
        problems.append(f"does not implement {', '.join(abstract)}")
    for name, member in vars(base).items():
        if not getattr(member, "__isabstractmethod__", False) or isinstance(member, property):
            continue
        if name in abstract:
            continue
        problems.extend(_method_problems(cls, name, getattr(base, name)))
    return problems


def _init_problems(cls: type) -> list[str]:
    if cls.__init__ is object.__init__:
        return []
    try:
        parameters = list(inspect.signature(cls.__init__).parameters.values())[1:]
    except (TypeError, ValueError) as exc:
        return [f"__init__ has no readable signature ({exc})"]
    problems = []
    for parameter in parameters:
        if parameter.kind is parameter.VAR_POSITIONAL:
            problems.append(f"__init__ takes *{parameter.name}; parameters must be keywords")
        elif parameter.kind is parameter.POSITIONAL_ONLY:
            problems.append(f"__init__ parameter '{parameter.name}' is positional-only")
        elif parameter.kind is not parameter.VAR_KEYWORD and parameter.default is parameter.empty:
            problems.append(
                f"__init__ parameter '{parameter.name}' has no default "
                "(every parameter needs one, so the app can create the contribution)"
            )
    return problems


def _method_problems(cls: type, name: str, expected: Any) -> list[str]:
    actual = getattr(cls, name)
    if not callable(actual):
        return [f"{name} is not a method"]
    try:
        want = list(inspect.signature(expected).parameters.values())[1:]
        have = list(inspect.signature(actual).parameters.values())
    except (TypeError, ValueError) as exc:
        return [f"{name}() has no readable signature ({exc})"]
    if not isinstance(inspect.getattr_static(cls, name), (staticmethod, classmethod)):
        have = have[1:] if have and have[0].kind in _POSITIONAL else have  # self
    shown = _plain(name, want)
    by_name = {p.name: p for p in have}
    any_positional = any(p.kind is p.VAR_POSITIONAL for p in have)
    any_keyword = any(p.kind is p.VAR_KEYWORD for p in have)
    positional = [p for p in have if p.kind in _POSITIONAL]
    problems = []
    wanted_positional = [p for p in want if p.kind in _POSITIONAL]
    if len(positional) < len(wanted_positional) and not any_positional:
        problems.append(
            f"{name}() takes {len(positional)} positional argument(s) but is called with "
            f"{len(wanted_positional)}; expected {shown}"
        )
    for extra in positional[len(wanted_positional) :]:
        if extra.default is extra.empty and extra.name not in {p.name for p in want}:
            problems.append(f"{name}() has an extra required parameter '{extra.name}'")
    missing = []
    for wanted in (p for p in want if p.kind is p.KEYWORD_ONLY):
        found = by_name.get(wanted.name)
        if found is None or found.kind not in (found.KEYWORD_ONLY, found.POSITIONAL_OR_KEYWORD):
            if not any_keyword:
                missing.append(wanted.name)
        elif wanted.default is not wanted.empty and found.default is found.empty:
            problems.append(
                f"{name}() parameter '{wanted.name}' needs a default ({wanted.default!r}), "
                "callers may leave it out"
            )
    if missing:
        problems.append(
            f"{name}() is missing the keyword-only parameter(s) {', '.join(missing)}; "
            f"expected {shown}"
        )
    wanted_names = {p.name for p in want}
    for extra in have:
        if (
            extra.kind is extra.KEYWORD_ONLY
            and extra.default is extra.empty
            and extra.name not in wanted_names
        ):
            problems.append(f"{name}() has an extra required keyword '{extra.name}'")
    return problems


def _plain(name: str, parameters: list[inspect.Parameter]) -> str:
    """``select(self, vectors, k, *, quality=None, progress, cancel)``: names, no hints."""
    parts = ["self"]
    star = False
    for p in parameters:
        if p.kind is p.KEYWORD_ONLY and not star:
            parts.append("*")
            star = True
        parts.append(p.name if p.default is p.empty else f"{p.name}={p.default!r}")
    return f"{name}({', '.join(parts)})"


__all__ = ["signature_problems"]
