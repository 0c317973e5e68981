"""Qt-free reads behind the records view's signal columns, signal filter and histogram.

A dataset's computed curation signals (:func:`vendiscope.core.signals.reading.signal_columns`)
become :class:`SignalColumn` s: how a cell shows a value (a flag as a mark, a label as its
text, a number to three significant digits, a value that does not apply as a blank), how a
column sorts, and its histogram. :func:`filter_records` combines the text and source filter
with a signal expression (``pii``, ``words < 5 and not pii``), the syntax of ``vendiscope
clean --keep``; a bad expression comes back as the core's message, never as an exception.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from vendiscope.core.base.errors import ProjectError
from vendiscope.core.signals.summary import BINS, number_histogram
from vendiscope.gui.jobs.tasks import opened
from vendiscope.gui.records.queries import filter_positions

if TYPE_CHECKING:
    import numpy as np

    from vendiscope.core.signals.reading import SignalValues
    from vendiscope.core.store.project import Project

FLAG_MARK = "⚑"
"""How a raised flag shows in its cell (a flag that is not raised is blank)."""
TOP_LABELS = 12
"""A label column's histogram shows its commonest values, the rest as one bar."""


def cell_text(kind: str, value: float, categories: tuple[str, ...] = ()) -> str:
    """A signal value as its cell shows it: ``⚑`` or blank, a label, ``0.123``, ``1,234``."""
    if value != value:  # NaN: does not apply
        return ""
    if kind == "flag":
        return FLAG_MARK if value > 0 else ""
    if kind == "label":
        code = int(value)
        return categories[code] if 0 <= code < len(categories) else ""
    if abs(value) >= 1000:  # counts of words and characters: whole, with separators
        return f"{value:,.0f}"
    return f"{value:.3g}"


@dataclass(frozen=True, eq=False)  # one column is one object (its values are an array)
class SignalColumn:
    """One signal column as the records view shows it."""

    key: str
    """How filters name it: ``words``, or ``text-stats.words`` when two signals share it."""
    signal: str
    column: str
    kind: str
    """``number``, ``flag`` or ``label``."""
    help: str
    values: np.ndarray
    """One float per record, in dataset order (NaN: does not apply; a label's code)."""
    categories: tuple[str, ...] = ()

    @property
    def raised(self) -> int:
        """Records whose flag is raised (a label: that have one; a number: that have one)."""
        import numpy as np

        if self.kind == "flag":
            return int(np.count_nonzero(self.values > 0))
        if self.kind == "label":
            return int(np.count_nonzero(self.values >= 0))
        return int(np.count_nonzero(~np.isnan(self.values)))

    @property
    def tooltip(self) -> str:
        kinds = {"flag": "a flag (⚑: raised)", "label": "a label", "number": "a number"}
        what = kinds.get(self.kind, self.kind)
        help_text = f": {self.help}" if self.help else ""
        return (
            f"{self.key}, {what} from the {self.signal} signal{help_text}.\n"
            f"Filter with it: {example_expression(self)}"
        )

    def text(self, position: int) -> str:
        return cell_text(self.kind, float(self.values[position]), self.categories)

    def spoken(self, position: int) -> str:
        """The value in words, for a tooltip: ``raised``, ``not raised``, ``en``, ``12``."""
        value = float(self.values[position])
        if self.kind == "flag" and value == value:
            return "raised" if value > 0 else "not raised"
        return self.text(position) or ("no label" if self.kind == "label" else "does not apply")

    def sort_keys(self) -> np.ndarray:
        """One float per record that orders the column: numbers and flags by value, labels
        by their text; NaN (no value) for records it does not apply to (sorted last)."""
        import numpy as np

        values = np.asarray(self.values, dtype=np.float64)
        if self.kind != "label":
            return values
        rank = np.full(len(self.categories) + 1, np.nan)  # the last: no label
        for position, code in enumerate(sorted(range(len(self.categories)),
                                               key=lambda c: self.categories[c])):  # fmt: skip
            rank[code] = position
        codes = np.where((values >= 0) & (values < len(self.categories)), values, -1)
        return rank[np.nan_to_num(codes, nan=-1).astype(np.int64)]


def example_expression(column: SignalColumn) -> str:
    """A filter a curator could type for ``column`` (``not pii``, ``words < 5``)."""
    if column.kind == "flag":
        return f"{column.key}  or  not {column.key}"
    if column.kind == "label":
        value = column.categories[0] if column.categories else "value"
        return f"{column.key} == {value}  or  {column.key} != {value}"
    return f"{column.key} < 5  or  {column.key} >= 0.5"


@dataclass(frozen=True)
class SignalTable:
    """Every computed signal column of a dataset; ``raw`` is what the core's filters read."""

    columns: list[SignalColumn] = field(default_factory=list)
    raw: dict[str, SignalValues] = field(default_factory=dict)
    texts: dict[str, list[str | None]] = field(default_factory=dict)
    """Text columns by ``SIGNAL.COLUMN`` (the LLM judge's reason): one text per record."""

    def notes(self, position: int) -> list[tuple[str, str]]:
        """``(what, text)`` of the record at ``position``, for its detail: ``("Reason
        (llm-judge)", "...")`` for each text column that has one."""
        out = []
        for key, found in self.texts.items():
            if "." in key and position < len(found) and found[position]:
                signal, column = key.split(".", 1)
                out.append((f"{column.capitalize()} ({signal})", str(found[position])))
        return out

    def column(self, key: str) -> SignalColumn | None:
        return next((c for c in self.columns if c.key == key), None)

    def default_keys(self) -> list[str]:
        """The columns shown unless the user chose: the flags that raised anything."""
        return [c.key for c in self.columns if c.kind == "flag" and c.raised > 0]

    def mask(self, expression: str) -> np.ndarray:
        """The records matching ``expression`` (raises ``ProjectError`` with the reason)."""
        from vendiscope.core.signals.reading import mask

        return mask(self.raw, expression)


