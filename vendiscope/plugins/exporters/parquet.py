"""Parquet exporter: Arrow tables written batch by batch, in the source's types when known."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Annotated, Any, ClassVar

from vendiscope.api import Choices, Exporter
from vendiscope.plugins.exporters._arrow import BATCH_ROWS, source_schema, write_tables

CODECS = ("zstd", "snappy", "gzip", "brotli", "lz4", "none")


class ParquetExporter(Exporter):
    """Write rows to one Parquet file, 10,000 rows (one row group) at a time.

    When the dataset came from Parquet or a Hugging Face folder, its recorded Arrow schema
    (metadata included) is used, so types come back exactly: integers, timestamps, binary,
    decimals, nested lists and structs. Otherwise the types are inferred from the first
    batch of rows, and a later row whose value does not fit raises
    :class:`~vendiscope.api.ExportError` naming the row and column.

    Parameters
    ----------
    compression
        The Parquet codec: ``"zstd"``, ``"snappy"``, ``"gzip"``, ``"brotli"``, ``"lz4"``
        or ``"none"``.
    """

    suffix: ClassVar[str] = ".parquet"

    def __init__(self, compression: Annotated[str, Choices(*CODECS)] = "zstd") -> None:
        self.compression = compression

    def write(
        self, rows: Iterable[dict[str, Any]], destination: Path, *, schema: dict[str, Any] | None
    ) -> int:
        """Write ``rows`` to ``destination``, streaming; return how many were written."""
        import pyarrow.parquet as pq

        def open_writer(arrow_schema: Any) -> Any:
            return pq.ParquetWriter(str(destination), arrow_schema, compression=self.compression)

        return write_tables(rows, source_schema(schema), open_writer, batch_rows=BATCH_ROWS)
