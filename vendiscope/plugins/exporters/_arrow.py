"""Rows to Arrow tables, batch by batch: the schema logic the Parquet and HF exporters share.

Rows arrive as JSON-decoded dicts (see :mod:`vendiscope.core.store.rawjson`): binary values are
base64 text, decimals and date/time values are ISO text. With the source's Arrow schema
those are turned back into their types, so a Parquet or HF source round-trips exactly.
Without one, the first batch's types become the schema and later batches must fit it.
"""

from __future__ import annotations

import base64
import decimal
import re
from collections.abc import Callable, Iterable, Iterator
from datetime import date, datetime, time, timedelta, timezone
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from vendiscope.api import ExportError

if TYPE_CHECKING:
    import pyarrow as pa

BATCH_ROWS = 10_000
"""Rows converted and written at a time."""

_NANOS = {"s": 10**9, "ms": 10**6, "us": 10**3, "ns": 1}
_EPOCH = datetime(1970, 1, 1)
_FRACTION = re.compile(r"(?<=:\d\d)\.(\d+)")
_TIMEDELTA = re.compile(r"^(?:(-?\d+) days?, )?(\d+):(\d\d):(\d\d)(?:\.(\d+))?$")
_ISO_DURATION = re.compile(r"^(-)?P(-?\d+)DT(\d+)H(\d+)M(\d+)(?:\.(\d+))?S$")

Convert = Callable[[Any], Any]

_ERRORS: tuple[type[BaseException], ...] = (
    ValueError,
    TypeError,
    ArithmeticError,
    LookupError,
    NotImplementedError,
)
"""What a failed conversion raises (pyarrow's Arrow*Error classes derive from these)."""


class TableWriter(Protocol):
    """What both ``pyarrow.parquet.ParquetWriter`` and an IPC stream writer provide."""

    def write_table(self, table: pa.Table) -> None: ...

    def close(self) -> None: ...


def source_schema(schema: dict[str, Any] | None) -> pa.Schema | None:
    """The Arrow schema an importer recorded (``schema["arrow"]``), or ``None``."""
    if not schema or not schema.get("arrow"):
        return None
    import pyarrow as pa

    try:
        return pa.ipc.read_schema(pa.py_buffer(base64.b64decode(schema["arrow"])))
    except (pa.ArrowException, ValueError) as exc:
        raise ExportError(f"the dataset's recorded Arrow schema is unreadable ({exc})") from None


def write_tables(
    rows: Iterable[dict[str, Any]],
    schema: pa.Schema | None,
    open_writer: Callable[[pa.Schema], TableWriter],
    *,
    batch_rows: int = BATCH_ROWS,
) -> int:
    """Convert ``rows`` to tables of ``batch_rows`` rows and write them; return the row count.

    ``open_writer`` is called once, with the schema (``schema``, or the one inferred from
    the first batch). No rows write an empty table with ``schema``; without a schema
    there is nothing to infer a schema from, so that raises :class:`ExportError`.
    """
    builder = _TableBuilder(schema)
    writer: TableWriter | None = None
    count = 0
    try:
        for batch in _batches(rows, batch_rows):
            table = builder.table(batch, first_row=count + 1)
            if writer is None:
                writer = open_writer(table.schema)
            writer.write_table(table)
            count += len(batch)
        if writer is None:
            if schema is None:
                raise ExportError("nothing to export: no rows, and no schema to write")
            writer = open_writer(schema)
            writer.write_table(schema.empty_table())
    finally:
        if writer is not None:
            writer.close()
    return count


def _batches(rows: Iterable[dict[str, Any]], size: int) -> Iterator[list[dict[str, Any]]]:
    batch: list[dict[str, Any]] = []
    for row in rows:
        batch.append(row)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


class _TableBuilder:
    """Builds each batch's table against one schema: the given one, or the first batch's."""

    def __init__(self, schema: pa.Schema | None) -> None:
        self.schema = schema
        self.inferred = schema is None
        self.inferred_from = 0
        self._converters: list[Convert | None] = []
        if schema is not None:
            self._converters = [_converter(field.type) for field in schema]

    def table(self, batch: list[dict[str, Any]], *, first_row: int) -> pa.Table:
        import pyarrow as pa

        if self.schema is None:
            table = _infer(batch, first_row)
            self.schema = table.schema
            self.inferred_from = len(batch)
            return table
        names = set(self.schema.names)
        for offset, row in enumerate(batch):
            if not names.issuperset(row):
                extra = next(key for key in row if key not in names)
                where = (
                    f"the first {self.inferred_from:,} rows"
                    if self.inferred
                    else "the source schema"
                )
                raise ExportError(
                    f"row {first_row + offset} has a column '{extra}' that {where} did not "
                    "have; Parquet needs one schema for the whole file (export as JSON Lines)"
                )
        arrays = []
        for index, field in enumerate(self.schema):
            values = [row.get(field.name) for row in batch]
            if self.inferred:
                arrays.append(_fit(values, field, first_row, self.inferred_from))
            else:
                arrays.append(_typed(values, field, self._converters[index], first_row))
        return pa.Table.from_arrays(arrays, schema=self.schema)


