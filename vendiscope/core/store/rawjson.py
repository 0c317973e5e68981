"""Serialise source rows so they can be exported again in their original schema.

Values a record already stores in a role column (its prompt, response, ...) are not stored a
second time: :func:`dumps_compact` replaces them by a reference to the role, and
:func:`loads` puts them back, in their original place. The stored form is then either plain
JSON, or ``"\x01"`` followed by ``[{column: role_index}, row_with_those_columns_null]``.
"""

from __future__ import annotations

import base64
import decimal
import json
from collections.abc import Sequence
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


COMPACT_PREFIX = "\x01"
_MISSING = object()


class UnstorableRow(ValueError):
    """A row that cannot be written as JSON (nested deeper than the writer goes).

    The built-in importers never yield one (their ``max_depth`` is far below); the import
    job reports a row from another importer as a bad row.
    """


def dumps(row: Any) -> str:
    """The row as JSON (bytes as base64, decimals and dates as strings).

    Raises
    ------
    UnstorableRow
        If the row cannot be written (nested deeper than Python's recursion limit).
    """
    try:
        return orjson.dumps(row, default=_default, option=_OPTIONS).decode()
    except TypeError:  # integers beyond 64 bits, nesting beyond orjson's 254 levels
        return _dumps_exactly(row)


def _dumps_exactly(value: Any) -> str:
    """``value`` as JSON by the standard library: integers of any size, deeper nesting."""
    try:
        return json.dumps(value, default=_default, ensure_ascii=False, separators=(",", ":"))
    except RecursionError:
        raise UnstorableRow("nested too deeply to be stored") from None
    except (TypeError, ValueError) as exc:
        raise UnstorableRow(f"cannot be stored as JSON ({exc})") from None


def dumps_compact(
    row: dict[str, Any], shared: Sequence[tuple[str, int]], values: Sequence[str | None]
) -> str:
    """Like :func:`dumps`, leaving out the columns whose value *is* ``values[index]``.

    ``shared`` pairs a column with the index of the role value read from it. Only values that
    are the very same string object are left out, so :func:`loads` restores them exactly.
    """
    references = {}
    for column, index in shared:
        value = row.get(column, _MISSING)
        if value.__class__ is str and value is values[index]:
            references[column] = index
    if not references:
        return dumps(row)
    residual = dict(row)
    for column in references:
        residual[column] = None
    try:
        stored = orjson.dumps([references, residual], default=_default, option=_OPTIONS).decode()
    except TypeError:  # as in dumps
        stored = _dumps_exactly([references, residual])
    return COMPACT_PREFIX + stored


def loads(raw: str, values: Sequence[str | None] = ()) -> dict[str, Any]:
    """The original row; ``values`` are the record's role values, for a compact ``raw``."""
    if not raw.startswith(COMPACT_PREFIX):
        return orjson.loads(raw)
    references, row = orjson.loads(raw[1:])
    for column, index in references.items():
        row[column] = values[index]
    return row
