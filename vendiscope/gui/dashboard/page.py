"""The diversity dashboard of a dataset: G-Vendi, embedding-Vendi, duplicates, sources, spectrum,
and what the curation signals flag."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from vendiscope.core.metrics.algorithms.resolution import projection_text
from vendiscope.gui.dashboard.cards import HELP, Card
from vendiscope.gui.dashboard.data import (
    DashboardSummary,
    ScoreSummary,
    summarize,
)
from vendiscope.gui.dashboard.quality import QualitySection
from vendiscope.gui.dialogs.error_dialog import describe_error
from vendiscope.gui.jobs.background import Loader
from vendiscope.gui.selection.compare_table import SubsetCompareTable
from vendiscope.gui.widgets.icons import icon
from vendiscope.gui.widgets.text import plain_label, plain_tip, titled
from vendiscope.gui.windows.document import ProjectDocument
from vendiscope.gui.windows.tabs import register_view

if TYPE_CHECKING:
    from vendiscope.gui.services import WindowServices

FITTED_SOURCES = 8
BOTTOM_HEIGHT = 220
"""The tables and the spectrum never get less (the page scrolls only below that); with the
subsets compared above them, the page still fits a 1280x760 window."""
"""The per-source table is first sized to show up to this many sources without scrolling."""


def _fmt(value: float) -> str:
    return f"{value:,.1f}" if value < 1000 else f"{value:,.0f}"


def _share(score: ScoreSummary) -> str:
    """The effective fraction of distinct examples: one rounding wherever it is shown."""
    return f"{score.share:.1%}"


def _score_context(score: ScoreSummary) -> str:
    text = f"of n = {score.n:,} records ({_share(score)} distinct)"
    if score.ci is not None:
        level = f"{score.ci_level:.0%}" if score.ci_level else "CI"
        text += f" · {level} interval {_fmt(score.ci[0])} to {_fmt(score.ci[1])}"
    return text


def _score_tooltip(score: ScoreSummary) -> str:
    when = score.finished_at.strftime("%Y-%m-%d %H:%M") if score.finished_at else "?"
    spread = projection_text({"projection_error": {"sd": score.projection_sd}}, digits=2)
    text = (
        f"Run #{score.run_id} on vector set '{score.vector_set}', order q = {score.q}, "
        f"computed {when}. {score.value:,.2f}{spread} of {score.n:,} records "
        f"({_share(score)})."
    )
    if score.mean_cosine is not None:
        text += f" Mean cosine similarity between two records: {score.mean_cosine:.2f}."
    if score.verdict is not None:
        text += f"\n\n{score.verdict['text']}"
    return text


def _score_note(score: ScoreSummary) -> str:
    """The mean cosine and the verdict in a few words (the note's tooltip has the sentence)."""
    from vendiscope.core.metrics.algorithms.resolution import short_verdict

    parts = [] if score.mean_cosine is None else [f"mean cosine {score.mean_cosine:.2f}"]
    if short_verdict(score.verdict):
        parts.append(short_verdict(score.verdict))
    text = " · ".join(parts)
    return text[:1].upper() + text[1:]


class DashboardView(QWidget):
    """Reads :func:`summarize` in the background and shows it; re-reads when the project changes."""

    def __init__(
        self,
        document: ProjectDocument,
        dataset: str,
        parent: QWidget | None = None,
        *,
        window: WindowServices | None = None,
    ) -> None:
        super().__init__(parent)
        from vendiscope.gui.dashboard.spectrum_plot import SpectrumPlot

        self.document = document
        self.dataset = dataset
        self.window_ = window
        self.summary: DashboardSummary | None = None

        self.title = plain_label(f"Diversity of “{dataset}”")
        self.title.setObjectName("pageTitle")
        self.subtitle = plain_label("Reading the project…")
        self.subtitle.setObjectName("hint")
        refresh = QPushButton(icon("refresh"), "Refresh")
        refresh.setToolTip("Re-read the latest runs")
        refresh.clicked.connect(self.reload)
        head = QHBoxLayout()
        titles = QVBoxLayout()
        titles.addWidget(self.title)
        titles.addWidget(self.subtitle)
        head.addLayout(titles, 1)
        self.no_signals = self._no_signals()  # one line until signals are computed
        head.addWidget(self.no_signals, 1, Qt.AlignmentFlag.AlignTop)
        head.addWidget(refresh, 0, Qt.AlignmentFlag.AlignTop)

        self.cards = {
            "gvendi": Card("gvendi", "G-Vendi"),
            "evendi": Card("evendi", "Embedding-Vendi"),
            "share": Card("share", "Effectively distinct"),
            "exact": Card("exact", "Exact duplicates"),
            "near": Card("near", "Near-duplicates"),
        }
        grid = QGridLayout()
        grid.setSpacing(10)
        for column, card in enumerate(self.cards.values()):
            grid.addWidget(card, 0, column)
            grid.setColumnStretch(column, 1)

        self.sources = QTableWidget(0, 5)
        self.sources.setObjectName("sourcesTable")
        self.sources.setHorizontalHeaderLabels(
            ["Source", "Records", "Share", "G-Vendi", "Embedding-Vendi"]
        )
        self.sources.horizontalHeaderItem(3).setToolTip("G-Vendi of this source's records alone")
        self.sources.horizontalHeaderItem(4).setToolTip(
            "Embedding-Vendi of this source's records alone"
        )
        self.sources.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.sources.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.sources.verticalHeader().hide()
        self.sources.setAlternatingRowColors(True)
        header = self.sources.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.sources.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 10)
        self.spectrum = SpectrumPlot()
        self.clusters = QTableWidget(0, 3)
        self.clusters.setObjectName("sparseClusters")
        self.clusters.setHorizontalHeaderLabels(["Cluster", "Records", "Example records"])
        self.clusters.horizontalHeaderItem(2).setToolTip(
            "A few records of each of the smallest sparse clusters; double-click to read one"
        )
        self.clusters.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.clusters.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.clusters.verticalHeader().hide()
        self.clusters.setAlternatingRowColors(True)
        self.clusters.setWordWrap(False)
        cluster_header = self.clusters.horizontalHeader()
        cluster_header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        cluster_header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.clusters.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 10)
        self.clusters.cellDoubleClicked.connect(self._cluster_activated)
        self.clusters_note = plain_label()
        self.clusters_note.setObjectName("hint")
        self.clusters_note.setToolTip(HELP["sparse"])
        self.clusters_note.setWordWrap(True)
        self.clusters_button = QPushButton(icon("clusters"), "Find clusters…")
        self.clusters_button.clicked.connect(lambda: self._run("clusters"))
        self.map_button = QPushButton(icon("map"), "Show on the map")
        self.map_button.setToolTip("Open the map with the sparse clusters highlighted")
        self.map_button.clicked.connect(self._show_sparse_on_map)
        self.fill_button = QPushButton(icon("clusters"), "Fill gaps…")
        self.fill_button.setToolTip(
            "Generate new examples for the sparse clusters, kept only where they add diversity"
        )
        self.fill_button.clicked.connect(self._fill_gaps)
        clusters_buttons = QHBoxLayout()  # below the note, so the note keeps the full width
        clusters_buttons.addStretch(1)
        clusters_buttons.addWidget(self.map_button)
        clusters_buttons.addWidget(self.fill_button)
        clusters_buttons.addWidget(self.clusters_button)
        clusters_box = QWidget()
        clusters_layout = QVBoxLayout(clusters_box)
        clusters_layout.setContentsMargins(0, 0, 0, 0)
        clusters_layout.addWidget(self.clusters_note)
        clusters_layout.addLayout(clusters_buttons)
        clusters_layout.addWidget(self.clusters, 1)

        tables = QSplitter(Qt.Orientation.Vertical)
        self.tables = tables
        self._sources_fitted = False
        tables.addWidget(titled("Per source", self.sources))
        tables.addWidget(titled("Sparse clusters: under-represented kinds of data", clusters_box))
        tables.setSizes([180, 260])
        bottom = QSplitter(Qt.Orientation.Horizontal)
        bottom.addWidget(tables)
        bottom.addWidget(titled("Eigenvalue spectrum", self.spectrum))
        bottom.setSizes([560, 440])
        bottom.setMinimumHeight(BOTTOM_HEIGHT)

        page = _FittedPage()
        layout = QVBoxLayout(page)
        layout.setContentsMargins(16, 12, 16, 12)
        layout.setSpacing(12)
        layout.addLayout(head)
        layout.addLayout(grid)
        self.advice = plain_label()  # which score tells this data's groups apart, when they differ
        self.advice.setObjectName("scoreAdvice")
        self.advice.setWordWrap(True)
        self.advice.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.advice.hide()
        layout.addWidget(self.advice)
        self.subsets_compare = SubsetCompareTable(document, dataset, hide_when_empty=True)
        self.quality = QualitySection(self._signals("compute"), self._signals("clean"))
        sections = QSplitter(Qt.Orientation.Vertical)  # shares the height the cards leave
        sections.setChildrenCollapsible(False)
        sections.addWidget(self.subsets_compare)  # shown once a subset is scored
        self.quality_pane = titled("Quality: what the curation signals flag", self.quality)
        self.quality_pane.hide()  # shown once signals are computed (the card offers them)
        sections.addWidget(self.quality_pane)
        sections.addWidget(bottom)
        sections.setStretchFactor(2, 1)
        self.sections = sections
        layout.addWidget(sections, 1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(page)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(scroll)

        self.loader = Loader(self)
        self.loader.loaded.connect(self.show_summary)
        self.loader.failed.connect(self._failed)
        document.changed.connect(self.reload)
        self.reload()

    # ------------------------------------------------------------------ data
    def reload(self) -> None:
        if self.document.is_open and self.document.dataset(self.dataset) is not None:
            self.loader.run(summarize, self.document.location, self.dataset)

    def _failed(self, error: BaseException, _details: str) -> None:
        self.subtitle.setText(f"Could not read the project: {describe_error(error)}")

    def _action(self, name: str) -> Callable[[], None] | None:
        window = self.window_
        if window is None:
            return None
        return lambda: window.run_action(name, self.dataset)

    def _signals(self, which: str) -> Callable[[], None] | None:
        """Open "Compute signals…" or "Clean up…" on this dataset (None without a window)."""
        window = self.window_
        if window is None:
            return None
        from vendiscope.gui.signals import launch

        start = launch.compute_signals if which == "compute" else launch.clean_up

        def open_dialog() -> None:
            start(window, self.dataset)

        return open_dialog

    def show_summary(self, summary: DashboardSummary) -> None:
        self.summary = summary
        sources = len([s for s in summary.sources if s != "(none)"])
        self.subtitle.setText(
            f"{summary.rows:,} records · {summary.unique:,} unique · "
            f"{sources} source{'s' if sources != 1 else ''}"
        )
        self._score_card("gvendi", summary.gvendi, bool(summary.gradient_sets))
        self._score_card("evendi", summary.evendi, bool(summary.embedding_sets))
        self.advice.setText(summary.advice)
        self.advice.setVisible(bool(summary.advice))
        self._share_card(summary)
        exact = summary.exact_duplicates
        self.cards["exact"].set_value(
            f"{exact:,}",
            f"{exact / summary.rows:.1%} of records repeat an earlier one" if summary.rows else "",
        )
        self._near_card(summary)
        self._clusters(summary)
        self._quality(summary)
        self._fill_sources(summary)
        scores = [s for s in (summary.gvendi, summary.evendi) if s is not None]
        self.spectrum.set_scores(scores)

    def _score_card(self, key: str, score: ScoreSummary | None, has_vectors: bool) -> None:
        card = self.cards[key]
        if score is not None:
            card.set_value(
                _fmt(score.value),
                _score_context(score),
                _score_tooltip(score),
                note=_score_note(score),
                note_tip=score.verdict["text"] if score.verdict else "",
            )
            return
        if key == "gvendi":
            if has_vectors:
                card.set_missing(
                    "Gradient features are ready.", "Score G-Vendi", self._action("score-gvendi")
                )
            else:
                card.set_missing(
                    "Needs proxy-LM gradient features (slow on a CPU).",
                    "Compute gradients…",
                    self._action("featurize"),
                )
        elif has_vectors:
            card.set_missing(
                "Embeddings are ready.", "Score embedding-Vendi", self._action("score-vendi")
            )
        else:
            card.set_missing(
                "Needs sentence embeddings.", "Compute embeddings…", self._action("embed")
            )

    def _share_card(self, summary: DashboardSummary) -> None:
        score = summary.gvendi or summary.evendi
        card = self.cards["share"]
        if score is None:
            card.set_missing("Known once the dataset is scored.")
            return
        card.set_value(
            _share(score),
            f"{_fmt(score.value)} of {score.n:,} records ({score.label})",
        )

    def _near_card(self, summary: DashboardSummary) -> None:
        card = self.cards["near"]
        near = summary.near_duplicates
        if near is not None:
            card.set_value(
                f"{near.redundant:,}",
                f"redundant at cosine ≥ {near.threshold:g}, in {near.groups:,} groups",
                f"Run #{near.run_id} on '{near.vector_set}'; largest group {near.largest_group}.",
            )
        elif summary.embedding_sets:
            card.set_missing(
                "Not searched yet.", "Find near-duplicates…", self._action("near-duplicates")
            )
        else:
            card.set_missing(
                "Needs sentence embeddings.", "Compute embeddings…", self._action("embed")
            )

    def _no_signals(self) -> QWidget:
        """What signals are, in a line, and the button that computes them."""
        box = QWidget()
        box.setObjectName("noSignals")
        note = plain_label(
            "No curation signals yet: per-record checks of quality, personal data, language "
            "and near-copies, which Clean up… uses."
        )
        note.setObjectName("hint")
        note.setWordWrap(True)
        note.setToolTip(plain_tip(HELP["quality"]))
        self.compute_signals_button = QPushButton(icon("score"), "Compute signals…")
        action = self._signals("compute")
        self.compute_signals_button.setEnabled(action is not None)
        if action is not None:
            self.compute_signals_button.clicked.connect(lambda _checked=False: action())
        row = QHBoxLayout(box)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(note, 1)
        row.addWidget(self.compute_signals_button, 0, Qt.AlignmentFlag.AlignTop)
        box.hide()
        return box

    def _quality(self, summary: DashboardSummary) -> None:
        """The Quality section once signals are computed; before, a line offering them."""
        self.no_signals.setVisible(not summary.quality)
        self.quality_pane.setVisible(bool(summary.quality))
        if summary.quality:
            self.quality.show_quality(summary.quality, summary.rows, summary.flagged)

    def _run(self, name: str) -> None:
        action = self._action(name)
        if action is not None:
            action()

    def _clusters(self, summary: DashboardSummary) -> None:
        found = summary.clusters
        has_vectors = bool(summary.gradient_sets or summary.embedding_sets)
        self.clusters.setRowCount(0)
        self.map_button.setVisible(found is not None)
        self.fill_button.setVisible(found is not None and self.window_ is not None)
        self.fill_button.setEnabled(bool(summary.gradient_sets) and self.document.writable)
        self.fill_button.setToolTip(
            "Generate new examples for the sparse clusters, kept only where they add diversity"
            if summary.gradient_sets
            else "Needs gradient features first (Compute gradients…)"
        )
        self.clusters_button.setText("Recompute clusters…" if found else "Find clusters…")
        self.clusters_button.setEnabled(has_vectors)
        if found is None:
            self.clusters_note.setText(
                "Not clustered yet. Clustering finds the kinds of data the dataset has few "
                "examples of (one click; seconds for thousands of records)."
                if has_vectors
                else "Needs gradient features or embeddings first."
            )
            return
        share = found.records_in_sparse / found.records if found.records else 0.0
        self.clusters_note.setText(
            f"{found.sparse:,} of {found.n_clusters:,} clusters (run #{found.run_id} on "
            f"'{found.vector_set}') are smaller than the median size {found.median_size:g}; "
            f"they hold {found.records_in_sparse:,} records ({share:.1%}). The smallest:"
        )
        for sparse in found.smallest:
            row = self.clusters.rowCount()
            self.clusters.insertRow(row)
            texts = [text for _, text in sparse.examples]
            cells = [f"{sparse.cluster}", f"{sparse.size:,}", "  ·  ".join(texts)]
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setData(Qt.ItemDataRole.UserRole, [p for p, _ in sparse.examples])
                if column < 2:
                    item.setTextAlignment(
                        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                    )
                else:
                    item.setToolTip(
                        plain_tip("\n\n".join(f"#{p}: {t}" for p, t in sparse.examples))
                    )
                self.clusters.setItem(row, column, item)

    def _cluster_activated(self, row: int, _column: int) -> None:
        positions = self.clusters.item(row, 0).data(Qt.ItemDataRole.UserRole) or []
        if positions and self.window_ is not None:
            view = self.window_.open_view("records", self.dataset)
            if view is not None:
                view.select_position(int(positions[0]))

    def _fill_gaps(self) -> None:
        from vendiscope.gui.synthesis.launch import fill_gaps

        if self.window_ is not None:
            fill_gaps(self.window_, self.dataset)

    def _show_sparse_on_map(self) -> None:
        view = self.window_.open_view("map", self.dataset) if self.window_ is not None else None
        if view is not None:
            view.set_colour("sparse")

    def _fill_sources(self, summary: DashboardSummary) -> None:
        """One row per source; each score column at the smallest source's size, said in its
        header, when the run has scores at equal n (the source's own score in the tooltip)."""
        table = self.sources
        table.setRowCount(0)
        scores = {3: ("G-Vendi", summary.gvendi), 4: ("Embedding-Vendi", summary.evendi)}
        for column, (name, score) in scores.items():
            rows = (score.per_source if score is not None else {}).values()
            found = next((r["equal_n"] for r in rows if r.get("equal_n")), None)
            header = table.horizontalHeaderItem(column)
            if found is None:
                header.setText(name)
                header.setToolTip(f"{name} of this source's records alone")
                continue
            m = int(found["n"])
            draws = max(int(r["equal_n"]["draws"]) for r in rows if r.get("equal_n"))
            header.setText(f"{name}\nat n = {m:,}")
            header.setToolTip(
                f"{name} of each source at n = {m:,}, the size of the smallest: the mean ± sd "
                f"of {draws} random draws of {m:,} records from each larger source. A score "
                "grows with the records, so sources of different sizes are compared at one "
                "size; a cell's tooltip has the source's own score."
            )
        for name, count in summary.sources.items():
            row = table.rowCount()
            table.insertRow(row)
            cells = [
                (name, ""),
                (f"{count:,}", ""),
                (f"{count / summary.rows:.1%}" if summary.rows else "", ""),
                _source_score(summary.gvendi, name),
                _source_score(summary.evendi, name),
            ]
            for column, (text, tip) in enumerate(cells):
                item = QTableWidgetItem(text)
                if tip:
                    item.setToolTip(tip)
                if column:
                    item.setTextAlignment(
                        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                    )
                table.setItem(row, column, item)
        if not self._sources_fitted:  # once: later the user's splitter position stands
            self._sources_fitted = True
            self._fit_sources()

    def _fit_sources(self) -> None:
        """Give the per-source table the height of its rows (up to 60% of the room)."""
        table = self.sources
        rows = min(table.rowCount(), FITTED_SOURCES)
        needed = (
            table.horizontalHeader().sizeHint().height()
            + rows * table.verticalHeader().defaultSectionSize()
            + 2 * table.frameWidth()
            + self.fontMetrics().height()  # the section title
            + 8
        )
        sizes = self.tables.sizes()
        total = sum(sizes) or 440
        first = min(needed, total * 6 // 10)
        self.tables.setSizes([first, max(total - first, 1)])


def _source_score(score: ScoreSummary | None, source: str) -> tuple[str, str]:
    """A source's cell and its tooltip: the score at equal n when the run has it (an older
    run: the source's own score), "too few" for a source too small to score."""
    from vendiscope.core.metrics.algorithms import equal_n

    if score is None:
        return "", ""
    found = score.per_source.get(source)
    if not found:
        return "too few", "Too few records for a score of its own"
    own = f"{_fmt(found['value'])} on its own {int(found['n']):,} records"
    at = found.get("equal_n")
    if not at:
        return _fmt(found["value"]), (
            f"{own}. This run has no scores at equal n: a score grows with the records, so "
            "score again to compare sources of different sizes."
        )
    text = equal_n.figure(at, digits=1)
    m = int(at["n"])
    if not equal_n.drawn(at):
        return text, f"{own}: the smallest source, scored once at n = {m:,}"
    return text, (
        f"{text} at n = {m:,}: the mean ± sd of {int(at['draws'])} random draws of {m:,} of "
        f"its {int(at['of']):,} records ({own})"
    )


class _FittedPage(QWidget):
    """The dashboard's page: as tall as the scroll area, scrolling only below its minimum.

    A scroll area gives a page whose layout wraps text (the cards, the legend) the height
    the layout *prefers* at its width, which on a 768-pixel screen pushed the spectrum and
    its legend below the fold; this page asks for no more than its minimum.
    """

    def heightForWidth(self, _width: int) -> int:
        return self.minimumSizeHint().height()


def _factory(
    document: ProjectDocument, dataset: str, window: WindowServices | None
) -> DashboardView:
    return DashboardView(document, dataset, window=window)


register_view(
    "dashboard",
    "Diversity",
    _factory,
    icon="dashboard",
    description="G-Vendi, embedding-Vendi, duplicates and sources of a dataset",
)
