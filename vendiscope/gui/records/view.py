"""The records view: a filter bar, the virtual records table, and the record detail pane."""

from __future__ import annotations

from typing import Any

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
from vendiscope.gui.records.queries import (
    ScoreColumns,
    dataset_sources,
    filter_positions,
    load_score_columns,
)
from vendiscope.gui.widgets.icons import icon
from vendiscope.gui.widgets.text import plain_label
from vendiscope.gui.windows.document import ProjectDocument
from vendiscope.gui.windows.tabs import register_view

FILTER_DELAY_MS = 300
ALL_SOURCES = "All sources"
TEXT_COLUMNS = (1, 2)
"""Prompt and response: they share the width the other columns leave."""
TEXT_MIN_WIDTH = 120
"""Prompt and response never narrower than this: with less room the table scrolls sideways."""
SOURCE_WIDTH = 110
SCORE_WIDTH = 170
"""A score's column at most (its name is on two lines: ``Leverage`` / ``(G-Vendi)``)."""
DEFAULT_SCORES = "Newest run of each score"


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
        bar = QHBoxLayout()
        bar.addWidget(self.filter_edit, 3)
        bar.addWidget(self.source_combo, 1)
        bar.addWidget(self.scores_button)
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
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.table)
        splitter.addWidget(self.detail)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([780, 280])
        self.detail.setMinimumWidth(240)
        self.splitter = splitter

        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(bar)
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
        if self.model.score_runs:
            header = self.table.horizontalHeader()
            self.fill_score_menu().popup(header.mapToGlobal(point))

    def show_score(self, vector_set: str, shown: bool = True) -> None:
        """Show (or hide) the score column of ``vector_set``, e.g. an older run's."""
        self.model.choose_score(vector_set, shown)
        self.load_scores()

    def show_default_scores(self) -> None:
        self.model.choose_default_scores()
        self.load_scores()

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
        if not text and source is None:
            self.filter_loader.cancel()
            self.model.set_filter(None)
            self._update_count()
            return
        self.count_label.setText("Filtering…")
        self.filter_loader.run(filter_positions, self.document.location, self.dataset, text, source)

    def _filter_loaded(self, positions: Any) -> None:
        self.model.set_filter(positions)
        self._update_count()

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
        else:  # scores: highest first; position: natural order first
            order = Qt.SortOrder.AscendingOrder if column == 0 else Qt.SortOrder.DescendingOrder
        self.model.sort(column, order)

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
        padding = 2 * header.style().pixelMetric(header.style().PixelMetric.PM_HeaderMargin) + 16
        base = len(BASE_COLUMNS)
        for column in range(self.model.columnCount()):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Interactive)
            if column in TEXT_COLUMNS:
                continue
            title = str(self.model.headerData(column, Qt.Orientation.Horizontal) or "")
            wanted = max(metrics.horizontalAdvance(line) for line in title.split("\n"))
            if column == 0:  # as wide as the largest position
                wanted = max(wanted, metrics.horizontalAdvance(f"{max(self.model.total, 1):,}0"))
                width = wanted + padding
            elif column < base:
                width = max(SOURCE_WIDTH, wanted + padding)
            else:
                width = min(SCORE_WIDTH, wanted + padding)
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
        self.detail.show_record(record)
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
