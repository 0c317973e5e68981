"""Serialise source rows losslessly enough to export them again in their original schema."""

from __future__ import annotations

import base64
import decimal
from typing import Any

import orjson

_OPTIONS = orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS


def _default(value: Any) -> Any:
    if isinstance(value, bytes | bytearray | memoryview):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, decimal.Decimal):
        return str(value)
    if hasattr(value, "isoformat"):
        return value.isoformat()
    if hasattr(value, "tolist"):
        return value.tolist()
    return str(value)


def dumps(row: dict[str, Any]) -> str:
    return orjson.dumps(row, default=_default, option=_OPTIONS).decode()


def loads(raw: str) -> dict[str, Any]:
    return orjson.loads(raw)
