"""Arrow record batches as rows within limits: shared by the Parquet and datasets importers.

Field sizes are measured on the Arrow arrays before any value becomes a Python object, so a
huge cell is reported without being copied; nesting is bounded by the schema, and rows are
walked only when the schema allows more than ``max_depth`` levels.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from vendiscope.plugins.importers.limits import (
    Limits,
    RowProblem,
    check_value,
    field_message,
)


def type_depth(arrow_type: Any) -> int:
    """Levels of lists and structs an Arrow type may nest (a plain value: 0)."""
    import pyarrow as pa

    if pa.types.is_struct(arrow_type):
        return 1 + max((type_depth(f.type) for f in arrow_type), default=0)
    if pa.types.is_map(arrow_type):
        return 2 + max(type_depth(arrow_type.key_type), type_depth(arrow_type.item_type))
    if hasattr(arrow_type, "value_type") and (
        pa.types.is_list(arrow_type)
        or pa.types.is_large_list(arrow_type)
        or pa.types.is_fixed_size_list(arrow_type)
        or getattr(pa.types, "is_list_view", lambda _: False)(arrow_type)
        or getattr(pa.types, "is_large_list_view", lambda _: False)(arrow_type)
    ):
        return 1 + type_depth(arrow_type.value_type)
    if pa.types.is_dictionary(arrow_type):
        return type_depth(arrow_type.value_type)
    return 0


def schema_depth(schema: Any) -> int:
    """The deepest a row of ``schema`` may be; the row itself is level 1."""
    return 1 + max((type_depth(field.type) for field in schema), default=0)


def _flat_sizes(arrow_type: Any) -> bool:
    """Whether the type's values are strings or bytes measured by ``binary_length``."""
    import pyarrow as pa

    return (
        pa.types.is_string(arrow_type)
        or pa.types.is_large_string(arrow_type)
        or pa.types.is_binary(arrow_type)
        or pa.types.is_large_binary(arrow_type)
    )


def batch_rows(batch: Any, limits: Limits, *, deep: bool) -> Iterator[dict[str, Any] | RowProblem]:
    """The rows of a ``pyarrow.RecordBatch`` as dicts, or the :class:`RowProblem` of each.

    ``deep``: the schema allows rows deeper than ``limits.depth`` (see :func:`schema_depth`),
    so each row's nesting is checked.
    """
    import pyarrow.compute as pc

    problems: dict[int, RowProblem] = {}
    walk_sizes = False
    if batch.nbytes > limits.field_bytes:  # else no value can be longer
        for name, column in zip(batch.schema.names, batch.columns, strict=True):
            if column.nbytes <= limits.field_bytes:
                continue
            if not _flat_sizes(column.type):
                walk_sizes = True  # nested or encoded: measured on the Python values below
                continue
            lengths = pc.binary_length(column)
            over = pc.fill_null(pc.greater(lengths, limits.field_bytes), False)
            for index in pc.indices_nonzero(over).to_pylist():
                length = lengths[index].as_py()
                problems.setdefault(
                    index, RowProblem(field_message(length, limits.field_bytes), name)
                )
    if problems:
        keep = [index for index in range(batch.num_rows) if index not in problems]
        rows = iter(batch.take(keep).to_pylist())  # the long values are never converted
    else:
        rows = iter(batch.to_pylist())
    for index in range(batch.num_rows):
        if index in problems:
            yield problems[index]
            continue
        row = next(rows)
        if deep or walk_sizes:
            try:
                check_value(row, limits, depth=deep, sizes=walk_sizes)
            except RowProblem as exc:
                yield exc
                continue
        yield row