def signal_table(project: Project, dataset: str) -> SignalTable:
    """The signal columns of ``dataset`` in an open project (signal by signal, each in the
    order its signal declares them)."""
    from vendiscope.core.signals.reading import signal_columns, signal_texts
    from vendiscope.core.store import vectors

    raw = signal_columns(project, dataset)
    helps: dict[tuple[str, str], str] = {}  # each column's help, as its run recorded it
    for name in {values.vector_set for values in raw.values()}:
        info = vectors.get_set(project, dataset, name)
        for described in (info.params or {}).get("columns") or ():
            helps[(name, str(described.get("name")))] = str(described.get("help") or "")
    columns = []
    for key, values in raw.items():
        if "." not in key or key != f"{values.signal}.{values.column}":
            continue
        short = values.column if raw.get(values.column) is values else key
        columns.append(SignalColumn(
            short, values.signal, values.column, values.kind,
            helps.get((values.vector_set, values.column), ""), values.values, values.categories,
        ))  # fmt: skip
    return SignalTable(columns, raw, signal_texts(project, dataset))


def load_signal_table(location: str, dataset: str) -> SignalTable:
    """:func:`signal_table`, opening the project (for a worker thread)."""
    with opened(location) as project:
        return signal_table(project, dataset)


# ----------------------------------------------------------------------------- filter
@dataclass(frozen=True)
class FilterResult:
    """The positions that pass (None: every record) and why the signal filter did not
    apply, if it did not (the core's message)."""

    positions: np.ndarray | None
    signal_error: str = ""
    expression: str = ""


def filter_records(
    location: str,
    dataset: str,
    text: str | None,
    source: str | None,
    expression: str | None,
    table: SignalTable | None = None,
) -> FilterResult:
    """Positions (ascending) of the records that contain ``text``, come from ``source`` and
    match the signal ``expression`` (each if given). A bad expression is left out and its
    message returned; ``table`` (already read) spares reading the signals again."""
    import numpy as np

    expression = (expression or "").strip()
    positions = filter_positions(location, dataset, text, source) if text or source else None
    if not expression:
        return FilterResult(positions)
    error = ""
    try:
        if table is None or not table.raw:
            table = load_signal_table(location, dataset)
        matched = np.flatnonzero(table.mask(expression)).astype(np.int64)
    except ProjectError as refused:
        error = str(refused)
    else:
        positions = matched if positions is None else np.intersect1d(positions, matched)
    return FilterResult(positions, error, expression)


# ----------------------------------------------------------------------------- histogram
@dataclass(frozen=True)
class HistogramData:
    """What the histogram of a column over some records shows: ``edges`` and ``counts`` of
    bins (numbers), or ``labels`` and ``counts`` (flags, labels)."""

    title: str
    counts: list[int]
    edges: list[float] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    not_applicable: int = 0
    """Records whose value does not apply (NaN), counted apart from the bins."""
    records: int = 0

    @property
    def binned(self) -> bool:
        return bool(self.edges)


def histogram_of(
    column: SignalColumn,
    positions: np.ndarray | None = None,
    *,
    bins: int = BINS,
    top: int = TOP_LABELS,
) -> HistogramData:
    """The histogram of ``column`` over the records at ``positions`` (all when None):
    a number's values in ``bins`` bins (NaN counted as not applicable), a flag as raised /
    not raised, a label's ``top`` commonest values (the rest as one bar)."""
    import numpy as np

    values = np.asarray(column.values, dtype=np.float64)
    if positions is not None:
        values = values[positions]
    records = len(values)
    shown = f"{records:,} record{'s' if records != 1 else ''}"
    if column.kind == "flag":
        raised = int(np.count_nonzero(values > 0))
        return HistogramData(
            f"{column.key}: raised on {raised:,} of {shown}",
            [raised, records - raised], labels=["raised", "not raised"], records=records,
        )  # fmt: skip
    if column.kind == "label":
        names = [cell_text("label", v, column.categories) or "(no label)" for v in values]
        ranked = Counter(names).most_common()
        kept = ranked[:top]
        labels = [name for name, _ in kept]
        counts = [count for _, count in kept]
        if len(ranked) > top:
            labels.append(f"(other: {len(ranked) - top:,} values)")
            counts.append(sum(count for _, count in ranked[top:]))
        return HistogramData(
            f"{column.key}: commonest values of {shown}", counts, labels=labels, records=records
        )
    edges, counts, missing = number_histogram(values, bins)
    apart = f"; {missing:,} not applicable" if missing else ""
    if not counts:
        title = f"{column.key}: no value applies ({shown})"
        return HistogramData(title, [], not_applicable=missing, records=records)
    return HistogramData(
        f"{column.key} of {shown}{apart}", counts,
        edges=edges, not_applicable=missing, records=records,
    )  # fmt: skip


__all__ = [
    "FLAG_MARK",
    "FilterResult",
    "HistogramData",
    "SignalColumn",
    "SignalTable",
    "cell_text",
    "filter_records",
    "histogram_of",
    "load_signal_table",
    "signal_table",
]
