"""A virtual table of a dataset's records: pages fetched on demand, a small LRU page cache.

Rows are never all loaded. The model asks the store for pages of :data:`PAGE_ROWS` records
when the view paints them (``Project.records`` reads a ``seq`` range, which costs the same
at any offset) and keeps the :data:`CACHE_PAGES` most recently used pages. A filter or a
sort is an *order*: an array of dataset positions the rows follow (then pages are read by
position).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt

from vendiscope.core.store.models import RecordRow
from vendiscope.gui.records.queries import (
    METRIC_LABELS,
    ScoreColumn,
    ScoreColumns,
    ScoreRun,
    default_score_sets,
)
from vendiscope.gui.records.signal_data import SignalColumn, SignalTable
from vendiscope.gui.widgets.text import plain_tip
from vendiscope.gui.windows.document import ProjectDocument

if TYPE_CHECKING:
    import numpy as np

PAGE_ROWS = 200
CACHE_PAGES = 32
CELL_CHARS = 240
SCORE_HEADER_CHARS = 18
"""A score column's vector set is shortened to this many characters in its header."""
RECORD_ROLE = Qt.ItemDataRole.UserRole + 10
SORT_ROLE = Qt.ItemDataRole.UserRole + 11
Index = QModelIndex | QPersistentModelIndex

BASE_COLUMNS = ("#", "Prompt / text", "Response", "Source")
BASE_TIPS = (
    "Position of the record in the dataset (0-based)",
    "The prompt (instruction, question), or the text of a text-only dataset",
    "The response (answer) the model should learn",
    "Where the record comes from (domain, task); diversity is also reported per source",
)


def _middle(text: str, limit: int) -> str:
    """``text`` shortened in the middle to ``limit`` characters (both ends kept)."""
    if len(text) <= limit:
        return text
    head = (limit - 1) // 2
    return text[:head] + "…" + text[len(text) - (limit - 1 - head) :]


