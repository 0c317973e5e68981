"""Hugging Face ``datasets`` folder importer (what ``save_to_disk`` writes)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from vendiscope.api import BadRow, Importer, InputError, Location, SourceInfo, SourceRow
from vendiscope.plugins.importers._arrow import batch_rows, schema_depth
from vendiscope.plugins.importers._common import check_folder
from vendiscope.plugins.importers.limits import (
    MAX_DEPTH,
    MAX_FIELD_BYTES,
    Depth,
    FieldBytes,
    Limits,
    RowProblem,
)
from vendiscope.plugins.importers.parquet import describe_schema

DATASET_MARKER = "state.json"
DATASET_DICT_MARKER = "dataset_dict.json"
BATCH_SIZE = 1024


class HFDiskImporter(Importer):
    """Read a folder written by ``Dataset.save_to_disk`` or ``DatasetDict.save_to_disk``.

    The dataset is memory-mapped and read in batches of Arrow rows, so memory stays
    bounded. Values are Arrow's plain storage (an ``Image`` column gives
    ``{"bytes": ..., "path": ...}``); the schema carries the Arrow schema (see
    :func:`~vendiscope.plugins.importers.parquet.describe_schema`) and
    ``"features": Features.to_dict()`` so an exporter can restore the Hugging Face features.
    Rows are numbered from 1; progress is in rows. A row with a value over
    ``max_field_bytes`` or nested deeper than ``max_depth`` is a :class:`BadRow`; data that
    cannot be read stops the import with an :class:`InputError` naming the row.

    Parameters
    ----------
    split
        For a ``DatasetDict`` folder, the split to read. ``None`` takes the only split, or
        ``"train"`` when there are several. Ignored for a single ``Dataset`` folder.
    max_field_bytes, max_depth
        The input limits (:mod:`vendiscope.plugins.importers.limits`).
    """

    def __init__(
        self,
        split: str | None = None,
        max_field_bytes: FieldBytes = MAX_FIELD_BYTES,
        max_depth: Depth = MAX_DEPTH,
    ) -> None:
        self.split = split
        self.max_field_bytes = max_field_bytes
        self.max_depth = max_depth

    def inspect(self, path: Path) -> SourceInfo:
        """Row count, columns, Arrow schema and features of the chosen split."""
        path = Path(path)
        dataset, split = self._load(path)
        schema = describe_schema(dataset.features.arrow_schema)
        schema["features"] = dataset.features.to_dict()
        if split is not None:
            schema["split"] = split
        return SourceInfo(
            unit="row",
            total=dataset.num_rows,
            progress_unit="rows",
            schema=schema,
            columns=tuple(dataset.column_names),
        )

    def read(self, path: Path) -> Iterator[SourceRow | BadRow]:
        """Yield every row of the chosen split as a dict of plain Python values."""
        path = Path(path)
        import pyarrow as pa

        dataset, _ = self._load(path)
        limits = Limits(field_bytes=self.max_field_bytes, depth=self.max_depth)
        deep = schema_depth(dataset.features.arrow_schema) > limits.depth
        number = 0
        tables = iter(dataset.with_format("arrow").iter(batch_size=BATCH_SIZE))
        while True:
            try:
                table = next(tables)
            except StopIteration:
                return
            except (pa.ArrowException, OSError, ValueError) as exc:
                raise InputError(
                    f"the dataset's data cannot be read at or after this row ({exc})",
                    Location(path, number + 1, unit="row"),
                ) from None
            for batch in table.to_batches():
                for row in batch_rows(batch, limits, deep=deep):
                    number += 1
                    if isinstance(row, RowProblem):
                        yield BadRow(number, row.message, row.field, position=number)
                    else:
                        yield SourceRow(number=number, data=row, position=number)

    def _load(self, path: Path) -> tuple[Any, str | None]:
        """The ``datasets.Dataset`` to read, and the split name when the folder holds several."""
        check_folder(path, "a Hugging Face datasets folder (written by save_to_disk)")
        if (path / DATASET_DICT_MARKER).is_file():
            split = self._choose_split(path)
            return _load_from_disk(path / split, path), split
        if (path / DATASET_MARKER).is_file():
            return _load_from_disk(path, path), None
        raise InputError(
            f"not a Hugging Face datasets folder: it has no {DATASET_MARKER} or "
            f"{DATASET_DICT_MARKER} (save it with Dataset.save_to_disk)",
            Location(path),
        )

    def _choose_split(self, path: Path) -> str:
        try:
            splits = list(json.loads((path / DATASET_DICT_MARKER).read_text("utf-8"))["splits"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise InputError(
                f"{DATASET_DICT_MARKER} is not readable ({exc})", Location(path)
            ) from None
        names = ", ".join(f"'{s}'" for s in splits) or "none"
        if self.split is not None:
            if self.split not in splits:
                raise InputError(f"no split '{self.split}' (splits: {names})", Location(path))
            return self.split
        if len(splits) == 1:
            return splits[0]
        if "train" in splits:
            return "train"
        raise InputError(
            f"this dataset has several splits ({names}) and none is 'train'; choose one",
            Location(path),
        )


def _load_from_disk(folder: Path, source: Path) -> Any:
    import datasets

    try:
        dataset = datasets.load_from_disk(str(folder))
    except (OSError, ValueError, KeyError) as exc:
        raise InputError(f"cannot read this datasets folder ({exc})", Location(source)) from None
    if not isinstance(dataset, datasets.Dataset):
        raise InputError("expected a single dataset in this folder", Location(source))
    return dataset