def _infer(batch: list[dict[str, Any]], first_row: int) -> pa.Table:
    """The first batch as a table whose types pyarrow infers, one column per key seen."""
    import pyarrow as pa

    names = list(dict.fromkeys(key for row in batch for key in row))
    arrays = []
    for name in names:
        values = [row.get(name) for row in batch]
        try:
            arrays.append(pa.array(values))
        except _ERRORS as exc:
            sample = next((v for v in values if v is not None), None)
            field = pa.field(name, pa.array([sample]).type)
            offset, value, _ = _first_bad(values, lambda v, f=field: pa.array([v], type=f.type))
            raise ExportError(
                f"column '{name}' mixes value types (row {first_row + offset}: {_short(value)} "
                f"after {field.type} values): Parquet needs one type per column "
                f"(export as JSON Lines) [{exc}]"
            ) from None
    return pa.Table.from_arrays(arrays, names=names)


def _fit(values: list[Any], field: pa.Field, first_row: int, inferred_from: int) -> pa.Array:
    """A later batch's column, in the type the first batch (``inferred_from`` rows) gave it.

    Values may widen into that type (int into float, a struct lacking a field), never change it.
    """
    import pyarrow as pa

    try:
        array = pa.array(values)
        if array.type == field.type:
            return array
        if _widens(array.type, field.type):
            try:
                return array.cast(field.type)
            except _ERRORS:
                return pa.array(values, type=field.type)
    except _ERRORS:
        pass

    def check(value: Any) -> None:
        if not _widens(pa.array([value]).type, field.type):
            raise TypeError(f"{pa.array([value]).type} is not {field.type}")

    offset, value, _ = _first_bad(values, check)
    hint = (
        " (it held only nulls or empty lists there, so its type could not be inferred)"
        if _has_null(field.type)
        else ""
    )
    raise ExportError(
        f"row {first_row + offset}, column '{field.name}': {_short(value)} does not fit the "
        f"type {field.type} that the first {inferred_from:,} rows gave the column{hint}; "
        "Parquet needs one type per column (export as JSON Lines)"
    )


def _has_null(kind: pa.DataType) -> bool:
    """Whether ``kind`` is, or contains, the null type (what an all-null column infers)."""
    import pyarrow as pa

    if pa.types.is_null(kind):
        return True
    if pa.types.is_struct(kind):
        return any(_has_null(field.type) for field in kind)
    value_type = getattr(kind, "value_type", None)
    return value_type is not None and _has_null(value_type)


def _widens(inferred: pa.DataType, target: pa.DataType) -> bool:
    """Whether values of type ``inferred`` fit ``target`` without loss (null, int -> float, ...)."""
    import pyarrow as pa

    if inferred == target or pa.types.is_null(inferred):
        return True
    try:
        unified = pa.unify_schemas(
            [pa.schema([pa.field("c", target)]), pa.schema([pa.field("c", inferred)])],
            promote_options="permissive",
        )
    except _ERRORS:
        return False
    return unified.field("c").type == target


def _typed(values: list[Any], field: pa.Field, convert: Convert | None, first_row: int) -> Any:
    """A column in the source schema's type, decoding ISO text and base64 where needed."""
    import pyarrow as pa

    def build(items: list[Any]) -> Any:
        if convert is not None:
            items = [convert(item) for item in items]
        kind = field.type
        if isinstance(kind, pa.ExtensionType):
            return pa.ExtensionArray.from_storage(kind, pa.array(items, type=kind.storage_type))
        return pa.array(items, type=kind)

    try:
        return build(values)
    except _ERRORS as exc:
        offset, value, error = _first_bad(values, lambda v: build([v]))
        raise ExportError(
            f"row {first_row + offset}, column '{field.name}': cannot write {_short(value)} "
            f"as {field.type} ({error or exc})"
        ) from None


def _first_bad(values: list[Any], check: Callable[[Any], Any]) -> tuple[int, Any, Any]:
    """The offset, value and error of the first value ``check`` rejects (0 if none does)."""
    for offset, value in enumerate(values):
        try:
            check(value)
        except _ERRORS as exc:
            return offset, value, exc
    return 0, values[0] if values else None, None


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


