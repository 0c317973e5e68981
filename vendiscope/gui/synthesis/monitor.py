"""The live view of a dataset's synthesis runs: the G-Vendi curve, the rounds, the outputs.

The job rewrites its run's ``result`` after every round (see
:mod:`vendiscope.core.synthesis.job`); while a run is running (or a job of this window is
about to start one) the monitor re-reads it on a timer and redraws what changed. Cancel
stops the window's job; Resume starts the same job again with the run's options (it goes
on after the last committed round); Open dataset shows the accepted examples.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from vendiscope.gui.synthesis import data
from vendiscope.gui.synthesis.outputs import OutputsBrowser
from vendiscope.gui.widgets.icons import icon
from vendiscope.gui.widgets.text import plain_label, plain_tip, titled
from vendiscope.gui.windows.document import ProjectDocument
from vendiscope.gui.windows.tabs import register_view

if TYPE_CHECKING:
    from vendiscope.core.store.models import RunInfo

POLL_MS = 1000
"""How often a running run is re-read."""


class SynthesisMonitor(QWidget):
    """The synthesis runs of ``dataset`` (as pool or as their new dataset), one shown."""

    def __init__(
        self,
        document: ProjectDocument,
        dataset: str,
        window: Any = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        from vendiscope.gui.views.chart_renderer import ChartRenderer  # pyqtgraph: when used

        self.document = document
        self.dataset = dataset
        self.window_ = window
        self.job: Any = None
        self.wanted: str | None = None  # the new dataset of the followed job, when named
        self.known: set[int] = set()  # runs that existed before the followed job started
        self.runs: list[RunInfo] = []
        self.run: RunInfo | None = None
        self._shown: tuple[Any, ...] | None = None
        self.names: set[str] = set()  # the project's datasets, for Open dataset

        title = plain_label(f"Filling the gaps of “{dataset}”")
        title.setObjectName("pageTitle")
        self.chooser = QComboBox()
        self.chooser.setObjectName("runChooser")
        self.chooser.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.chooser.setMinimumContentsLength(40)
        self.chooser.currentIndexChanged.connect(self._chosen)
        self.status = plain_label()
        self.status.setObjectName("synthesisStatus")
        self.status.setWordWrap(True)
        self.totals = plain_label()
        self.totals.setObjectName("hint")
        self.totals.setWordWrap(True)
        self.cancel_button = QPushButton(icon("cancel"), "Cancel")
        self.cancel_button.setToolTip("Stop the job after the request in progress")
        self.cancel_button.clicked.connect(self.cancel)
        self.resume_button = QPushButton("Resume")
        self.resume_button.setToolTip(
            "Start the job again with the same settings: it goes on after the last finished round"
        )
        self.resume_button.clicked.connect(self.resume)
        self.open_button = QPushButton(icon("records"), "Open dataset")
        self.open_button.setToolTip("Browse the accepted examples as a dataset")
        self.open_button.clicked.connect(self.open_dataset)
        self.new_button = QPushButton(icon("clusters"), "Fill gaps…")
        self.new_button.setToolTip("Start another run with new settings")
        self.new_button.clicked.connect(self.new_run)
        self.new_button.setVisible(window is not None)

        run_row = QHBoxLayout()
        run_row.addWidget(plain_label("Run:"))
        run_row.addWidget(self.chooser, 1)
        for button in (self.cancel_button, self.resume_button, self.open_button, self.new_button):
            run_row.addWidget(button)
        head = QVBoxLayout()
        head.setSpacing(4)
        head.addWidget(title)
        head.addLayout(run_row)
        head.addWidget(self.status)
        head.addWidget(self.totals)

        self.chart = ChartRenderer()
        self.chart.setObjectName("synthesisCurve")
        self.chart_placeholder = plain_label("The curve appears once the first round is done.")
        self.chart_placeholder.setObjectName("hint")
        self.chart_placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.chart_pages = QStackedWidget()
        self.chart_pages.addWidget(self.chart_placeholder)
        self.chart_pages.addWidget(self.chart)
        self.chart_pages.setMinimumHeight(220)

        self.rounds = QTableWidget(0, len(data.ROUND_COLUMNS))
        self.rounds.setObjectName("roundsTable")
        self.rounds.setHorizontalHeaderLabels(list(data.ROUND_COLUMNS))
        self.rounds.horizontalHeaderItem(1).setToolTip(
            "Outputs that could be read as examples and were not duplicates"
        )
        self.rounds.horizontalHeaderItem(5).setToolTip(
            "G-Vendi of the dataset with as many outputs as were accepted, taken without "
            "the filter (in the order they were written): the baseline"
        )
        self.rounds.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.rounds.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.rounds.verticalHeader().hide()
        self.rounds.setAlternatingRowColors(True)
        self.rounds.setWordWrap(False)
        self.rounds.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 10)
        header = self.rounds.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(len(data.ROUND_COLUMNS) - 1, QHeaderView.ResizeMode.Stretch)
        header.setMinimumSectionSize(40)

        self.outputs = OutputsBrowser(document.location)
        top = QSplitter(Qt.Orientation.Horizontal)
        top.addWidget(self.chart_pages)  # the chart's title heads it
        top.addWidget(titled("Rounds", self.rounds))
        top.setSizes([500, 500])
        body = QSplitter(Qt.Orientation.Vertical)
        body.addWidget(top)
        body.addWidget(titled("Outputs", self.outputs))
        body.setSizes([300, 240])
        self.body = body
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 12, 16, 12)
        layout.setSpacing(8)
        layout.addLayout(head)
        layout.addWidget(body, 1)

        self.timer = QTimer(self)
        self.timer.setInterval(POLL_MS)
        self.timer.timeout.connect(self.poll)
        document.changed.connect(self.reload)
        self.reload()

    # ------------------------------------------------------------------ runs
    def follow(self, job: Any, name: str | None = None) -> None:
        """Show the run ``job`` starts (or resumes: the run of the new dataset ``name``)."""
        self.job = job
        self.wanted = name
        self.known = {run.id for run in self.runs}
        job.changed.connect(self._update_buttons)
        job.finished.connect(self._job_finished)  # a method: let go when the tab closes
        self.status.setText(data.status_text(None))
        self._update_buttons()
        self.timer.start()

    def reload(self) -> None:
        """Re-read the list of runs (and the one shown)."""
        if not self.document.is_open or self.document.dataset(self.dataset) is None:
            return
        runs = data.synthesis_runs(self.document.project, self.dataset)
        self.runs = runs
        self.names = {d.name for d in self.document.datasets()}
        chosen = self._choice(runs)
        blocked = self.chooser.blockSignals(True)
        self.chooser.clear()
        for run in runs:
            label = data.run_label(run)
            self.chooser.addItem(label, run.id)
            tip = Qt.ItemDataRole.ToolTipRole
            self.chooser.setItemData(self.chooser.count() - 1, plain_tip(label), tip)
        if not runs:
            self.chooser.addItem("No runs yet", None)
        index = self.chooser.findData(chosen.id) if chosen is not None else 0
        self.chooser.setCurrentIndex(max(index, 0))
        self.chooser.blockSignals(blocked)
        self.chooser.setEnabled(bool(runs))
        self.show_run(chosen)

    def _choice(self, runs: list[RunInfo]) -> RunInfo | None:
        """The followed job's run once it exists, else the one shown, else the newest."""
        if self.job is not None:
            for run in reversed(runs):
                if self._made_by_job(run):
                    return run
            if not self.job.state.finished:
                return None
        if self.run is not None:
            found = next((r for r in runs if r.id == self.run.id), None)
            if found is not None:
                return found
        return runs[-1] if runs else None

    def _made_by_job(self, run: RunInfo) -> bool:
        """Whether the followed job made ``run`` (or resumes it: the run of its name)."""
        if self.wanted:
            return data.run_names(run)[1] == self.wanted
        return run.id not in self.known

    def _chosen(self) -> None:
        run_id = self.chooser.currentData()
        self.show_run(next((r for r in self.runs if r.id == run_id), None))

    def poll(self) -> None:
        """Re-read the shown run (or look for the followed job's); stop once nothing moves."""
        if not self.document.is_open:
            self.timer.stop()
            return
        if self.run is None or (self.job is not None and self._choice(self.runs) is None):
            self.reload()
        elif self.run is not None:
            self.show_run(self.document.project.run(self.run.id))
        running = self.run is not None and self.run.status == "running"
        if not running and self.live_job() is None:
            self.timer.stop()

    def show_run(self, run: RunInfo | None) -> None:
        """Show ``run`` (None: no run yet); redraws only what changed."""
        self.run = run
        if run is not None and run.status == "running" and not self.timer.isActive():
            self.timer.start()
        shown = None if run is None else (run.id, run.status, run.result)
        if shown == self._shown:
            self._update_buttons()
            return
        self._shown = shown
        self.names = {d.name for d in self.document.datasets()}  # the new one appears in round 1
        if run is None:
            waiting = self.live_job() is not None
            self.status.setText(
                data.status_text(None)
                if waiting
                else "No gaps filled yet: Fill gaps… starts a run on the sparse clusters."
            )
            self.totals.setText("")
            self.chart_pages.setCurrentWidget(self.chart_placeholder)
            self.rounds.setRowCount(0)
            self.outputs.clear()
            self._update_buttons()
            return
        index = self.chooser.findData(run.id)
        if index >= 0:
            self.chooser.setItemText(index, data.run_label(run))
        result = run.result or {}
        self.status.setText(data.status_text(run))
        self.totals.setText(data.totals_text(result))
        chart = data.curve_chart(result, run.status)
        if chart is None:
            self.chart_pages.setCurrentWidget(self.chart_placeholder)
        else:
            self.chart.set_chart(chart)
            self.chart_pages.setCurrentWidget(self.chart)
        self._fill_rounds(result)
        _, name, everything = data.run_names(run)
        location = self.document.location
        if location is not None:
            self.outputs.show_run(location, name, everything, result)
        self._update_buttons()

    def _fill_rounds(self, result: dict[str, Any]) -> None:
        rows = data.round_rows(result)
        self.rounds.setRowCount(len(rows))
        for row, cells in enumerate(rows):
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if column < len(cells) - 1:
                    item.setTextAlignment(
                        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                    )
                else:
                    item.setToolTip(plain_tip(text))
                self.rounds.setItem(row, column, item)
        if rows:
            self.rounds.scrollToBottom()

    # ------------------------------------------------------------------ actions
    def live_job(self) -> Any:
        """The window's synthesis job of this dataset still queued or running, if any."""
        if self.job is not None and not self.job.state.finished:
            return self.job
        if self.window_ is None:
            return None
        from vendiscope.gui.synthesis.launch import active_job

        return active_job(self.window_, self.dataset)

    def _update_buttons(self) -> None:
        live = self.live_job()
        run = self.run
        self.cancel_button.setEnabled(live is not None and not live.cancel_token.cancelled)
        writable = self.document.writable and self.window_ is not None
        stopped = run is not None and run.status in ("cancelled", "failed", "interrupted")
        self.resume_button.setEnabled(writable and live is None and stopped)
        target = data.run_names(run)[1] if run is not None else ""
        self.open_button.setEnabled(self.window_ is not None and target in self.names)
        self.new_button.setEnabled(writable and live is None)

    def _job_finished(self, job: Any) -> None:
        from vendiscope.gui.dialogs.error_dialog import describe_error
        from vendiscope.gui.jobs.manager import JobState

        if job is not self.job:
            return
        self.reload()  # the window re-reads the project too; this picks the job's run
        started = self.run is not None and self._made_by_job(self.run)
        if job is not None and job.state == JobState.FAILED and not started:
            error = job.error
            why = describe_error(error) if error is not None else "the job failed"
            self.status.setText(f"Could not start: {why}")
        self._update_buttons()

    def cancel(self) -> None:
        live = self.live_job()
        if live is not None:
            live.cancel()
            self.status.setText("Cancelling after the request in progress…")
        self._update_buttons()

    def resume(self) -> Any:
        """Start the shown run's job again with its own options (it resumes)."""
        from vendiscope.gui.synthesis.launch import start

        if self.run is None or self.window_ is None or self.live_job() is not None:
            return None
        pool, _, _ = data.run_names(self.run)
        return start(self.window_, pool or self.dataset, data.run_options(self.run))

    def open_dataset(self) -> None:
        if self.run is None or self.window_ is None:
            return
        _, name, _ = data.run_names(self.run)
        if name:
            self.window_.open_view("records", name)

    def new_run(self) -> None:
        from vendiscope.gui.synthesis.launch import fill_gaps

        if self.window_ is not None:
            fill_gaps(self.window_, self.dataset)


def _factory(document: ProjectDocument, dataset: str, window: Any) -> SynthesisMonitor:
    return SynthesisMonitor(document, dataset, window)


register_view(
    "synthesis",
    "Filled gaps",
    _factory,
    icon="clusters",
    description="Synthesis runs of a dataset: the G-Vendi curve, the rounds and the outputs",
)
