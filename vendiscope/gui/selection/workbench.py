"""The selection workbench of a dataset: run selectors under a budget, compare their curves.

Left, the selection to run: one or more methods (each becomes a job), the budget k, the
vector set, quality weights, what to leave out (subsets, flagged records, near-duplicates),
and each method's own parameters (a form built from its ParamSpec). Right, every selection
run of the dataset: its diversity-vs-budget curve against a random order, on the vector set
chosen above the chart (G-Vendi's gradients or the embeddings), and a table to save or
export a run's subset. Beside the curves, "Quality vs diversity" compares quality-weighted
selections at a few strengths (a job, :func:`.data.tradeoff_task`; nothing is saved).
Below, "Subsets compared": the dataset and each subset scored side by side, with intervals
and a random baseline; *Score subsets* scores them all as one job.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from vendiscope.core.plugin_host.params import ParamError
from vendiscope.core.selection.choices import curve_title
from vendiscope.gui.dialogs.error_dialog import describe_error
from vendiscope.gui.jobs import tasks
from vendiscope.gui.jobs.background import Loader
from vendiscope.gui.jobs.manager import JobState
from vendiscope.gui.selection.compare_table import SubsetCompareTable
from vendiscope.gui.selection.data import (
    SelectionRun,
    WorkbenchState,
    check_quality_column,
    matching_strength,
    tradeoff_task,
    workbench_state,
)
from vendiscope.gui.selection.form import SelectionForm, refill
from vendiscope.gui.selection.tradeoff_panel import TradeoffPanel
from vendiscope.gui.widgets.icons import icon
from vendiscope.gui.widgets.text import make_plain, plain_label, plain_tip
from vendiscope.gui.windows.document import ProjectDocument
from vendiscope.gui.windows.tabs import register_view

if TYPE_CHECKING:
    from vendiscope.core.plugin_host.registry import PluginRegistry
    from vendiscope.core.selection.tradeoff import TradeoffResult
    from vendiscope.gui.services import WindowServices

TIMES = "\u00d7"  # the multiplication sign
SUBSET_BOOTSTRAP = 50
"""Bootstrap resamples of each set's interval when the workbench scores the subsets."""
RUN_COLUMNS = ("#", "Method", "k", "Vendi", "Random", "Gain", "Selected on", "Objective", "Subset")
"""The results (Vendi, Random, Gain) come right after the run, where they are always seen."""
RUN_TIPS = (
    "The selection run",
    "The selector plugin",
    "The budget: records chosen",
    "Vendi score of the k chosen records, on the vector set chosen above the chart",
    "Vendi score of k records in a random order of the same candidates (the baseline)",
    "How many times more effective distinct examples than random",
    "The vector set the selector worked on",
    "The selector's own objective at k",
    "The subset the run saved (export it, or show it on the map)",
)
NUMBER_COLUMNS = (0, 2, 3, 4, 5)
"""Right-aligned and as wide as their contents; the text columns share the rest (elided)."""


def _registry(window: WindowServices | None) -> PluginRegistry:
    if window is not None:
        return window.plugin_registry()
    from vendiscope.core.plugin_host.registry import default_registry

    return default_registry()


