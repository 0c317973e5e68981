"""The records view: a filter bar, the virtual records table, and the record detail pane.

With curation signals computed, the signal columns can be shown in the table (flags that
raised anything by default), sorted over every record, filtered by an expression (``not pii
and words >= 5``, as ``vendiscope clean --keep``), and one column's histogram shows beside
the record.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QItemSelectionModel, QModelIndex, QObject, QPoint, Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QMenu,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from vendiscope.gui.dialogs.error_dialog import describe_error
from vendiscope.gui.jobs.background import Loader
from vendiscope.gui.records.detail import RecordDetail
from vendiscope.gui.records.elide import DistinctTextDelegate
from vendiscope.gui.records.link import RecordLink
from vendiscope.gui.records.model import BASE_COLUMNS, RECORD_ROLE, RecordsTableModel
from vendiscope.gui.records.queries import ScoreColumns, dataset_sources, load_score_columns
from vendiscope.gui.records.signal_data import (
    FilterResult,
    SignalTable,
    filter_records,
    load_signal_table,
)
from vendiscope.gui.widgets.icons import icon
from vendiscope.gui.widgets.style import error_palette
from vendiscope.gui.widgets.text import plain_label
from vendiscope.gui.windows.document import ProjectDocument
from vendiscope.gui.windows.tabs import register_view

if TYPE_CHECKING:
    from vendiscope.gui.records.signal_panel import SignalPanel

FILTER_DELAY_MS = 300
ALL_SOURCES = "All sources"
TEXT_COLUMNS = (1, 2)
"""Prompt and response: they share the width the other columns leave."""
TEXT_MIN_WIDTH = 110
"""Prompt and response never narrower than this: with less room the table scrolls sideways."""
SOURCE_WIDTH = 110
SCORE_WIDTH = 170
"""A score's column at most (its name is on two lines: ``Leverage`` / ``(G-Vendi)``)."""
SORT_ARROW_WIDTH = 16
"""Room for the sort arrow in the header of the column the table is sorted by."""
DEFAULT_SCORES = "Newest run of each score"
DEFAULT_SIGNALS = "Flags that raised something"
SIGNAL_FILTER_HELP = (
    "Show only the records whose curation signals match, e.g. 'pii', 'not pii', "
    "'words < 5', 'language != en', joined with 'and' (as the clean command's --keep). "
    "Combined with the text and source filters."
)


