"""The live view of a dataset's synthesis runs: the G-Vendi curve, the rounds, the outputs.

The job rewrites its run's ``result`` after every round (see
:mod:`vendiscope.core.synthesis.job`); while a run is running (or a job of this window is
about to start one) the monitor re-reads it on a timer and redraws what changed. Cancel
stops the window's job; Resume starts the same job again with the run's options (it goes
on after the last committed round); Open dataset shows the accepted examples.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from vendiscope.gui.jobs.run_monitor import RunMonitor
from vendiscope.gui.synthesis import data
from vendiscope.gui.synthesis.launch import JOB_KIND
from vendiscope.gui.synthesis.outputs import OutputsBrowser
from vendiscope.gui.widgets.icons import icon
from vendiscope.gui.widgets.tables import fill_table, read_only_table
from vendiscope.gui.widgets.text import plain_label, titled
from vendiscope.gui.windows.document import ProjectDocument
from vendiscope.gui.windows.tabs import register_view

if TYPE_CHECKING:
    from vendiscope.core.store.models import RunInfo
    from vendiscope.gui.services import WindowServices


class SynthesisMonitor(RunMonitor):
    """The synthesis runs of ``dataset`` (as pool or as their new dataset), one shown."""

    job_kind = JOB_KIND
    cancel_tip = "Stop the job after the request in progress"
    cancelling = "Cancelling after the request in progress…"
    resume_tip = (
        "Start the job again with the same settings: it goes on after the last finished round"
    )

    def __init__(
        self,
        document: ProjectDocument,
        dataset: str,
        window: WindowServices | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(document, dataset, window, parent)
        self.names: set[str] = set()  # the project's datasets, for Open dataset

        title = plain_label(f"Filling the gaps of “{dataset}”")
        title.setObjectName("pageTitle")
        self.status = plain_label()
        self.status.setObjectName("synthesisStatus")
        self.status.setWordWrap(True)
        self.totals = plain_label()
        self.totals.setObjectName("hint")
        self.totals.setWordWrap(True)
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

        self._make_chart("synthesisCurve", "The curve appears once the first round is done.")

        self.rounds = read_only_table("roundsTable", data.ROUND_COLUMNS)
        self.rounds.horizontalHeaderItem(1).setToolTip(
            "Outputs that could be read as examples and were not duplicates"
        )
        self.rounds.horizontalHeaderItem(5).setToolTip(
            "G-Vendi of the dataset with as many outputs as were accepted, taken without "
            "the filter (in the order they were written): the baseline"
        )
        self.rounds.horizontalHeader().setSectionResizeMode(
            len(data.ROUND_COLUMNS) - 1, QHeaderView.ResizeMode.Stretch
        )

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
        self._watch()

    # ------------------------------------------------------------------ runs
    def read_runs(self) -> list[RunInfo]:
        """The dataset's synthesis runs (and, for Open dataset, the project's datasets)."""
        runs = data.synthesis_runs(self.document.project, self.dataset)
        self.names = {d.name for d in self.document.datasets()}
        return runs

    def run_label(self, run: RunInfo) -> str:
        return data.run_label(run)

    def run_name(self, run: RunInfo) -> str:
        """The run's new dataset (a job named so resumes it)."""
        return data.run_names(run)[1]

    def waiting_text(self) -> str:
        return data.status_text(None)

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
        self._show_chart(data.curve_chart(result, run.status))
        self._fill_rounds(result)
        _, name, everything = data.run_names(run)
        location = self.document.location
        if location is not None:
            self.outputs.show_run(location, name, everything, result)
        self._update_buttons()

    def _fill_rounds(self, result: dict[str, Any]) -> None:
        rows = data.round_rows(result)
        fill_table(self.rounds, rows, text_columns={len(data.ROUND_COLUMNS) - 1})  # the reasons
        if rows:
            self.rounds.scrollToBottom()

    # ------------------------------------------------------------------ actions
    def _update_own_buttons(self, can_start: bool) -> None:
        target = data.run_names(self.run)[1] if self.run is not None else ""
        self.open_button.setEnabled(self.window_ is not None and target in self.names)

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


def _factory(
    document: ProjectDocument, dataset: str, window: WindowServices | None
) -> SynthesisMonitor:
    return SynthesisMonitor(document, dataset, window)


register_view(
    "synthesis",
    "Filled gaps",
    _factory,
    icon="clusters",
    description="Synthesis runs of a dataset: the G-Vendi curve, the rounds and the outputs",
)