def one_line(text: str | None, limit: int = CELL_CHARS) -> str:
    if not text:
        return ""
    flat = " ".join(text[: limit * 2].split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def two_lines(name: str, shortest: int = 9) -> str:
    """A signal column's name on two lines, broken after the ``.`` or ``-`` nearest its
    middle (``low-`` over ``quality``), so a column of marks stays narrow; short names stay
    whole."""
    breaks = [i + 1 for i, c in enumerate(name) if c in ".-" and 0 < i < len(name) - 1]
    if len(name) <= shortest or not breaks:
        return name
    cut = min(breaks, key=lambda i: abs(len(name) - 2 * i))
    return f"{name[:cut]}\n{name[cut:]}"


class RecordsTableModel(QAbstractTableModel):
    """The records of one dataset; base columns, then per-record score columns, then signal
    columns (curation signals: flags, labels, numbers)."""

    def __init__(
        self,
        document: ProjectDocument,
        dataset: str,
        *,
        page_rows: int = PAGE_ROWS,
        cache_pages: int = CACHE_PAGES,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.document = document
        self.dataset = dataset
        self.page_rows = page_rows
        self.cache_pages = cache_pages
        self.pages_fetched = 0
        self.scores: list[ScoreColumn] = []
        self.score_runs: list[ScoreRun] = []  # every stored score run (the columns to choose)
        self.chosen_scores: list[str] | None = None  # vector sets shown; None: each kind's newest
        self.signals: list[SignalColumn] = []  # the signal columns shown
        self.signal_table = SignalTable()  # every computed signal column (the ones to choose)
        self.chosen_signals: list[str] | None = None  # keys shown; None: flags raising anything
        self._pages: OrderedDict[int, list[RecordRow]] = OrderedDict()
        self._count = self._row_count()
        self._filter: np.ndarray | None = None  # positions that pass the filter
        self._order: np.ndarray | None = None  # the rows shown, as positions
        self._sort: tuple[int, Qt.SortOrder] | None = None

    # ------------------------------------------------------------------ shape
    def _row_count(self) -> int:
        info = self.document.dataset(self.dataset) if self.document.is_open else None
        return info.row_count if info is not None else 0

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        if parent.isValid():
            return 0
        return len(self._order) if self._order is not None else self._count

    def columnCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else self.signal_start + len(self.signals)

    @property
    def signal_start(self) -> int:
        """The first signal column (after the base and the score columns)."""
        return len(BASE_COLUMNS) + len(self.scores)

    def signal_at(self, column: int) -> SignalColumn | None:
        """The signal shown in ``column`` (None for another column)."""
        offset = column - self.signal_start
        return self.signals[offset] if 0 <= offset < len(self.signals) else None

    @property
    def total(self) -> int:
        """Records in the dataset (filtered or not)."""
        return self._count

    @property
    def filtered(self) -> bool:
        return self._filter is not None

    @property
    def passing(self) -> np.ndarray | None:
        """The positions that pass the filter (ascending), None when there is no filter."""
        return self._filter

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = 0) -> Any:
        if orientation != Qt.Orientation.Horizontal:
            return None
        base = len(BASE_COLUMNS)
        signal = self.signal_at(section)
        if signal is not None:
            if role == Qt.ItemDataRole.DisplayRole:
                return two_lines(signal.key)
            if role == Qt.ItemDataRole.ToolTipRole:
                return plain_tip(
                    signal.tooltip + "\nClick the header to sort by it and see its histogram; "
                    "right-click to choose the signal columns."
                )
            return None
        if role == Qt.ItemDataRole.DisplayRole:  # a score's name on two lines: what, then on what
            if section < base:
                return BASE_COLUMNS[section]
            return self._score_header(self.scores[section - base])
        if role == Qt.ItemDataRole.ToolTipRole:
            if section < base:
                return BASE_TIPS[section]
            column = self.scores[section - base]
            newest = next((r for r in self.score_runs if r.kind == column.kind and r.newest), None)
            tip = column.tooltip  # names a vector set
            if newest is not None and newest.vector_set != column.vector_set:
                tip += f"\nAn older run of this score: the newest is run #{newest.run_id}."
            return plain_tip(tip + "\nRight-click the header to choose the score columns.")
        return None

    def _score_header(self, column: ScoreColumn) -> str:
        """What, then measured how: ``Leverage`` over ``(G-Vendi)`` (over the vector set,
        ``(gradients/fast)``, when two shown columns share the measure); with the run
        (``Leverage, run #7``) when another shown column is a run of the same score."""
        what, _, scored = column.title.partition(" (")
        scored = scored.removesuffix(")")
        key = column.kind or column.title
        if column.run_id is not None and sum((c.kind or c.title) == key for c in self.scores) > 1:
            what = f"{what}, run #{column.run_id}"
        measure = METRIC_LABELS.get(column.kind[0]) if column.kind else None
        if (
            measure
            and not any(  # the measure tells it apart unless two sets share one
                c.kind and c.kind[:2] == column.kind[:2] and c.kind[2] != column.kind[2]
                for c in self.scores
            )
        ):
            return f"{what}\n({measure})"
        if not scored:
            return what
        return f"{what}\n({_middle(scored, SCORE_HEADER_CHARS)})"

    # ------------------------------------------------------------------ data
    def position(self, row: int) -> int:
        return int(self._order[row]) if self._order is not None else row

    def record(self, row: int) -> RecordRow | None:
        if not 0 <= row < self.rowCount() or not self.document.is_open:
            return None  # e.g. a view repainting while its project closes
        page = self._page(row // self.page_rows)
        offset = row % self.page_rows
        return page[offset] if offset < len(page) else None

    def _page(self, number: int) -> list[RecordRow]:
        page = self._pages.get(number)
        if page is not None:
            self._pages.move_to_end(number)
            return page
        start = number * self.page_rows
        stop = min(start + self.page_rows, self.rowCount())
        project = self.document.project
        if self._order is None:
            page = project.records(self.dataset, start, stop - start)
        else:
            from vendiscope.core.neighbors.search import records_at

            wanted = [int(p) for p in self._order[start:stop]]
            found = records_at(project, self.dataset, wanted)
            page = [found[p] for p in wanted if p in found]
        self.pages_fetched += 1
        self._pages[number] = page
        while len(self._pages) > self.cache_pages:
            self._pages.popitem(last=False)
        return page

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        column = index.column()
        signal = self.signal_at(column)
        if role == Qt.ItemDataRole.TextAlignmentRole:
            if signal is not None and signal.kind != "number":
                centre = Qt.AlignmentFlag.AlignHCenter if signal.kind == "flag" else 0
                return int(centre | Qt.AlignmentFlag.AlignVCenter)
            if column == 0 or column >= len(BASE_COLUMNS):
                return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            return None
        if role not in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole, RECORD_ROLE):
            return None
        record = self.record(index.row())
        if record is None:
            return None
        if role == RECORD_ROLE:
            return record
        if signal is not None:
            if role == Qt.ItemDataRole.ToolTipRole:
                return f"{signal.key}: {signal.spoken(record.seq)}"
            return signal.text(record.seq)
        if column >= len(BASE_COLUMNS):
            value = float(self.scores[column - len(BASE_COLUMNS)].values[record.seq])
            return f"{value:.4f}" if role == Qt.ItemDataRole.DisplayRole else f"{value:.6g}"
        if column == 0:
            return f"{record.seq:,}" if role == Qt.ItemDataRole.DisplayRole else None
        text = (record.prompt or record.text, record.response, record.source)[column - 1]
        if role == Qt.ItemDataRole.ToolTipRole:
            return plain_tip((text or "")[:1500]) or None
        return one_line(text)

    # ------------------------------------------------------------------ filter, sort, scores
    def set_filter(self, positions: np.ndarray | None) -> None:
        """Show only these positions (ascending), or every record with ``None``."""
        self._filter = positions
        self._apply()

    def set_scores(self, loaded: ScoreColumns) -> None:
        """The stored score runs and the columns of those chosen (from
        :func:`~vendiscope.gui.records.queries.load_score_columns`)."""
        self.score_runs = loaded.runs
        known = {r.vector_set for r in loaded.runs}
        if self.chosen_scores is not None:  # a run deleted since: no longer chosen
            self.chosen_scores = [name for name in self.chosen_scores if name in known]
        self.set_score_columns(loaded.columns)

    def shown_score_sets(self) -> list[str]:
        """The vector sets of the score columns to show (the user's choice or the default)."""
        if self.chosen_scores is not None:
            return list(self.chosen_scores)
        return default_score_sets(self.score_runs)

    def choose_score(self, vector_set: str, shown: bool) -> list[str]:
        """Show or hide the score column of ``vector_set``; returns the sets now chosen (the
        view loads them)."""
        chosen = [name for name in self.shown_score_sets() if name != vector_set]
        if shown:
            chosen.append(vector_set)
        self.chosen_scores = chosen
        return chosen

    def choose_default_scores(self) -> list[str]:
        """Back to the newest run of each kind."""
        self.chosen_scores = None
        return self.shown_score_sets()

    def usable(self, run: ScoreRun) -> bool:
        """Whether ``run`` scored the records the dataset has now (one value per record)."""
        return run.rows == self._count

    def set_score_columns(self, columns: list[ScoreColumn]) -> None:
        if not columns and not self.scores:
            return
        sorted_by = self.signal_at(self._sort[0]) if self._sort is not None else None
        self.beginResetModel()
        self.scores = [c for c in columns if len(c.values) == self._count]
        if sorted_by is not None and self._sort is not None:  # the signals moved along
            self._sort = (self.signal_start + self.signals.index(sorted_by), self._sort[1])
        elif self._sort is not None and self._sort[0] >= self.signal_start:
            self._sort = None
        self.endResetModel()
        self._apply()

    def set_signals(self, table: SignalTable) -> None:
        """Every computed signal column (from
        :func:`~vendiscope.gui.records.signal_data.load_signal_table`); shows those chosen."""
        self.signal_table = table
        known = {c.key for c in table.columns}
        if self.chosen_signals is not None:  # a signal replaced since: its columns may be gone
            self.chosen_signals = [key for key in self.chosen_signals if key in known]
        self._show_signals()

    def shown_signal_keys(self) -> list[str]:
        """The signal columns to show (the user's choice, or the flags that raised anything)."""
        if self.chosen_signals is not None:
            return list(self.chosen_signals)
        return self.signal_table.default_keys()

    def choose_signal(self, key: str, shown: bool) -> None:
        """Show or hide the signal column ``key``."""
        chosen = [k for k in self.shown_signal_keys() if k != key]
        if shown:
            chosen.append(key)
        self.chosen_signals = chosen
        self._show_signals()

    def choose_default_signals(self) -> None:
        self.chosen_signals = None
        self._show_signals()

    def _show_signals(self) -> None:
        wanted = set(self.shown_signal_keys())
        columns = [  # in the table's order (signal by signal), whatever the order chosen
            c for c in self.signal_table.columns if c.key in wanted and len(c.values) == self._count
        ]
        if not columns and not self.signals:
            return
        sorted_by = self.signal_at(self._sort[0]) if self._sort is not None else None
        self.beginResetModel()
        self.signals = columns
        if sorted_by is not None:  # keep sorting by the same signal, wherever it is now
            keys = [c.key for c in columns]
            self._sort = (
                (self.signal_start + keys.index(sorted_by.key), self._sort[1])
                if sorted_by.key in keys and self._sort is not None
                else None
            )
        self.endResetModel()
        self._apply()

    def sortable(self, column: int) -> bool:
        return column == 0 or column >= len(BASE_COLUMNS)

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        if not self.sortable(column):
            return
        self._sort = (column, order)
        self._apply()

    @property
    def sort_state(self) -> tuple[int, Qt.SortOrder] | None:
        return self._sort

    def _apply(self) -> None:
        import numpy as np

        order = self._filter
        if self._sort is not None:
            column, direction = self._sort
            descending = direction == Qt.SortOrder.DescendingOrder
            if column == 0:
                if descending:
                    base = order if order is not None else np.arange(self._count, dtype=np.int64)
                    order = base[::-1]
            else:
                signal = self.signal_at(column)
                values = (
                    signal.sort_keys()
                    if signal is not None
                    else self.scores[column - len(BASE_COLUMNS)].values
                )
                base = order if order is not None else np.arange(self._count, dtype=np.int64)
                keys = values[base]  # over every record that passes the filter, not a page
                ranks = np.argsort(-keys if descending else keys, kind="stable")  # NaN last
                order = base[ranks]
        self.beginResetModel()
        self._order = order
        self._pages.clear()
        self.endResetModel()

    def refresh(self) -> None:
        """Re-read the record count and drop cached pages (after the project changed)."""
        count = self._row_count()
        if count != self._count:
            self._count = count
            self.scores = [c for c in self.scores if len(c.values) == count]
            self.signals = [c for c in self.signals if len(c.values) == count]
            self._filter, self._sort = None, None
        self._apply()

    def row_of_position(self, position: int) -> int | None:
        """The row showing dataset ``position`` (None when filtered out)."""
        if self._order is None:
            return position if 0 <= position < self._count else None
        import numpy as np

        hits = np.flatnonzero(self._order == position)
        return int(hits[0]) if len(hits) else None
