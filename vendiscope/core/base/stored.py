"""Reading a run's stored result (JSON) back into a typed result, field by field.

A field a result lacks, or holds with the wrong type, is refused by name with a
:class:`~vendiscope.core.base.errors.ProjectError`, never read as 0.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from vendiscope.core.base.errors import ProjectError


def required(data: Mapping[str, Any], key: str, kind: type | tuple[type, ...], what: str) -> Any:
    """``data[key]``, which must be a ``kind`` (``bool`` is never a number here)."""
    if key not in data:
        raise ProjectError(f"{what}: its result has no '{key}'")
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, kind):
        raise ProjectError(f"{what}: its result's '{key}' is {value!r:.80}, not {_names(kind)}")
    return value


def optional(data: Mapping[str, Any], key: str, what: str) -> Any:
    """A field every result holds, whose value may be null (``None``)."""
    if key not in data:
        raise ProjectError(f"{what}: its result has no '{key}'")
    return data[key]


def number(value: Any) -> float:
    """A stored number as a float; null (a NaN some JSON writers refuse) is NaN."""
    return math.nan if value is None else float(value)


def _names(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(k.__name__ for k in kinds)
