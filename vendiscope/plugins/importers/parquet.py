"""Parquet importer: record batches through pyarrow, with the exact Arrow schema kept."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

from vendiscope.api import BadRow, Importer, InputError, Location, Range, SourceInfo, SourceRow
from vendiscope.plugins.importers._arrow import batch_rows, schema_depth
from vendiscope.plugins.importers._common import check_file
from vendiscope.plugins.importers.limits import (
    MAX_DEPTH,
    MAX_FIELD_BYTES,
    Depth,
    FieldBytes,
    Limits,
    RowProblem,
)


def describe_schema(schema: Any) -> dict[str, Any]:
    """A JSON-serialisable description of a ``pyarrow.Schema`` that can rebuild it exactly.

    Returns ``{"arrow": <base64 of the IPC-serialised schema>, "columns": [names]}``;
    :func:`schema_from_description` turns it back into the schema, metadata included.
    """
    encoded = base64.b64encode(schema.serialize().to_pybytes()).decode("ascii")
    return {"arrow": encoded, "columns": list(schema.names)}


def schema_from_description(description: dict[str, Any]) -> Any:
    """The ``pyarrow.Schema`` that :func:`describe_schema` described."""
    import pyarrow as pa

    return pa.ipc.read_schema(pa.py_buffer(base64.b64decode(description["arrow"])))


class ParquetImporter(Importer):
    """Read a Parquet file in record batches (memory is bounded by ``batch_size`` rows).

    Rows are numbered from 1 (unit ``"row"``); progress is in rows, out of the row count in
    the file's metadata. Values are what ``pyarrow``'s ``to_pylist`` gives (bytes, Decimal
    and datetimes included); the schema description lets an exporter restore the types.
    A row with a value over ``max_field_bytes`` (measured before it becomes a Python value)
    or nested deeper than ``max_depth`` is a :class:`BadRow`; damaged data stops the import
    with an :class:`InputError` naming the row group and the first row not read.

    Parameters
    ----------
    batch_size
        How many rows are decoded at a time.
    max_field_bytes, max_depth
        The input limits (:mod:`vendiscope.plugins.importers.limits`).
    """

    def __init__(
        self,
        batch_size: Annotated[int, Range(1)] = 2048,
        max_field_bytes: FieldBytes = MAX_FIELD_BYTES,
        max_depth: Depth = MAX_DEPTH,
    ) -> None:
        self.batch_size = batch_size
        self.max_field_bytes = max_field_bytes
        self.max_depth = max_depth

    def inspect(self, path: Path) -> SourceInfo:
        """Row count from the metadata, and the Arrow schema (see :func:`describe_schema`)."""
        path = Path(path)
        parquet = _open(path)
        try:
            schema = parquet.schema_arrow
            total = parquet.metadata.num_rows
        finally:
            parquet.close()
        return SourceInfo(
            unit="row",
            total=total,
            progress_unit="rows",
            schema=describe_schema(schema),
            columns=tuple(schema.names),
        )

    def read(self, path: Path) -> Iterator[SourceRow | BadRow]:
        """Yield every row as a dict of plain Python values."""
        import pyarrow as pa

        path = Path(path)
        parquet = _open(path)
        limits = Limits(field_bytes=self.max_field_bytes, depth=self.max_depth)
        deep = schema_depth(parquet.schema_arrow) > limits.depth
        groups = parquet.num_row_groups
        number = 0
        try:
            for group in range(groups):
                batches = parquet.iter_batches(batch_size=self.batch_size, row_groups=[group])
                while True:
                    try:
                        batch = next(batches)
                    except StopIteration:
                        break
                    except (pa.ArrowException, OSError) as exc:
                        raise InputError(
                            f"the Parquet data is damaged in row group {group + 1} of {groups}, "
                            f"at or after this row ({exc})",
                            Location(path, number + 1, unit="row"),
                        ) from None
                    for row in batch_rows(batch, limits, deep=deep):
                        number += 1
                        if isinstance(row, RowProblem):
                            yield BadRow(number, row.message, row.field, position=number)
                        else:
                            yield SourceRow(number=number, data=row, position=number)
        finally:
            parquet.close()


def _open(path: Path) -> Any:
    """Open ``path`` as a ``pyarrow.parquet.ParquetFile``, or say why it is not one."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    check_file(path)
    try:
        return pq.ParquetFile(path)
    except (pa.ArrowException, OSError) as exc:
        raise InputError(f"not a readable Parquet file ({exc})", Location(path)) from None
