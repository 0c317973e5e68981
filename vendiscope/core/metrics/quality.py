"""Per-record quality weights for metrics and selectors, read from a column or a score set.

``--quality COLUMN`` names a one-column vector set of the dataset (a per-record score such
as ``scores/run-3``), a number column of a computed curation signal (``language-confidence``,
``text-stats.words``; :mod:`vendiscope.core.signals.reading`) or a numeric field of the
original records (a dotted path reaches into nested objects, e.g. ``meta.rating``). Weights
must be finite and non-negative; the first record that breaks that is named in the error
(a signal's not-applicable records, NaN, are refused the same way).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from vendiscope.core.base.errors import ProjectError
from vendiscope.core.io.fields import MISSING, lookup
from vendiscope.core.store import vectors
from vendiscope.core.store.project import Project

if TYPE_CHECKING:
    import numpy as np


def quality_weights(project: Project, dataset: str, column: str) -> np.ndarray:
    """One non-negative float64 weight per record of ``dataset``, in dataset order."""
    import numpy as np

    names = {s.name: s for s in vectors.list_sets(project, dataset)}
    if column in names:
        found = names[column]
        if found.dim != 1:
            raise ProjectError(
                f"quality '{column}': vector set has {found.dim} columns; quality needs a "
                "one-column score set (e.g. scores/run-N) or a numeric record field"
            )
        weights = vectors.load(project, dataset, column)[:, 0].astype(np.float64)
    elif (signal := _signal_column(project, dataset, column)) is not None:
        weights = signal
    else:
        weights = _field_weights(project, dataset, column)
    _check(weights, dataset, column)
    return weights


def _signal_column(project: Project, dataset: str, column: str) -> np.ndarray | None:
    """A number column of a computed signal, or None when ``column`` names none."""
    import numpy as np

    from vendiscope.core.signals.reading import signal_columns

    found = signal_columns(project, dataset).get(column)
    if found is None:
        return None
    if found.kind != "number":
        raise ProjectError(
            f"quality '{column}': a {found.kind} column of signal '{found.signal}'; quality "
            "needs numbers (e.g. language-confidence)"
        )
    return np.asarray(found.values, dtype=np.float64)


def _field_weights(project: Project, dataset: str, column: str) -> np.ndarray:
    import numpy as np

    info = project.dataset(dataset)
    weights = np.empty(info.row_count, dtype=np.float64)
    for record in project.iter_records(dataset):
        value = lookup(record.original(), column)
        if record.seq == 0 and value is MISSING:
            raise ProjectError(
                f"quality '{column}': dataset '{dataset}' has no vector set or record field "
                f"of that name (record 0, source row {record.row_index + 1}, has none)"
            )
        weights[record.seq] = _number(value, dataset, column, record.seq, record.row_index)
    return weights


def _number(value: object, dataset: str, column: str, seq: int, row_index: int) -> float:
    where = f"dataset '{dataset}', record {seq} (source row {row_index + 1}), field '{column}'"
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        shown = "missing" if value is MISSING or value is None else f"{value!r}"
        raise ProjectError(f"{where}: quality must be a number, got {shown}")
    try:
        return float(value)
    except ValueError:
        raise ProjectError(f"{where}: quality must be a number, got {value!r}") from None


def _check(weights: np.ndarray, dataset: str, column: str) -> None:
    import numpy as np

    bad = np.flatnonzero(~np.isfinite(weights) | (weights < 0))
    if len(bad):
        value = weights[bad[0]]
        kind = "not finite" if not math.isfinite(value) else "negative"
        raise ProjectError(
            f"quality '{column}' of dataset '{dataset}': record {int(bad[0])} has a {kind} "
            f"weight ({value:g}); weights must be finite and >= 0"
        )
