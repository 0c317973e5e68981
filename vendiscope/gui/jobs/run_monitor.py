"""A tab that shows one of a dataset's runs of a job and follows the window's job of it.

:class:`RunMonitor` keeps the run chooser (the dataset's runs, oldest first), picks the run of
the job it follows once that run exists, and, while a run is running (or the followed job is
about to start one), re-reads it on a timer. A subclass lays out the tab, reads and names its
runs, shows one (:meth:`RunMonitor.show_run`) and enables its buttons.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QComboBox, QLabel, QPushButton, QStackedWidget, QWidget

from vendiscope.gui.widgets.icons import icon
from vendiscope.gui.widgets.text import plain_label, plain_tip

if TYPE_CHECKING:
    from vendiscope.core.store.models import RunInfo
    from vendiscope.gui.services import WindowServices
    from vendiscope.gui.windows.document import ProjectDocument

POLL_MS = 1000
"""How often a running run is re-read."""


class RunMonitor(QWidget):
    """The runs of ``job_kind`` of ``dataset``, one shown; follows a job of the window."""

    job_kind: ClassVar[str]
    """The kind of the window's jobs that make these runs (see :func:`launch.active_job`)."""
    no_runs: ClassVar[str] = "No runs yet"
    """The chooser's one item while there is no run."""
    cancel_tip: ClassVar[str]
    """What Cancel does (it stops the window's job)."""
    cancelling: ClassVar[str]
    """The status while the job stops."""
    resume_tip: ClassVar[str]
    """What Resume does (it starts the stopped run's job again)."""
    chooser_width: ClassVar[int] = 40
    """The chooser's width, in characters."""

    status: QLabel
    """The line on how the run stands (the subclass lays it out)."""
    new_button: QPushButton
    """Starts another run with new settings (the subclass makes it)."""

    HOOKS: ClassVar[tuple[str, ...]] = (
        "read_runs", "run_label", "run_name", "waiting_text", "show_run", "resume",
    )  # fmt: skip
    """What every subclass defines (Qt's metaclass rules out ``abc``; checked at class
    creation instead, so a monitor missing one fails on import, not when it is used)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        missing = [name for name in cls.HOOKS if getattr(cls, name) is getattr(RunMonitor, name)]
        if missing:
            raise TypeError(f"{cls.__name__} must define {', '.join(missing)}")

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
        self.job: Any = None
        self.wanted: str | None = None  # the name of the followed job's run, when named
        self.known: dict[int, str] = {}  # runs (and their status) before the job started
        self.runs: list[RunInfo] = []
        self.run: RunInfo | None = None
        self._shown: tuple[Any, ...] | None = None
        self.chooser = QComboBox()
        self.chooser.setObjectName("runChooser")
        self.chooser.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.chooser.setMinimumContentsLength(self.chooser_width)
        self.chooser.currentIndexChanged.connect(self._chosen)
        self.cancel_button = QPushButton(icon("cancel"), "Cancel")
        self.cancel_button.setToolTip(self.cancel_tip)
        self.cancel_button.clicked.connect(self.cancel)
        self.resume_button = QPushButton("Resume")
        self.resume_button.setToolTip(self.resume_tip)
        self.resume_button.clicked.connect(self.resume)
        self.timer = QTimer(self)
        self.timer.setInterval(POLL_MS)
        self.timer.timeout.connect(self.poll)

    def _watch(self) -> None:
        """Read the runs now (the tab is laid out) and again whenever the project changes."""
        self.document.changed.connect(self.reload)
        self.reload()

    def _make_chart(self, name: str, placeholder: str) -> QStackedWidget:
        """The chart (``self.chart``), and ``placeholder`` in its place until there is one."""
        from vendiscope.gui.view_host.chart_renderer import ChartRenderer  # pyqtgraph: when used

        self.chart = ChartRenderer()
        self.chart.setObjectName(name)
        self.chart_placeholder = plain_label(placeholder)
        self.chart_placeholder.setObjectName("hint")
        self.chart_placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.chart_pages = QStackedWidget()
        self.chart_pages.addWidget(self.chart_placeholder)
        self.chart_pages.addWidget(self.chart)
        self.chart_pages.setMinimumHeight(220)
        return self.chart_pages

    def _show_chart(self, chart: dict[str, Any] | None) -> None:
        """Draw ``chart`` (None: show the placeholder)."""
        if chart is None:
            self.chart_pages.setCurrentWidget(self.chart_placeholder)
        else:
            self.chart.set_chart(chart)
            self.chart_pages.setCurrentWidget(self.chart)

    # ------------------------------------------------------------------ the subclass's
    # (each of HOOKS is defined by every subclass: the bodies below are never reached)
    def read_runs(self) -> list[RunInfo]:
        """The dataset's runs, oldest first."""
        raise NotImplementedError

    def run_label(self, run: RunInfo) -> str:
        """How the chooser names ``run``."""
        raise NotImplementedError

    def run_name(self, run: RunInfo) -> str:
        """The name a job is started with to resume ``run``."""
        raise NotImplementedError

    def waiting_text(self) -> str:
        """The status while the followed job has not started its run yet."""
        raise NotImplementedError

    def show_run(self, run: RunInfo | None) -> None:
        """Show ``run`` (None: none yet); starts the timer while it runs."""
        raise NotImplementedError

    def resume(self) -> Any:
        """Start the shown run's job again with its own options (it goes on); the job."""
        raise NotImplementedError

    def _resumable(self, run: RunInfo) -> bool:
        """Whether Resume can go on with ``run``, a stopped one."""
        return True

    def _update_own_buttons(self, can_start: bool) -> None:
        """Enable the subclass's own buttons (``can_start``: the window can start a job)."""

    # ------------------------------------------------------------------ runs
    def follow(self, job: Any, name: str | None = None) -> None:
        """Show the run ``job`` starts (or resumes: the run named ``name``)."""
        self.job = job
        self.wanted = name
        self.known = {run.id: run.status for run in self.runs}
        job.changed.connect(self._job_changed)
        job.finished.connect(self._job_finished)  # a method: let go when the tab closes
        self.status.setText(self.waiting_text())
        self._update_buttons()
        self.timer.start()

    def reload(self) -> None:
        """Re-read the list of runs (and the one shown)."""
        if not self.document.is_open or self.document.dataset(self.dataset) is None:
            return
        runs = self.read_runs()
        self.runs = runs
        chosen = self._choice(runs)
        blocked = self.chooser.blockSignals(True)
        self.chooser.clear()
        for run in runs:
            label = self.run_label(run)
            self.chooser.addItem(label, run.id)
            tip = Qt.ItemDataRole.ToolTipRole
            self.chooser.setItemData(self.chooser.count() - 1, plain_tip(label), tip)
        if not runs:
            self.chooser.addItem(self.no_runs, None)
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
            return self.run_name(run) == self.wanted
        return self._new_since_followed(run)

    def _new_since_followed(self, run: RunInfo) -> bool:
        """Whether ``run`` is not one of those there were when the job was followed."""
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

    # ------------------------------------------------------------------ the job
    def live_job(self) -> Any:
        """The window's job of this kind and dataset still queued or running, if any."""
        if self.job is not None and not self.job.state.finished:
            return self.job
        if self.window_ is None:
            return None
        from vendiscope.gui.jobs.launch import active_job

        return active_job(self.window_, self.job_kind, self.dataset)

    def _update_buttons(self) -> None:
        """Cancel while the job is live; Resume for a stopped run and New when none is."""
        live = self.live_job()
        run = self.run
        self.cancel_button.setEnabled(live is not None and not live.cancel_token.cancelled)
        can_start = self.document.writable and self.window_ is not None and live is None
        stopped = run is not None and run.status in ("cancelled", "failed", "interrupted")
        resumable = run is not None and self._resumable(run)
        self.resume_button.setEnabled(can_start and stopped and resumable)
        self.new_button.setEnabled(can_start)
        self._update_own_buttons(can_start)

    def _job_changed(self) -> None:
        self._update_buttons()

    def _job_finished(self, job: Any) -> None:
        from vendiscope.gui.dialogs.error_dialog import describe_error
        from vendiscope.gui.jobs.manager import JobState

        if job is not self.job:
            return
        self.reload()  # the window re-reads the project too; this picks the job's run
        started = self.run is not None and self._made_by_job(self.run)
        if job is not None and job.state == JobState.FAILED:
            if started:
                self._run_failed(job)
            else:
                error = job.error
                why = describe_error(error) if error is not None else "the job failed"
                self.status.setText(f"Could not start: {why}")
        self._update_buttons()

    def _run_failed(self, job: Any) -> None:
        """The followed job failed after it started its run (which says how): by default,
        nothing more to show."""

    def cancel(self) -> None:
        live = self.live_job()
        if live is not None:
            live.cancel()
            self.status.setText(self.cancelling)
        self._update_buttons()
