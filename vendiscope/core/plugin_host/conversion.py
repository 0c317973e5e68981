"""Converting parameter values: strings typed on a command line or in a form, to typed values.

Used by :mod:`vendiscope.core.plugin_host.params`; a value that does not fit raises
:class:`Misfit`, which ``ParamSpec.coerce`` turns into a message naming the parameter.
"""

from __future__ import annotations

import json
import math
import numbers
from pathlib import Path
from typing import Any

SCALARS: tuple[type, ...] = (bool, int, float, Path, str)  # also the order strings are tried
CONTAINERS: tuple[type, ...] = (list, tuple, dict)
NONE_WORDS = ("none", "null")
TRUE = ("true", "yes", "on", "1")
FALSE = ("false", "no", "off", "0")


class Misfit(Exception):
    """A value that is not of the wanted type."""


def convert(value: Any, kind: type) -> Any:
    if isinstance(value, str):
        return from_text(value.strip() if kind is not str else value, kind)
    if kind is bool:
        if isinstance(value, bool) or type(value).__name__ == "bool_":  # numpy.bool_ too
            return bool(value)
        raise Misfit
    if isinstance(value, bool):
        raise Misfit  # True is not the number 1 here
    if kind is int:
        if isinstance(value, numbers.Integral):
            return int(value)
        if isinstance(value, numbers.Real) and float(value).is_integer():
            return int(value)
        raise Misfit
    if kind is float:
        if isinstance(value, numbers.Real):
            return float(value)
        raise Misfit
    if kind is Path:
        if isinstance(value, Path):
            return value
        raise Misfit
    if kind in CONTAINERS:
        if isinstance(value, kind) or (kind is tuple and isinstance(value, list)):
            return kind(value) if kind is tuple else value
        raise Misfit
    raise Misfit


def from_text(text: str, kind: type) -> Any:
    if kind is str:
        return text
    if kind is bool:
        lowered = text.lower()
        if lowered in TRUE:
            return True
        if lowered in FALSE:
            return False
        raise Misfit
    if kind is int:
        try:
            return int(text)
        except ValueError:
            raise Misfit from None
    if kind is float:
        try:
            number = float(text)
        except ValueError:
            raise Misfit from None
        if math.isnan(number):
            raise Misfit
        return number
    if kind is Path:
        if not text:
            raise Misfit
        return Path(text).expanduser()
    try:
        parsed = json.loads(text)
    except ValueError:
        raise Misfit from None
    return convert(parsed, kind)


def guess_value(text: str) -> Any:
    """An undeclared parameter's string as int, float, bool, None or kept as text."""
    lowered = text.strip().lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered in NONE_WORDS:
        return None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


__all__ = ["CONTAINERS", "SCALARS", "Misfit", "convert", "from_text", "guess_value"]