class SelectionWorkbench(QWidget):
    """Run selections on one dataset and compare them."""

    def __init__(
        self,
        document: ProjectDocument,
        dataset: str,
        window: WindowServices | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.document = document
        self.dataset = dataset
        self.window_ = window
        self.registry = _registry(window)
        self.state: WorkbenchState | None = None
        self.last_jobs: list[Any] = []
        self.highlight: int | None = None
        self._pending_run: int | None = None
        self.tradeoff: TradeoffResult | None = None
        self.tradeoff_job: Any = None

        self.form = SelectionForm(dataset, self.registry)
        self.form.run_requested.connect(self.run_selection)
        self.form.step_requested.connect(self._run_step)
        self.form.quality_changed.connect(self._check_quality)
        self.form.quality.currentIndexChanged.connect(lambda _i: self._tradeoff_ready())
        self.form.vector_set.currentIndexChanged.connect(lambda _i: self._tradeoff_ready())
        left = self.form
        right = self._build_results()
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(left)
        splitter.addWidget(right)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([380, 820])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(splitter)

        self.loader = Loader(self)
        self.loader.loaded.connect(self.show_state)
        self.loader.failed.connect(self._failed)
        self.quality_loader = Loader(self)
        self.quality_loader.loaded.connect(lambda found: self.form.show_quality_problem(*found))
        document.changed.connect(self.reload)
        self.reload()

    # ------------------------------------------------------------------ the form
    # ------------------------------------------------------------------ results
    def _build_results(self) -> QWidget:
        from vendiscope.gui.selection.curves_plot import CurvesPlot  # pyqtgraph: not at start-up

        self.curve_set = QComboBox()
        self.curve_set.setObjectName("curveSet")
        self.curve_set.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.curve_set.setMinimumContentsLength(30)
        self.curve_set.setToolTip(
            "Whose diversity the curves show: G-Vendi (gradient features) or embedding-Vendi"
        )
        self.curve_set.currentIndexChanged.connect(self._draw)
        head = QHBoxLayout()
        head.addStretch(1)
        self.curve_label = plain_label("Curves on:")
        head.addWidget(self.curve_label)
        head.addWidget(self.curve_set)
        self.curves = CurvesPlot()
        self.runs_table = QTableWidget(0, len(RUN_COLUMNS))
        self.runs_table.setObjectName("selectionRuns")
        self.runs_table.setHorizontalHeaderLabels(list(RUN_COLUMNS))
        for column, tip in enumerate(RUN_TIPS):
            self.runs_table.horizontalHeaderItem(column).setToolTip(tip)
        self.runs_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.runs_table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.runs_table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.runs_table.verticalHeader().hide()
        self.runs_table.setAlternatingRowColors(True)
        self.runs_table.setWordWrap(False)
        self.runs_table.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.runs_table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 10)
        header = self.runs_table.horizontalHeader()
        header.setMinimumSectionSize(self.fontMetrics().horizontalAdvance("#00") + 12)
        for column in range(len(RUN_COLUMNS)):  # every column in view: no sideways scrolling
            mode = (
                QHeaderView.ResizeMode.ResizeToContents
                if column in NUMBER_COLUMNS or column == 1
                else QHeaderView.ResizeMode.Stretch
            )
            header.setSectionResizeMode(column, mode)
        self.runs_table.itemSelectionChanged.connect(self._run_selected)
        self.save_button = QPushButton(icon("subset"), "Save subset…")
        self.save_button.setToolTip("Save the run's subset under a new name (it keeps the run)")
        self.save_button.clicked.connect(self.save_subset)
        self.export_button = QPushButton(icon("export"), "Export…")
        self.export_button.setToolTip("Export the run's subset with its manifest (and the run)")
        self.export_button.clicked.connect(self.export_subset)
        self.map_button = QPushButton(icon("map"), "Show on map")
        self.map_button.setToolTip("Open the map with the run's subset highlighted")
        self.map_button.clicked.connect(self.show_on_map)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        for button in (self.map_button, self.save_button, self.export_button):
            button.setEnabled(False)
            buttons.addWidget(button)
        table_box = QWidget()
        table_layout = QVBoxLayout(table_box)
        table_layout.setContentsMargins(0, 0, 0, 0)
        runs_title = plain_label("Selection runs")
        runs_title.setObjectName("sectionTitle")
        table_layout.addWidget(runs_title)
        table_layout.addWidget(self.runs_table, 1)
        table_layout.addLayout(buttons)
        plot_box = QWidget()
        plot_layout = QVBoxLayout(plot_box)
        plot_layout.setContentsMargins(0, 4, 0, 0)
        plot_layout.addLayout(head)
        plot_layout.addWidget(self.curves, 1)
        self.tradeoff_panel = TradeoffPanel()
        self.tradeoff_panel.compute_requested.connect(self.compute_tradeoff)
        self.charts = QTabWidget()
        self.charts.setObjectName("selectionCharts")
        self.charts.setDocumentMode(True)
        self.charts.addTab(plot_box, "Diversity vs budget")
        self.charts.addTab(self.tradeoff_panel, "Quality vs diversity")
        self.charts.setTabToolTip(0, "Each run's diversity as its budget grows, against random")
        self.charts.setTabToolTip(
            1, "What weighting by quality costs in diversity, at a few strengths"
        )
        self.compare = SubsetCompareTable(self.document, self.dataset, with_action=True)
        self.compare.score_requested.connect(self.score_subsets)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self.charts)
        splitter.addWidget(table_box)
        splitter.addWidget(self.compare)
        splitter.setSizes([440, 170, 150])
        return splitter

    # ------------------------------------------------------------------ state
    def reload(self) -> None:
        if self.document.is_open and self.document.dataset(self.dataset) is not None:
            self.loader.run(workbench_state, self.document.location, self.dataset)

    def _failed(self, error: BaseException, _details: str) -> None:
        self.form.show_problem(f"Could not read the project: {describe_error(error)}")

    def show_state(self, state: WorkbenchState) -> None:
        self.state = state
        self.form.fill(state)
        refill(
            self.curve_set,
            [
                (f"{curve_title(kind, 'Vendi')} on {name}", name)
                for name, kind in state.curve_sets()
            ],
        )
        self.curve_label.setVisible(self.curve_set.count() > 0)
        self.curve_set.setVisible(self.curve_set.count() > 0)
        self._fill_runs(state.runs)
        if self._pending_run is not None and self.select_run(self._pending_run):
            self._pending_run = None
        self._draw()
        self._tradeoff_ready()

    def _fill_runs(self, runs: list[SelectionRun]) -> None:
        selected = self.selected_run()
        keep = selected.run_id if selected is not None else None
        table = self.runs_table
        table.blockSignals(True)
        table.setRowCount(0)
        curve = self.curve_set.currentData()
        for run in reversed(runs):
            row = table.rowCount()
            table.insertRow(row)
            chosen = run.vendi.get(curve, [None])[-1] if curve else None
            random = run.random.get(curve, [None])[-1] if curve else None
            gain = chosen / random if chosen and random else None
            objective = (  # the number first: it stays in view when the cell is elided
                f"{run.objective:.4g} ({run.objective_name})" if run.objective is not None else ""
            )
            subset = run.subset or ""
            if run.subset and not run.subset_exists:
                subset += " (deleted)"
            times = f"{gain:.2f}{TIMES}" if gain else ""
            cells = [
                f"#{run.run_id}", run.method, f"{run.k:,}", _number(chosen), _number(random),
                times, run.vector_set, objective, subset,
            ]  # fmt: skip
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setData(Qt.ItemDataRole.UserRole, run.run_id)
                if text:
                    item.setToolTip(plain_tip(text))  # the whole text of an elided cell
                if column in NUMBER_COLUMNS:
                    item.setTextAlignment(
                        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                    )
                table.setItem(row, column, item)
            if run.run_id == keep:
                table.selectRow(row)
        table.blockSignals(False)
        self._run_selected()

    def _draw(self) -> None:
        if self.state is None:
            return
        self.curves.set_runs(self.state.runs, self.curve_set.currentData(), self.highlight)
        if self.sender() is self.curve_set:
            self._fill_runs(self.state.runs)

    def selected_run(self) -> SelectionRun | None:
        rows = (
            self.runs_table.selectionModel().selectedRows()
            if self.runs_table.selectionModel()
            else []
        )
        if not rows or self.state is None:
            return None
        run_id = self.runs_table.item(rows[0].row(), 0).data(Qt.ItemDataRole.UserRole)
        return next((r for r in self.state.runs if r.run_id == run_id), None)

    def _run_selected(self) -> None:
        run = self.selected_run()
        usable = run is not None and bool(run.subset) and run.subset_exists
        for button in (self.save_button, self.export_button, self.map_button):
            button.setEnabled(usable)
        highlight = run.run_id if run is not None else None
        if highlight != self.highlight and self.state is not None:
            self.highlight = highlight
            self.curves.set_runs(self.state.runs, self.curve_set.currentData(), highlight)
        self.tradeoff_panel.plot.set_marked(self._marked())

    def focus_run(self, run_id: int) -> None:
        """Select run ``run_id`` in the table (once it is read, if it is not yet)."""
        if not self.select_run(run_id):
            self._pending_run = run_id

    def select_run(self, run_id: int) -> bool:
        for row in range(self.runs_table.rowCount()):
            if self.runs_table.item(row, 0).data(Qt.ItemDataRole.UserRole) == run_id:
                self.runs_table.selectRow(row)
                return True
        return False

    # ------------------------------------------------------------------ running
    def run_selection(self) -> list[Any]:
        """Submit one selection job per ticked method; returns the jobs."""
        if self.window_ is None or not self.document.is_open:
            return []
        try:
            options = self.form.options()
        except ParamError as exc:
            self.form.show_problem(str(exc))
            return []
        if self.form.quality_problem:
            self.form.show_problem(self.form.quality_problem)
            return []
        self.form.clear_problem()
        self.last_jobs = [
            self.window_.jobs.submit(
                f"Select {o['k']:,} of {self.dataset} ({o['method']})",
                tasks.select,
                self.document.location,
                self.dataset,
                kind="select",
                dataset=self.dataset,
                **o,
            )
            for o in options
        ]
        return self.last_jobs

    def score_subsets(self) -> Any:
        """Score the dataset and each of its subsets (one job), on the vector set the curves
        show (else the one selections use), with intervals and a random baseline."""
        if self.window_ is None or not self.document.is_open or self.state is None:
            return None
        names = [name for name, _size in self.state.subsets]
        if not names:
            self.form.show_problem("No subsets yet: run a selection first (or save one).")
            return None
        kinds = dict(self.state.curve_sets()) | dict(self.state.vector_sets)
        chosen = self.curve_set.currentData() or next(iter(kinds), None)
        if chosen is None:
            self.form.show_problem("Nothing to score on yet: compute embeddings or gradients.")
            return None
        self.form.clear_problem()
        return self.window_.jobs.submit(
            f"Score {len(names):,} subsets of {self.dataset}",
            tasks.score_subsets,
            self.document.location,
            self.dataset,
            names,
            metric="gvendi" if kinds.get(chosen) == "gradient" else "vendi",
            vector_set=chosen,
            params={"bootstrap": SUBSET_BOOTSTRAP},
            vs_random=True,
            kind="score",
            dataset=self.dataset,
        )

    # ------------------------------------------------------------------ quality vs diversity
    def _check_quality(self, column: str | None) -> None:
        """Ask the core (in the background) whether ``column`` can weigh the records."""
        if column is not None and self.document.is_open:
            self.quality_loader.run(
                check_quality_column, self.document.location, self.dataset, column
            )

    def _tradeoff_ready(self) -> None:
        if self.state is not None and not self.state.vector_sets:
            why = "Compute embeddings or gradients first."
        elif self.form.quality_column() is None:
            why = "Choose a quality column on the left first."
        elif self.tradeoff_job is not None and not self.tradeoff_job.state.finished:
            why = "Computing… (its progress, and Cancel, are in the Jobs panel)"
        else:
            why = ""
        self.tradeoff_panel.set_ready(not why and self.window_ is not None, why)

    def compute_tradeoff(self, strengths: tuple[float, ...] | None = None) -> Any:
        """One job: a quality-weighted greedy Vendi selection per strength, with the form's
        budget, vector set, quality and leave-outs (nothing is saved); the chart shows it."""
        quality = self.form.quality_column()
        if self.window_ is None or not self.document.is_open or quality is None:
            return None
        if self.form.quality_problem:
            self.tradeoff_panel.show_problem(self.form.quality_problem)
            return None
        k = self.form.k.value()
        job = self.window_.jobs.submit(
            f"Quality vs diversity of {k:,} records of {self.dataset} ({quality})",
            tradeoff_task,
            self.document.location,
            self.dataset,
            kind="select",
            dataset=self.dataset,
            k=k,
            quality=quality,
            vector_set=self.form.vector_set.currentData(),
            strengths=strengths,
            exclude=self.form.ticked(self.form.exclude),
            drop=self.form.ticked(self.form.drop),
        )
        job.setProperty("near_duplicates_kept", self.form.dedupe.isChecked())  # not asked of it
        self.tradeoff_job = job
        job.finished.connect(self._tradeoff_finished)
        self._tradeoff_ready()
        return job

    def _tradeoff_finished(self, job: Any) -> None:
        if job is not self.tradeoff_job:
            return
        self.tradeoff_job = None
        self._tradeoff_ready()
        if job.state == JobState.DONE:
            self.tradeoff = job.result.data["tradeoff"]
            self.tradeoff_panel.show_result(self.tradeoff, self._marked())
            if job.property("near_duplicates_kept"):
                status = self.tradeoff_panel.status
                status.setText(f"{status.text()}; near-duplicates not left out")
        elif job.state == JobState.CANCELLED:
            self.tradeoff_panel.status.setText("Stopped before it finished.")
        else:
            self.tradeoff_panel.status.setText("")
            self.tradeoff_panel.show_problem(
                f"Could not compare strengths: {describe_error(job.error)}"
                if job.error is not None
                else "Could not compare strengths."
            )

    def _marked(self) -> float | None:
        """The strength whose point the run selected in the table chose, if any."""
        run = self.selected_run()
        if self.tradeoff is None or run is None:
            return None
        return matching_strength(self.tradeoff, run)

    def _run_step(self, step: str) -> None:
        if self.window_ is not None:
            self.window_.run_action(step, self.dataset)

    # ------------------------------------------------------------------ a run's subset
    def save_subset(self) -> None:
        run = self.selected_run()
        if run is None or not run.subset:
            return
        dialog = QInputDialog(self)
        dialog.setObjectName("saveSubsetDialog")
        dialog.setWindowTitle("Save subset")
        dialog.setLabelText(f"Save subset '{run.subset}' (run #{run.run_id}) as:")
        make_plain(dialog)  # the label quotes the subset's name
        dialog.setTextValue(f"{run.subset}-saved")
        dialog.setOkButtonText("Save")
        dialog.accepted.connect(lambda: self.copy_subset(run.subset, dialog.textValue().strip()))
        dialog.finished.connect(dialog.deleteLater)
        dialog.open()

    def copy_subset(self, source: str, name: str) -> Any:
        if self.window_ is None or not name:
            return None
        return self.window_.jobs.submit(
            f"Save subset {name} of {self.dataset}",
            tasks.copy_subset,
            self.document.location,
            self.dataset,
            source,
            name,
            kind="subset",
            dataset=self.dataset,
            in_thread=True,
        )

    def export_subset(self) -> Any:
        run = self.selected_run()
        if run is None or self.window_ is None:
            return None
        return self.window_.files.export_data(dataset=self.dataset, subset=run.subset)

    def show_on_map(self) -> None:
        run = self.selected_run()
        if run is None or self.window_ is None or not run.subset:
            return
        view = self.window_.open_view("map", self.dataset)
        if view is not None and hasattr(view, "set_colour"):
            view.set_colour("subset", run.subset)


def _number(value: float | None) -> str:
    return "" if value is None else f"{value:,.2f}"


register_view(
    "selection",
    "Selection",
    lambda document, dataset, window: SelectionWorkbench(document, dataset, window),
    icon="select",
    description="Select a diverse subset under a budget; compare methods with random",
)