class RecordsView(QWidget):
    """Browse one dataset: filter by text and source, sort by position or score, read records."""

    def __init__(
        self,
        document: ProjectDocument,
        dataset: str,
        parent: QWidget | None = None,
        *,
        link: RecordLink | None = None,
    ):
        super().__init__(parent)
        self.document = document
        self.dataset = dataset
        self.link = link
        self.model = RecordsTableModel(document, dataset, parent=self)

        self.filter_edit = QLineEdit()
        self.filter_edit.setObjectName("recordsFilter")
        self.filter_edit.setPlaceholderText("Filter: text contained in prompt, response or text")
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.addAction(icon("search"), QLineEdit.ActionPosition.LeadingPosition)
        self.filter_edit.textChanged.connect(self._schedule_filter)
        self.source_combo = QComboBox()
        self.source_combo.setToolTip("Show the records of one source only")
        self.source_combo.addItem(ALL_SOURCES, None)
        self.source_combo.currentIndexChanged.connect(self._schedule_filter)
        self.count_label = plain_label()
        self.count_label.setObjectName("hint")
        self.score_menu = QMenu(self)
        self.score_menu.setObjectName("scoreColumnsMenu")
        self.score_menu.setToolTipsVisible(True)
        self.score_menu.aboutToShow.connect(self.fill_score_menu)
        self.scores_button = QPushButton("Score columns")
        self.scores_button.setObjectName("scoreColumns")
        self.scores_button.setToolTip(
            "Which per-record scores are columns: the newest run of each score by default; "
            "older runs can be shown beside them (also by right-clicking a column header)"
        )
        self.scores_button.setMenu(self.score_menu)
        self.scores_button.hide()  # until a score is stored
        self.signal_edit = QLineEdit()
        self.signal_edit.setObjectName("signalFilter")
        self.signal_edit.setPlaceholderText("Signals, e.g. not pii and words >= 5")
        self.signal_edit.setToolTip(SIGNAL_FILTER_HELP)
        self.signal_edit.setClearButtonEnabled(True)
        self.signal_edit.textChanged.connect(self._schedule_filter)
        self.signal_edit.hide()  # until a signal is computed
        self.signal_menu = QMenu(self)
        self.signal_menu.setObjectName("signalColumnsMenu")
        self.signal_menu.setToolTipsVisible(True)
        self.signal_menu.aboutToShow.connect(self.fill_signal_menu)
        self.signals_button = QPushButton("Signal columns")
        self.signals_button.setObjectName("signalColumns")
        self.signals_button.setToolTip(
            "Which curation signals are columns: the flags that raised something by default "
            "(also by right-clicking a signal's column header)"
        )
        self.signals_button.setMenu(self.signal_menu)
        self.signals_button.hide()
        self.signal_message = plain_label()
        self.signal_message.setObjectName("signalFilterMessage")
        self.signal_message.setWordWrap(True)
        error_palette(self.signal_message)
        self.signal_message.hide()
        bar = QHBoxLayout()
        bar.addWidget(self.filter_edit, 3)
        bar.addWidget(self.signal_edit, 2)
        bar.addWidget(self.source_combo, 1)
        bar.addWidget(self.scores_button)
        bar.addWidget(self.signals_button)
        bar.addWidget(self.count_label)

        self.table = QTableView()
        self.table.setObjectName("recordsTable")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.setTabKeyNavigation(False)  # Tab leaves the table; arrows move inside
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.table.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.text_delegate = DistinctTextDelegate(self.table)
        for column in TEXT_COLUMNS:  # where rows share a beginning, show where they differ
            self.table.setItemDelegateForColumn(column, self.text_delegate)
        self.table.viewport().installEventFilter(self)  # text columns follow its width
        self.table.verticalHeader().hide()
        vertical = self.table.verticalHeader()
        vertical.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        vertical.setDefaultSectionSize(self.fontMetrics().height() + 8)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(False)
        header.setTextElideMode(Qt.TextElideMode.ElideNone)  # a score's name has two lines
        header.setSectionsClickable(True)
        header.setHighlightSections(False)  # a selected row would make every name bold, wider
        header.setSortIndicatorShown(False)
        header.sectionClicked.connect(self._header_clicked)
        header.sectionResized.connect(self._section_resized)
        header.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        header.customContextMenuRequested.connect(self._header_menu)
        self._kept_position: int | None = None
        self.model.modelAboutToBeReset.connect(self._keep_position)
        self.model.modelReset.connect(self._model_reset)
        self.table.selectionModel().currentRowChanged.connect(self._row_changed)
        self._size_columns()

        self.detail = RecordDetail()
        self.side = QSplitter(Qt.Orientation.Vertical)  # the record; a signal's histogram
        self.side.setChildrenCollapsible(False)
        self.side.addWidget(self.detail)
        self.signal_panel: SignalPanel | None = None  # built when a signal is computed
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.table)
        splitter.addWidget(self.side)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([780, 280])
        self.detail.setMinimumWidth(240)
        self.splitter = splitter

        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(bar)
        layout.addWidget(self.signal_message)
        layout.addWidget(splitter, 1)

        self.filter_timer = QTimer(self)
        self.filter_timer.setSingleShot(True)
        self.filter_timer.setInterval(FILTER_DELAY_MS)
        self.filter_timer.timeout.connect(self.apply_filter)
        self.filter_loader = Loader(self)
        self.filter_loader.loaded.connect(self._filter_loaded)
        self.filter_loader.failed.connect(self._filter_failed)
        self.score_loader = Loader(self)
        self.score_loader.loaded.connect(self._scores_loaded)
        self.source_loader = Loader(self)
        self.source_loader.loaded.connect(self._sources_loaded)
        self.signal_loader = Loader(self)
        self.signal_loader.loaded.connect(self._signals_loaded)
        if link is not None:
            link.selected.connect(self._linked)
        document.changed.connect(self.reload)
        self.reload()

    # ------------------------------------------------------------------ loading
    def reload(self) -> None:
        if not self.document.is_open or self.document.dataset(self.dataset) is None:
            return
        self.model.refresh()
        location = self.document.location
        self.load_scores()
        self.source_loader.run(dataset_sources, location, self.dataset)
        self.signal_loader.run(load_signal_table, location, self.dataset)
        if self.filter_edit.text() or self.source_combo.currentData() is not None:
            self.apply_filter()
        self._update_count()

    def load_scores(self) -> None:
        """Read the stored score runs and the values of the chosen columns (in the background)."""
        if self.document.is_open:
            chosen = self.model.chosen_scores
            self.score_loader.run(load_score_columns, self.document.location, self.dataset, chosen)

    def _scores_loaded(self, loaded: ScoreColumns) -> None:
        self.model.set_scores(loaded)
        self.scores_button.setVisible(bool(loaded.runs))

    # ------------------------------------------------------------------ score columns
    def fill_score_menu(self, menu: QMenu | None = None) -> QMenu:
        """List every stored score run, ticked when shown: the newest of each score first,
        then its older runs (same score, same vector set), and a way back to the default."""
        menu = menu if menu is not None else self.score_menu
        menu.clear()
        shown = set(self.model.shown_score_sets())
        previous = None
        for run in self.model.score_runs:
            if previous is not None and run.kind != previous:
                menu.addSeparator()
            previous = run.kind
            action = menu.addAction(run.label)
            action.setCheckable(True)
            action.setChecked(run.vector_set in shown)
            action.setData(run.vector_set)
            usable = self.model.usable(run)
            action.setEnabled(usable)
            action.setToolTip(
                run.tooltip
                if usable
                else f"Computed on {run.rows:,} records; the dataset now "
                f"has {self.model.total:,}: score it again"
            )
            action.toggled.connect(
                lambda checked, name=run.vector_set: self.show_score(name, checked)
            )
        if self.model.score_runs:
            menu.addSeparator()
            reset = menu.addAction(DEFAULT_SCORES)
            reset.setToolTip("Show the newest run of each score, and no older ones")
            reset.setEnabled(self.model.chosen_scores is not None)
            reset.triggered.connect(self.show_default_scores)
        return menu

    def _header_menu(self, point: QPoint) -> None:
        """Right-click a signal's header: the signal columns; another: the score columns
        (or the signal columns when no score is stored)."""
        header = self.table.horizontalHeader()
        on_signal = self.model.signal_at(header.logicalIndexAt(point)) is not None
        if self.model.score_runs and not on_signal:
            self.fill_score_menu().popup(header.mapToGlobal(point))
        elif self.model.signal_table.columns:
            self.fill_signal_menu().popup(header.mapToGlobal(point))

    def show_score(self, vector_set: str, shown: bool = True) -> None:
        """Show (or hide) the score column of ``vector_set``, e.g. an older run's."""
        self.model.choose_score(vector_set, shown)
        self.load_scores()

    def show_default_scores(self) -> None:
        self.model.choose_default_scores()
        self.load_scores()

    # ------------------------------------------------------------------ signal columns
    def _signals_loaded(self, table: SignalTable) -> None:
        self.model.set_signals(table)
        found = bool(table.columns)
        self.signal_edit.setVisible(found or bool(self.signal_edit.text()))
        self.signals_button.setVisible(found)
        if found and self.signal_panel is None:
            from vendiscope.gui.records.signal_panel import SignalPanel

            self.signal_panel = SignalPanel()
            self.side.addWidget(self.signal_panel)
            self.side.setStretchFactor(0, 3)
            self.side.setStretchFactor(1, 2)
        if self.signal_panel is not None:
            self.signal_panel.setVisible(found)
            self.signal_panel.positions = self.model.passing
            current = [c for c in table.columns if len(c.values) == self.model.total]
            self.signal_panel.set_columns(current)  # not a signal of an older row count
        if self.signal_edit.text().strip():  # the columns it names may have come (or gone)
            self.apply_filter()

    def fill_signal_menu(self, menu: QMenu | None = None) -> QMenu:
        """List every signal column, ticked when shown, signal by signal, and a way back to
        the default (the flags that raised something)."""
        menu = menu if menu is not None else self.signal_menu
        menu.clear()
        shown = set(self.model.shown_signal_keys())
        previous = None
        for column in self.model.signal_table.columns:
            if column.signal != previous:
                menu.addSection(column.signal)
            previous = column.signal
            text = column.key
            if column.kind == "flag":
                text += f"  ({column.raised:,} raised)"
            action = menu.addAction(text)
            action.setCheckable(True)
            action.setChecked(column.key in shown)
            action.setData(column.key)
            action.setToolTip(column.tooltip)
            action.toggled.connect(lambda checked, key=column.key: self.show_signal(key, checked))
        if self.model.signal_table.columns:
            menu.addSeparator()
            reset = menu.addAction(DEFAULT_SIGNALS)
            reset.setToolTip("Show the flags that raised something on this dataset, no others")
            reset.setEnabled(self.model.chosen_signals is not None)
            reset.triggered.connect(self.show_default_signals)
        return menu

    def show_signal(self, key: str, shown: bool = True) -> None:
        """Show (or hide) the signal column ``key`` (e.g. ``words``)."""
        self.model.choose_signal(key, shown)

    def show_default_signals(self) -> None:
        self.model.choose_default_signals()

    def _sources_loaded(self, sources: list[str]) -> None:
        current = self.source_combo.currentData()
        self.source_combo.blockSignals(True)
        self.source_combo.clear()
        self.source_combo.addItem(ALL_SOURCES, None)
        for name in sources:
            self.source_combo.addItem(name, name)
        self.source_combo.setCurrentIndex(max(0, self.source_combo.findData(current)))
        self.source_combo.blockSignals(False)
        self.source_combo.setVisible(bool(sources))

    # ------------------------------------------------------------------ filter
    def _schedule_filter(self, *_args: Any) -> None:
        self.filter_timer.start()

    def apply_filter(self) -> None:
        """Run the current filter in the background (an empty filter shows every record)."""
        self.filter_timer.stop()
        text = self.filter_edit.text().strip()
        source = self.source_combo.currentData()
        expression = self.signal_edit.text().strip()
        if not text and source is None and not expression:
            self.filter_loader.cancel()
            self.model.set_filter(None)
            self._show_signal_error("")
            self._update_count()
            return
        self.count_label.setText("Filtering…")
        self.filter_loader.run(
            filter_records, self.document.location, self.dataset, text, source, expression,
            self.model.signal_table,
        )  # fmt: skip

    def _filter_loaded(self, result: FilterResult) -> None:
        self.model.set_filter(result.positions)
        self._show_signal_error(result.signal_error)
        self._update_count()

    def _show_signal_error(self, message: str) -> None:
        """Say why the signal filter is not applied (under the bar), or nothing."""
        self.signal_message.setText(
            f"The signal filter is not applied: {message}" if message else ""
        )
        self.signal_message.setVisible(bool(message))

    def _filter_failed(self, error: BaseException, _details: str) -> None:
        self.count_label.setText(f"Filter failed: {describe_error(error)}")

    def _update_count(self) -> None:
        shown, total = self.model.rowCount(), self.model.total
        if self.model.filtered:
            self.count_label.setText(f"{shown:,} of {total:,} records match")
        else:
            self.count_label.setText(f"{total:,} records")

    # ------------------------------------------------------------------ sort, selection
    def _header_clicked(self, column: int) -> None:
        if not self.model.sortable(column):
            return
        current = self.model.sort_state
        if current is not None and current[0] == column:
            ascending = current[1] == Qt.SortOrder.AscendingOrder
            order = Qt.SortOrder.DescendingOrder if ascending else Qt.SortOrder.AscendingOrder
        else:  # scores, flags, numbers: highest first; position, labels: natural order first
            signal = self.model.signal_at(column)
            natural = column == 0 or (signal is not None and signal.kind == "label")
            order = Qt.SortOrder.AscendingOrder if natural else Qt.SortOrder.DescendingOrder
        self.model.sort(column, order)
        signal = self.model.signal_at(column)
        if signal is not None and self.signal_panel is not None:
            self.signal_panel.show_column(signal.key)

    def _keep_position(self) -> None:
        current = self.table.currentIndex()
        self._kept_position = self.model.position(current.row()) if current.isValid() else None

    def _model_reset(self) -> None:
        header = self.table.horizontalHeader()
        state = self.model.sort_state
        header.setSortIndicatorShown(state is not None)
        if state is not None:
            header.setSortIndicator(state[0], state[1])
        self._size_columns()
        self._update_count()
        panel = self.signal_panel
        if panel is not None and panel.positions is not self.model.passing:
            panel.set_positions(self.model.passing)  # the histogram counts the shown records
        kept, self._kept_position = self._kept_position, None
        if kept is None or not self.select_position(kept):
            self.detail.show_record(None)

    def _size_columns(self) -> None:
        """Widths from the headers, not the rows (measuring a million rows is not an option):
        position, source and scores as wide as they need (a score's name up to
        :data:`SCORE_WIDTH`, elided in the middle, in full in its tooltip), prompt and
        response share the rest (:meth:`_fit_text_columns`), so every column is in view.
        Scores come next to the #."""
        header = self.table.horizontalHeader()
        metrics = header.fontMetrics()
        padding = 2 * header.style().pixelMetric(header.style().PixelMetric.PM_HeaderMargin) + 4
        sorted_by = self.model.sort_state[0] if self.model.sort_state is not None else None
        base = len(BASE_COLUMNS)
        for column in range(self.model.columnCount()):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Interactive)
            if column in TEXT_COLUMNS:
                continue
            title = str(self.model.headerData(column, Qt.Orientation.Horizontal) or "")
            wanted = max(metrics.horizontalAdvance(line) for line in title.split("\n"))
            if column == 0:  # as wide as the largest position
                wanted = max(wanted, metrics.horizontalAdvance(f"{max(self.model.total, 1):,}0"))
                width = wanted + padding + SORT_ARROW_WIDTH
            elif column < base:
                width = max(SOURCE_WIDTH, wanted + padding)
            else:  # room for the sort arrow only on the column sorted by
                arrow = SORT_ARROW_WIDTH if column == sorted_by else 0
                width = min(SCORE_WIDTH, wanted + padding + arrow)
            header.resizeSection(column, width)
        for offset, column in enumerate(range(base, self.model.columnCount()), start=1):
            header.moveSection(header.visualIndex(column), offset)
        self._fit_text_columns()

    def _fit_text_columns(self) -> None:
        """Prompt and response share the width the other columns leave, each at least
        :data:`TEXT_MIN_WIDTH` (then the table scrolls sideways rather than show ``…``)."""
        header = self.table.horizontalHeader()
        if header.count() <= max(TEXT_COLUMNS):
            return
        others = sum(header.sectionSize(c) for c in range(header.count()) if c not in TEXT_COLUMNS)
        room = self.table.viewport().width() - others
        share = max(room // len(TEXT_COLUMNS), TEXT_MIN_WIDTH)
        for column in TEXT_COLUMNS:
            header.resizeSection(column, share)

    def _section_resized(self, column: int, _old: int, _new: int) -> None:
        if column not in TEXT_COLUMNS:  # the user widened a score: the texts take the rest
            self._fit_text_columns()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.table.viewport() and event.type() == QEvent.Type.Resize:
            self._fit_text_columns()
        return super().eventFilter(watched, event)

    def _row_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        record = current.data(RECORD_ROLE) if current.isValid() else None
        notes = self.model.signal_table.notes(record.seq) if record is not None else []
        self.detail.show_record(record, notes)
        if record is not None and self.link is not None:
            self.link.select(self.dataset, record.seq, self)

    def _linked(self, dataset: str, position: int, origin: object) -> None:
        """Another view (the map) selected a record of this dataset: select its row."""
        if dataset != self.dataset or origin is self:
            return
        if not self.select_position(position):
            self.count_label.setText(f"Record {position:,} is not among the filtered records")

    def select_position(self, position: int) -> bool:
        """Scroll to and select the record at dataset ``position``."""
        row = self.model.row_of_position(position)
        if row is None:
            return False
        index = self.model.index(row, 1)
        self.table.selectionModel().setCurrentIndex(
            index,
            QItemSelectionModel.SelectionFlag.ClearAndSelect
            | QItemSelectionModel.SelectionFlag.Rows,
        )
        sideways = self.table.horizontalScrollBar().value()
        self.table.scrollTo(index, QAbstractItemView.ScrollHint.PositionAtCenter)
        self.table.horizontalScrollBar().setValue(sideways)  # keep the # column in view
        return True

    def focus_filter(self) -> None:
        self.filter_edit.setFocus()
        self.filter_edit.selectAll()


register_view(
    "records",
    "Records",
    lambda document, dataset, window: RecordsView(
        document, dataset, link=window.record_link if window is not None else None
    ),
    icon="records",
    description="Browse, filter and read a dataset's records",
)
