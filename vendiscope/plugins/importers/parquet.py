"""Parquet importer: record batches through pyarrow, with the exact Arrow schema kept."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

from vendiscope.core.errors import InputError, Location
from vendiscope.core.plugins.interfaces import BadRow, Importer, SourceInfo, SourceRow
from vendiscope.core.plugins.params import Range
from vendiscope.plugins.importers._common import check_file


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

    Parameters
    ----------
    batch_size
        How many rows are decoded at a time.
    """

    def __init__(self, batch_size: Annotated[int, Range(1)] = 2048) -> None:
        self.batch_size = batch_size

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
        path = Path(path)
        parquet = _open(path)
        number = 0
        try:
            for batch in parquet.iter_batches(batch_size=self.batch_size):
                for row in batch.to_pylist():
                    number += 1
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
