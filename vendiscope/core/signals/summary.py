"""What a dataset's computed signals say in a few numbers (the report, the app's dashboard).

Per signal column, one frozen summary by its kind: a **flag** says how many records it
raises, their share and the sources they come from (largest first); a **number** its median,
5-95% range and a histogram (records whose value does not apply, NaN, counted apart); a
**label** its commonest values. :func:`summarize_signals` reads a dataset's columns
(:func:`vendiscope.core.signals.reading.signal_columns`, each as ``SIGNAL.COLUMN``);
:func:`summarize_column` summarises one column already read; :func:`overview` adds how many
records at least one flag raises.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from vendiscope.core.signals.reading import SignalValues, signal_columns
from vendiscope.core.store import vectors
from vendiscope.core.store.project import Project
from vendiscope.core.vectors.signal_sets import KIND

if TYPE_CHECKING:
    import numpy as np

BINS = 20
"""Histogram bins of a number column."""
TOP = 5
"""A label column's commonest values kept."""


@dataclass(frozen=True)
class FlagSummary:
    """A flag: the records it raises."""

    column: str
    """``SIGNAL.COLUMN``, e.g. ``pii.email``."""
    name: str
    """The column's own name (``email``)."""
    help: str
    records: int
    raised: int
    share: float
    """Raised records over all records (0 for an empty dataset)."""
    by_source: tuple[tuple[str, int], ...]
    """Raised records per source, largest first (``""`` for records without one)."""
    run_id: int | None = None
    kind: str = "flag"


@dataclass(frozen=True)
class NumberSummary:
    """A number: where its values lie."""

    column: str
    name: str
    help: str
    records: int
    not_applicable: int
    """Records whose value does not apply (NaN), left out of everything below."""
    median: float | None
    p5: float | None
    p95: float | None
    edges: tuple[float, ...]
    """Histogram bin edges (one more than ``counts``; empty when no value applies)."""
    counts: tuple[int, ...]
    run_id: int | None = None
    kind: str = "number"


@dataclass(frozen=True)
class LabelSummary:
    """A label: its commonest values."""

    column: str
    name: str
    help: str
    records: int
    unlabelled: int
    """Records without a label."""
    top: tuple[tuple[str, int], ...]
    """The commonest labels with their counts, commonest first (ties by name)."""
    run_id: int | None = None
    kind: str = "label"


ColumnSummary = FlagSummary | NumberSummary | LabelSummary


@dataclass(frozen=True)
class SignalsOverview:
    """Every column summarised, and how many records at least one flag raises."""

    records: int
    flagged: int
    """Records at least one flag raises (what dropping every flag would leave out)."""
    columns: list[ColumnSummary]


def summarize_signals(
    project: Project, dataset: str, *, bins: int = BINS, top: int = TOP
) -> list[ColumnSummary]:
    """Every computed signal column of ``dataset`` summarised, in the readers' order (none
    when no signal was computed)."""
    return overview(project, dataset, bins=bins, top=top).columns


def overview(
    project: Project, dataset: str, *, bins: int = BINS, top: int = TOP
) -> SignalsOverview:
    """:func:`summarize_signals` with the records any flag raises, read in one go."""
    import numpy as np

    columns = {k: v for k, v in signal_columns(project, dataset).items() if "." in k}
    if not columns:
        return SignalsOverview(0, 0, [])
    sources = np.asarray([r.source or "" for r in project.iter_records(dataset)], dtype=object)
    helps = column_helps(project, dataset)
    found: list[ColumnSummary] = []
    flagged = np.zeros(len(sources), dtype=bool)
    for key, values in columns.items():
        help_text = helps.get((values.vector_set, values.column), "")
        found.append(summarize_column(key, values, sources, help=help_text, bins=bins, top=top))
        if values.kind == "flag":
            flagged |= values.values > 0
    return SignalsOverview(len(sources), int(flagged.sum()), found)


def number_histogram(values: np.ndarray, bins: int = BINS) -> tuple[list[float], list[int], int]:
    """``(edges, counts, not_applicable)`` of a number column's values: ``bins`` equal bins
    over the values that apply (no edges when none does), NaN counted apart."""
    import numpy as np

    data = np.asarray(values, dtype=np.float64)
    finite = data[~np.isnan(data)]
    if not finite.size:
        return [], [], int(data.size)
    counts, edges = np.histogram(finite, bins=bins)  # one value: one bin around it
    return [float(e) for e in edges], [int(c) for c in counts], int(data.size - finite.size)


def summarize_column(
    key: str,
    values: SignalValues,
    sources: np.ndarray | None = None,
    *,
    help: str = "",
    bins: int = BINS,
    top: int = TOP,
) -> ColumnSummary:
    """One column's summary; ``sources`` (one per record) splits a flag's records by source."""
    import numpy as np

    data = np.asarray(values.values, dtype=np.float64)
    common: dict[str, Any] = {"column": key, "name": values.column, "help": help,
                              "records": int(data.size), "run_id": values.run_id}  # fmt: skip
    if values.kind == "flag":
        raised = data > 0
        by_source: dict[str, int] = {}
        if sources is not None and raised.any():
            found, counts = np.unique(sources[raised].astype(str), return_counts=True)
            by_source = {str(s): int(c) for s, c in zip(found, counts, strict=True)}
        ordered = tuple(sorted(by_source.items(), key=lambda item: (-item[1], item[0])))
        share = float(raised.mean()) if data.size else 0.0
        return FlagSummary(**common, raised=int(raised.sum()), share=share, by_source=ordered)
    if values.kind == "label":
        labels = [label for label in values.labels() if label is not None]
        tally: dict[str, int] = {}
        for label in labels:
            tally[label] = tally.get(label, 0) + 1
        commonest = sorted(tally.items(), key=lambda item: (-item[1], item[0]))[:top]
        return LabelSummary(**common, unlabelled=int(data.size) - len(labels), top=tuple(commonest))
    edges, binned, missing = number_histogram(data, bins)
    finite = data[~np.isnan(data)]
    return NumberSummary(
        **common,
        not_applicable=missing,
        median=float(np.median(finite)) if finite.size else None,
        p5=float(np.percentile(finite, 5)) if finite.size else None,
        p95=float(np.percentile(finite, 95)) if finite.size else None,
        edges=tuple(edges),
        counts=tuple(binned),
    )


def column_helps(project: Project, dataset: str) -> dict[tuple[str, str], str]:
    """Each column's help as its run recorded it, by (vector set, column)."""
    found: dict[tuple[str, str], str] = {}
    for info in vectors.complete_sets(project, dataset, KIND):
        for column in (info.params or {}).get("columns") or ():
            found[(info.name, str(column.get("name")))] = str(column.get("help") or "")
    return found


__all__ = [
    "ColumnSummary",
    "FlagSummary",
    "LabelSummary",
    "NumberSummary",
    "SignalsOverview",
    "column_helps",
    "number_histogram",
    "overview",
    "summarize_column",
    "summarize_signals",
]