# ----------------------------------------------------------------- decoding JSON values
def _converter(kind: pa.DataType) -> Convert | None:
    """How to turn a JSON-decoded value back into one pyarrow accepts as ``kind``.

    ``None`` when no conversion is needed, so plain columns cost nothing.
    """
    import pyarrow as pa

    types = pa.types
    if types.is_timestamp(kind):
        return _on_text(partial(_timestamp, unit=kind.unit))
    if types.is_date(kind):
        return _on_text(date.fromisoformat)
    if types.is_time(kind):
        return _on_text(partial(_time, unit=kind.unit))
    if types.is_duration(kind):
        return _on_text(partial(_duration, unit=kind.unit))
    if types.is_decimal(kind):
        return _on_text(decimal.Decimal)
    if _is_any(kind, "is_binary", "is_large_binary", "is_fixed_size_binary", "is_binary_view"):
        return _on_text(_base64)
    if isinstance(kind, pa.ExtensionType):
        return _converter(kind.storage_type)
    if types.is_dictionary(kind):
        return _converter(kind.value_type)
    if types.is_map(kind):
        return partial(_map, key=_converter(kind.key_type), item=_converter(kind.item_type))
    if _is_any(
        kind, "is_list", "is_large_list", "is_fixed_size_list", "is_list_view", "is_large_list_view"
    ):
        inner = _converter(kind.value_type)
        return None if inner is None else partial(_list, item=inner)
    if types.is_struct(kind):
        fields = {f.name: c for f in kind if (c := _converter(f.type)) is not None}
        return partial(_struct, fields=fields) if fields else None
    return None


def _is_any(kind: pa.DataType, *predicates: str) -> bool:
    import pyarrow as pa

    return any(getattr(pa.types, name, lambda _: False)(kind) for name in predicates)


def _on_text(parse: Callable[[str], Any]) -> Convert:
    """Apply ``parse`` to strings only; ``None`` and already-typed values pass through."""

    def convert(value: Any) -> Any:
        return parse(value) if isinstance(value, str) else value

    return convert


def _list(value: Any, *, item: Convert) -> Any:
    return [item(v) for v in value] if isinstance(value, list | tuple) else value


def _struct(value: Any, *, fields: dict[str, Convert]) -> Any:
    if not isinstance(value, dict):
        return value
    return {k: (fields[k](v) if k in fields else v) for k, v in value.items()}


def _map(value: Any, *, key: Convert | None, item: Convert | None) -> Any:
    """JSON gives a map as ``[[key, value], ...]``; pyarrow wants ``(key, value)`` tuples."""
    if not isinstance(value, list | tuple):
        return value
    return [(key(k) if key else k, item(v) if item else v) for k, v in value]


def _base64(text: str) -> bytes:
    return base64.b64decode(text, validate=True)


def _split_fraction(text: str) -> tuple[str, int]:
    """ISO text without its fractional seconds, and those as nanoseconds (up to 9 digits)."""
    match = _FRACTION.search(text)
    if match is None:
        return text, 0
    digits = match.group(1)[:9].ljust(9, "0")
    return text[: match.start()] + text[match.end() :], int(digits)


def _timestamp(text: str, *, unit: str) -> int:
    """ISO date-time text as an integer count of ``unit`` since the epoch (UTC)."""
    base, nanos = _split_fraction(text)
    moment = datetime.fromisoformat(base)
    if moment.tzinfo is not None:
        moment = moment.astimezone(timezone.utc).replace(tzinfo=None)
    seconds = (moment - _EPOCH) // timedelta(seconds=1)
    return (seconds * 10**9 + nanos) // _NANOS[unit]


def _time(text: str, *, unit: str) -> int:
    """ISO time-of-day text as an integer count of ``unit`` since midnight."""
    base, nanos = _split_fraction(text)
    moment = time.fromisoformat(base)
    seconds = (moment.hour * 60 + moment.minute) * 60 + moment.second
    return (seconds * 10**9 + nanos) // _NANOS[unit]


def _duration(text: str, *, unit: str) -> int:
    """``str(timedelta)`` or ISO 8601 (``P1DT2H3M4.5S``) text as an integer count of ``unit``."""
    if match := _TIMEDELTA.match(text):
        days, hours, minutes, seconds, fraction = match.groups()
        sign = 1
    elif match := _ISO_DURATION.match(text):
        negative, days, hours, minutes, seconds, fraction = match.groups()
        sign = -1 if negative else 1
    else:
        raise ValueError(f"not a duration: {text!r}")
    whole = ((int(days or 0) * 24 + int(hours)) * 60 + int(minutes)) * 60 + int(seconds)
    nanos = int((fraction or "")[:9].ljust(9, "0"))
    return sign * (whole * 10**9 + nanos) // _NANOS[unit]
