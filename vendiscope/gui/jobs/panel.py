"""The jobs panel: each job with its progress, rate, time left, and a Cancel button.

When another project opens, the finished jobs of the one before leave the panel; a job of
it still running stays, its card naming its project.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from vendiscope.gui.jobs.manager import Job, JobManager, JobState
from vendiscope.gui.jobs.progress import format_amount, format_duration, format_rate
from vendiscope.gui.widgets.icons import icon
from vendiscope.gui.widgets.text import markup, plain_label, rich_label

STATE_TEXT = {
    JobState.QUEUED: "Waiting for the job before it",
    JobState.RUNNING: "Running",
    JobState.CANCELLING: "Cancelling…",
    JobState.DONE: "Done",
    JobState.FAILED: "Failed",
    JobState.CANCELLED: "Cancelled",
}


def describe_progress(job: Job) -> str:
    """``1,200 / 5,000 records · 310 records/s · 12 s left`` (what the row's label shows)."""
    if job.state in (JobState.QUEUED, JobState.CANCELLING):
        return STATE_TEXT[job.state]
    if job.state.finished:
        if job.state == JobState.DONE and job.result is not None:
            return getattr(job.result, "message", STATE_TEXT[job.state])
        if job.state == JobState.FAILED and job.error is not None:
            from vendiscope.gui.dialogs.error_dialog import describe_error

            return f"Failed: {describe_error(job.error)}"
        return STATE_TEXT[job.state]
    state = job.status
    parts = []
    if state.description:
        parts.append(state.description)
    if state.total:
        parts.append(
            f"{format_amount(state.completed, state.unit)} / "
            f"{format_amount(state.total, state.unit)}"
            + ("" if state.unit in ("it", "B") else f" {state.unit}")
        )
    elif state.completed:
        parts.append(format_amount(state.completed, state.unit))
    rate = format_rate(job.rate, state.unit)
    if rate:
        parts.append(rate)
    eta = job.eta
    if eta is not None:
        parts.append(f"{format_duration(eta)} left")
    return " · ".join(parts) or "Starting…"


LONGEST_INFO = 200
"""A failure's message is cut to this many characters on its card (Details… has it all)."""


class JobRow(QFrame):
    """One job: title, progress bar, details line, Cancel (or Details… after a failure)."""

    details_requested = Signal(object)

    def __init__(self, job: Job, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.job = job
        self.setObjectName("jobRow")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.title = rich_label(f"<b>{markup(job.title)}</b>")  # titles quote names
        self.title.setWordWrap(True)  # a long title wraps rather than widen the panel
        self.project = plain_label()
        self.project.setObjectName("hint")
        self.project.setWordWrap(True)
        self.project.hide()
        self.bar = QProgressBar()
        self.bar.setTextVisible(True)
        self.bar.setMaximumHeight(18)
        self.info = plain_label()
        self.info.setObjectName("hint")
        self.info.setWordWrap(True)
        self.info.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.cancel_button = QPushButton(icon("cancel"), "Cancel")
        self.cancel_button.setToolTip("Stop this job at its next safe point")
        self.cancel_button.clicked.connect(job.cancel)
        self.details_button = QPushButton("Details…")
        self.details_button.clicked.connect(lambda: self.details_requested.emit(self.job))
        self.details_button.hide()

        top = QHBoxLayout()
        top.addWidget(self.title, 1)
        top.addWidget(self.cancel_button)
        top.addWidget(self.details_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        layout.setSpacing(4)
        layout.addLayout(top)
        layout.addWidget(self.project)
        layout.addWidget(self.bar)
        layout.addWidget(self.info)
        job.changed.connect(self.refresh)
        self.refresh()

    def show_project(self, current: str | None) -> None:
        """Name the job's project on its card when it is not the ``current`` one."""
        other = self.job.project is not None and self.job.project != current
        name = Path(self.job.project).name if self.job.project else ""
        self.project.setText(f"In project {name}, not the one open now" if other else "")
        self.project.setToolTip(self.job.project or "")
        self.project.setVisible(other)

    def refresh(self) -> None:
        job = self.job
        fraction = job.status.fraction
        if job.state == JobState.DONE:
            self.bar.setRange(0, 100)
            self.bar.setValue(100)
        elif fraction is None and job.state in (JobState.RUNNING, JobState.CANCELLING):
            self.bar.setRange(0, 0)  # busy indicator
        else:
            self.bar.setRange(0, 1000)
            self.bar.setValue(round((fraction or 0.0) * 1000))
        self.bar.setFormat(f"{(fraction or 0) * 100:.0f}%" if fraction is not None else "")
        self.bar.setVisible(not job.state.finished)
        text = describe_progress(job)
        failed = job.state == JobState.FAILED and len(text) > LONGEST_INFO
        self.info.setText(text[: LONGEST_INFO - 1].rstrip() + "…" if failed else text)
        self.info.setToolTip(text if failed else "")  # the whole message: Details…
        self.cancel_button.setVisible(not job.state.finished)
        self.cancel_button.setEnabled(job.state not in (JobState.CANCELLING,))
        self.details_button.setVisible(job.state == JobState.FAILED)


class JobsPanel(QWidget):
    """Lists the jobs of this session, newest first."""

    details_requested = Signal(object)

    def __init__(self, manager: JobManager, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.manager = manager
        self.current: str | None = None  # the open project's location
        self.rows: dict[Job, JobRow] = {}
        self.empty = plain_label("No jobs yet. Imports, embeddings, gradients and scores run here.")
        self.empty.setObjectName("hint")
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.list = QVBoxLayout()
        self.list.setSpacing(6)
        self.list.addWidget(self.empty)
        self.list.addStretch(1)
        inner = QWidget()
        inner.setLayout(self.list)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(inner)
        self.clear_button = QPushButton("Clear finished")
        self.clear_button.clicked.connect(self.clear_finished)
        self.cancel_all_button = QPushButton(icon("cancel"), "Cancel all")
        self.cancel_all_button.clicked.connect(manager.cancel_all)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.clear_button)
        buttons.addWidget(self.cancel_all_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(scroll, 1)
        layout.addLayout(buttons)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Expanding)
        manager.job_added.connect(self.add_job)
        manager.job_finished.connect(lambda _job: self._update_buttons())
        self._update_buttons()

    def add_job(self, job: Job) -> None:
        row = JobRow(job)
        row.show_project(self.current)
        row.details_requested.connect(self.details_requested)
        self.rows[job] = row
        self.list.insertWidget(0, row)
        self.empty.hide()
        job.changed.connect(self._update_buttons)
        self._update_buttons()

    def clear_finished(self) -> None:
        self._remove(self.manager.clear_finished())

    def project_opened(self, location: str | None) -> None:
        """Another project is open: its finished jobs leave, running ones say whose they are."""
        self.current = location
        if location is not None:
            self._remove(self.manager.clear_finished(project=location))
        for row in self.rows.values():
            row.show_project(location)

    def _remove(self, jobs: list[Job]) -> None:
        for job in jobs:
            row = self.rows.pop(job, None)
            if row is not None:
                self.list.removeWidget(row)
                row.hide()  # at once: the deletion waits for the event loop
                row.deleteLater()
        self.empty.setVisible(not self.rows)
        self._update_buttons()

    def _update_buttons(self) -> None:
        self.clear_button.setEnabled(any(job.state.finished for job in self.manager.jobs))
        self.cancel_all_button.setEnabled(bool(self.manager.active()))
