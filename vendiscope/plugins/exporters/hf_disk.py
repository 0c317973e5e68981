"""Hugging Face ``datasets`` folder exporter: what ``datasets.load_from_disk`` reads."""

from __future__ import annotations

import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Any, ClassVar

from vendiscope.api import Exporter, ExportError
from vendiscope.plugins.exporters._arrow import source_schema, write_tables


class HFDiskExporter(Exporter):
    """Write rows as a ``datasets.Dataset`` folder (``save_to_disk``), in bounded memory.

    Rows are written batch by batch to an Arrow stream file in a scratch folder beside
    ``destination`` (``<name>.parts``, always removed afterwards), memory-mapped as a
    ``Dataset`` and saved with ``save_to_disk``. Types follow the same rules as the Parquet
    exporter; when the dataset came from a Hugging Face folder its features (class labels,
    images, ...) are restored, otherwise they are inferred from the Arrow types.

    Parameters
    ----------
    max_shard_size
        The largest ``.arrow`` shard ``save_to_disk`` writes, e.g. ``"500MB"`` or a byte count.
    """

    suffix: ClassVar[str] = ""
    is_directory: ClassVar[bool] = True

    def __init__(self, max_shard_size: str | int = "500MB") -> None:
        self.max_shard_size = max_shard_size

    def write(
        self, rows: Iterable[dict[str, Any]], destination: Path, *, schema: dict[str, Any] | None
    ) -> int:
        """Write ``rows`` as a dataset folder at ``destination``; return how many were written."""
        import datasets
        import pyarrow as pa

        destination = Path(destination)
        features = _features(schema)
        arrow_schema = source_schema(schema)
        if arrow_schema is None and features is not None:
            arrow_schema = features.arrow_schema
        parts = destination.with_name(destination.name + ".parts")
        shutil.rmtree(parts, ignore_errors=True)
        parts.mkdir(parents=True)
        stream = parts / "data.arrow"
        try:
            with pa.OSFile(str(stream), "wb") as sink:
                count = write_tables(rows, arrow_schema, lambda s: pa.ipc.new_stream(sink, s))
            info = datasets.DatasetInfo(features=features) if features is not None else None
            try:
                dataset = datasets.Dataset.from_file(str(stream), info=info, in_memory=False)
                # save_to_disk writes no shard at all for an empty dataset, which it can't load.
                shards = (
                    {"num_shards": 1} if count == 0 else {"max_shard_size": self.max_shard_size}
                )
                dataset.save_to_disk(str(destination), **shards)
            except (ValueError, TypeError, NotImplementedError) as exc:
                raise ExportError(f"cannot write a Hugging Face dataset: {exc}") from None
            del dataset
        finally:
            shutil.rmtree(parts, ignore_errors=True)
        return count


def _features(schema: dict[str, Any] | None) -> Any:
    """The ``datasets.Features`` the importer recorded (``schema["features"]``), or ``None``."""
    if not schema or not schema.get("features"):
        return None
    import datasets

    try:
        return datasets.Features.from_dict(schema["features"])
    except (ValueError, TypeError, KeyError) as exc:
        raise ExportError(f"the dataset's recorded features are unreadable ({exc})") from None
