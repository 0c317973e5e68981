"""The live view of a dataset's studies: progress, the verdict, the scatter, the tables.

The job rewrites its run's ``result`` after every training run (see
:mod:`vendiscope.core.studies.job`); while a run is running (or a job of this window is
about to start one) the monitor re-reads it on a timer and redraws what changed. Cancel
stops the window's job; Resume starts the same study again (it goes on with its next
training run); when the pilot stopped the study, Run anyway starts it again with ``force``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTableWidget,
    QVBoxLayout,
    QWidget,
)

from vendiscope.gui.jobs.run_monitor import RunMonitor
from vendiscope.gui.study import data
from vendiscope.gui.study.launch import JOB_KIND
from vendiscope.gui.widgets.icons import icon
from vendiscope.gui.widgets.style import error_palette
from vendiscope.gui.widgets.tables import fill_table, read_only_table
from vendiscope.gui.widgets.text import plain_label, titled
from vendiscope.gui.windows.document import ProjectDocument
from vendiscope.gui.windows.tabs import register_view

if TYPE_CHECKING:
    from vendiscope.core.store.models import RunInfo
    from vendiscope.gui.services import WindowServices

EVIDENCE_TITLE = "Which score predicts the outcome"


class StudyMonitor(RunMonitor):
    """The studies of ``dataset`` (as pool or as target), one shown."""

    job_kind = JOB_KIND
    no_runs = "No studies yet"
    cancel_tip = "Stop the study after the training run in progress"
    cancelling = "Cancelling after the training run in progress…"
    resume_tip = "Start the study again with the same settings: it goes on with its next run"
    chooser_width = 30

    def __init__(
        self,
        document: ProjectDocument,
        dataset: str,
        window: WindowServices | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(document, dataset, window, parent)

        title = plain_label(f"Studies of “{dataset}”")
        title.setObjectName("pageTitle")
        self.force_button = QPushButton(icon("run"), "Run anyway")
        self.force_button.setObjectName("runAnyway")
        self.force_button.setToolTip(
            "Go on with the study although seed noise may hide the subsets' differences "
            "(the pilot's runs are kept)"
        )
        self.force_button.clicked.connect(self.run_anyway)
        self.force_button.hide()
        self.new_button = QPushButton(icon("chart"), "Study…")
        self.new_button.setToolTip("Start another study with new settings")
        self.new_button.clicked.connect(self.new_study)
        self.new_button.setVisible(window is not None)

        run_row = QHBoxLayout()
        run_row.addWidget(plain_label("Study:"))
        run_row.addWidget(self.chooser, 1)
        for button in (self.cancel_button, self.resume_button, self.force_button,
                       self.new_button):  # fmt: skip
            run_row.addWidget(button)
        self.note = plain_label()
        self.note.setObjectName("hint")
        self.note.setWordWrap(True)
        self.bar = QProgressBar()
        self.bar.setObjectName("studyProgress")
        self.bar.setTextVisible(True)
        self.bar.setFormat("%v of %m runs")
        self.bar.setMaximumWidth(220)
        self.status = plain_label()
        self.status.setObjectName("studyStatus")
        self.status.setWordWrap(True)
        progress_row = QHBoxLayout()
        progress_row.addWidget(self.bar)
        progress_row.addWidget(self.status, 1)
        self.refusal = plain_label()
        self.refusal.setObjectName("studyRefusal")
        self.refusal.setWordWrap(True)
        error_palette(self.refusal)
        self.refusal.hide()
        self.verdict = plain_label()
        self.verdict.setObjectName("studyVerdict")
        self.verdict.setWordWrap(True)
        self.verdict.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        head = QVBoxLayout()
        head.setSpacing(4)
        head.addWidget(title)
        head.addLayout(run_row)
        head.addWidget(self.note)
        head.addLayout(progress_row)
        head.addWidget(self.refusal)
        head.addWidget(self.verdict)

        self.metric_choice = QComboBox()
        self.metric_choice.setObjectName("metricChoice")
        self.metric_choice.setToolTip("The diversity score along the chart's x axis")
        self.outcome_choice = QComboBox()
        self.outcome_choice.setObjectName("outcomeChoice")
        self.outcome_choice.setToolTip(
            "What each subset's models gained on the target over the untrained model "
            "(the mean over their seeds)"
        )
        self.metric_choice.currentIndexChanged.connect(self._view_changed)
        self.outcome_choice.currentIndexChanged.connect(self._view_changed)
        choose_row = QHBoxLayout()
        choose_row.addWidget(plain_label("Score:"))
        choose_row.addWidget(self.metric_choice, 1)
        choose_row.addWidget(plain_label("Outcome:"))
        choose_row.addWidget(self.outcome_choice, 1)
        self._make_chart("studyScatter", "The chart appears once the first training run is done.")
        self.chart.side.setMaximumWidth(180)  # a few kinds of subset: leave the plot room
        self.chart_placeholder.setWordWrap(True)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addLayout(choose_row)
        left_layout.addWidget(self.chart_pages, 1)

        self.subsets = _table("subsetsTable")
        self.evidence = _table("evidenceTable", list(data.EVIDENCE_COLUMNS))
        for column, tip in (
            (1, "Spearman's rank correlation of the score with the outcome over the subsets, "
                "and its 95% bootstrap interval"),
            (2, "How likely a correlation this strong is by chance alone"),
        ):  # fmt: skip
            self.evidence.horizontalHeaderItem(column).setToolTip(tip)
        self.evidence.setToolTip(
            "How well each score ranks the subsets by outcome: a rank correlation (1: "
            "perfectly, 0: not at all) with its 95% bootstrap interval and p-value"
        )
        tables = QSplitter(Qt.Orientation.Vertical)
        evidence = titled(EVIDENCE_TITLE, self.evidence)
        self.evidence_title = evidence.findChild(QLabel, "sectionTitle")
        tables.addWidget(evidence)
        tables.addWidget(titled("Subsets", self.subsets))
        tables.setSizes([150, 300])
        body = QSplitter(Qt.Orientation.Horizontal)
        body.addWidget(left)
        body.addWidget(tables)
        body.setStretchFactor(0, 1)
        body.setStretchFactor(1, 1)
        body.setSizes([560, 460])
        self.body = body
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 12, 16, 12)
        layout.setSpacing(8)
        layout.addLayout(head)
        layout.addWidget(body, 1)
        self._watch()

    # ------------------------------------------------------------------ runs
    def follow(self, job: Any, name: str | None = None) -> None:
        """Show the study ``job`` starts (or resumes: the study named ``name``)."""
        self.refusal.hide()
        super().follow(job, name)

    def read_runs(self) -> list[RunInfo]:
        return data.study_runs(self.document.project, self.dataset)

    def run_label(self, run: RunInfo) -> str:
        return data.run_label(run)

    def run_name(self, run: RunInfo) -> str:
        """The study's name (a job named so resumes it)."""
        return data.run_names(run)[2]

    def waiting_text(self) -> str:
        return data.status_text(None)

    def _new_since_followed(self, run: RunInfo) -> bool:
        """Whether ``run`` is new, or an unfinished study like it that runs again."""
        before = self.known.get(run.id)
        return before is None or (run.status == "running" and before != "running")

    def show_run(self, run: RunInfo | None) -> None:
        """Show ``run`` (None: no study yet); redraws only what changed."""
        self.run = run
        if run is not None and run.status == "running" and not self.timer.isActive():
            self.timer.start()
        shown = None if run is None else (run.id, run.status, run.result, run.error)
        if shown == self._shown:
            self._show_status()
            self._update_buttons()
            return
        self._shown = shown
        if run is None:
            self.note.setText("")
            self._show_status()
            self.refusal.hide()
            self.verdict.setText("")
            self._fill_choices({})
            self._draw()
            self._update_buttons()
            return
        index = self.chooser.findData(run.id)
        if index >= 0:
            self.chooser.setItemText(index, data.run_label(run))
        result = run.result or {}
        note = data.note_text(result, run.status)
        notes = data.notes_text(result)
        self.note.setText(f"{note}. {notes}" if note and notes else note or notes)
        self._show_status()
        refused = data.refused(run)
        self.refusal.setText(data.refusal_text(run) if refused else "")
        self.refusal.setVisible(refused)
        self._fill_choices(result)
        self._draw()
        self._update_buttons()

    def _show_status(self) -> None:
        run = self.run
        live = self.live_job()
        if run is None:
            self.bar.setRange(0, 1)
            self.bar.setValue(0)
            self.status.setText(
                data.status_text(None)
                if live is not None
                else "No study yet: Study… trains a small model on many subsets of this "
                "dataset and reads which diversity score predicts the outcome."
            )
            return
        done, total = data.progress_counts(run.result)
        self.bar.setRange(0, max(total or 0, 1))
        self.bar.setValue(min(done, total or 0))
        current = ""
        if live is not None and run.status == "running":
            current = live.status.description.strip()
        if not current and run.status == "running":
            last = data.last_run_text(run.result)
            current = f"the run after {last}" if last else ""
        self.status.setText(data.status_text(run, current))

    def _fill_choices(self, result: dict[str, Any]) -> None:
        """The metric and outcome choosers, keeping what was chosen when it is still there."""
        for combo, choices in ((self.metric_choice, data.metric_choices(result)),
                               (self.outcome_choice, data.outcome_choices(result))):  # fmt: skip
            chosen = combo.currentData()
            if [combo.itemData(i) for i in range(combo.count())] == [c for c, _ in choices]:
                continue
            blocked = combo.blockSignals(True)
            combo.clear()
            for value, label in choices:
                combo.addItem(label, value)
            combo.setCurrentIndex(max(combo.findData(chosen), 0))
            combo.blockSignals(blocked)
            combo.setEnabled(len(choices) > 1)

    def _view_changed(self) -> None:
        self._draw()

    def _draw(self) -> None:
        """The scatter, the verdict and the tables for the chosen metric and outcome."""
        result = (self.run.result if self.run is not None else None) or {}
        outcome = self.outcome_choice.currentData() or "improvement"
        self._show_chart(data.chart(result, self.metric_choice.currentData(), outcome))
        self.verdict.setText(data.verdict_text(result, outcome))
        columns, rows = data.subset_table(result, outcome)
        _fill(self.subsets, rows, columns, text_columns=2)
        _fill(self.evidence, data.evidence_table(result, outcome), text_columns=1)
        n = data.evidence_subsets(result, outcome)
        self.evidence_title.setText(
            f"{EVIDENCE_TITLE} (over {n:,} subsets)" if n else EVIDENCE_TITLE
        )

    # ------------------------------------------------------------------ actions
    def _resumable(self, run: RunInfo) -> bool:
        return not data.refused(run)  # Run anyway goes on with a study its pilot stopped

    def _update_own_buttons(self, can_start: bool) -> None:
        refused = data.refused(self.run)
        self.force_button.setVisible(refused)
        self.force_button.setEnabled(can_start and refused)

    def _job_changed(self) -> None:
        if self.run is not None and self.run.status == "running":
            self._show_status()
        self._update_buttons()

    def _run_failed(self, job: Any) -> None:
        if data.refused(self.run):
            job.setProperty("error_shown", True)  # the refusal is shown here, with Run anyway

    def resume(self) -> Any:
        """Start the shown study's job again with its own options (it goes on)."""
        return self._start_again(force=None)

    def run_anyway(self) -> Any:
        """Go on with a study its pilot stopped: the same options, with ``force``."""
        return self._start_again(force=True)

    def _start_again(self, force: bool | None) -> Any:
        from vendiscope.gui.study.launch import start

        if self.run is None or self.window_ is None or self.live_job() is not None:
            return None
        pool, target, _ = data.run_names(self.run)
        return start(self.window_, pool or self.dataset, target,
                     data.run_options(self.run, force=force))  # fmt: skip

    def new_study(self) -> None:
        from vendiscope.gui.study.launch import new_study

        if self.window_ is not None:
            new_study(self.window_, self.dataset)


def _table(name: str, columns: list[str] | None = None) -> QTableWidget:
    table = read_only_table(name, columns or [])
    table.horizontalHeader().setStretchLastSection(True)
    return table


def _fill(
    table: QTableWidget,
    rows: list[list[str]],
    columns: list[str] | None = None,
    *,
    text_columns: int = 1,
) -> None:
    """Rows of texts into ``table``; the first ``text_columns`` left-aligned, numbers right."""
    if (
        columns is not None
        and [
            table.horizontalHeaderItem(i).text() if table.horizontalHeaderItem(i) else ""
            for i in range(table.columnCount())
        ]
        != columns
    ):
        table.setColumnCount(len(columns))
        table.setHorizontalHeaderLabels(columns)
    fill_table(table, rows, range(text_columns))


def _factory(
    document: ProjectDocument, dataset: str, window: WindowServices | None
) -> StudyMonitor:
    return StudyMonitor(document, dataset, window)


register_view(
    "study",
    "Studies",
    _factory,
    icon="chart",
    description="Studies of a dataset: which diversity score predicts what training on a "
    "subset gains, the scatter, the subsets and the evidence",
)
