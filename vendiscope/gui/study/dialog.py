"""The settings of a study: the target, the plan of subsets, the seeds, the trainer, the cost.

:meth:`StudyDialog.options` returns the keyword arguments of
:class:`~vendiscope.core.studies.options.StudyOptions` (plain JSON) and
:meth:`StudyDialog.target` the held-out dataset, which
:func:`vendiscope.gui.jobs.tasks.study` takes. Estimate cost times the trainer in a child
process (the trainer imports torch, which the window's process never does), showing its
progress with a Cancel button, Start disabled meanwhile; a plan estimated at more than a day
starts only once confirmed. The pool's rows and sources are read on a worker thread.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QElapsedTimer, Qt, QTimer
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLineEdit,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from vendiscope.core.studies.options import DEFAULT_TARGET_ROWS, DEFAULT_TRAINER, StudyOptions
from vendiscope.gui.dialogs.error_dialog import describe_error
from vendiscope.gui.dialogs.job_dialog import JobDialog, spin_box
from vendiscope.gui.jobs.background import Loader
from vendiscope.gui.jobs.plugin_choices import plugin_choices
from vendiscope.gui.jobs.progress import format_duration
from vendiscope.gui.study import data
from vendiscope.gui.widgets.param_form import ParamForm, plain_help
from vendiscope.gui.widgets.plugin_forms import PluginForms
from vendiscope.gui.widgets.text import plain_label, plain_tip
from vendiscope.gui.windows.document import ProjectDocument

NO_TARGET = "(choose the held-out dataset)"


class StudyDialog(JobDialog):
    """Settings of a study of the pool ``dataset``; OK (Start) returns :meth:`options`."""

    def __init__(
        self,
        document: ProjectDocument,
        dataset: str,
        *,
        registry: Any = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(document, dataset, registry=registry, parent=parent)
        self.setWindowTitle(f"Study of {dataset}")
        self.estimate_job: Any = None
        self.estimate_shown = False  # an estimate (or why there is none) is shown
        self.too_long: dict[str, Any] | None = None  # the estimate's longer_than_a_day
        self.long_confirmed = False
        self.facts: data.PoolFacts | None = None
        info = document.dataset(dataset) if document.is_open else None
        self.rows = info.row_count if info is not None else 0

        columns = QHBoxLayout()
        left = QVBoxLayout()
        left.addWidget(self._plan_box())
        left.addWidget(self._selectors_box())
        left.addWidget(self._cost_box())
        left.addStretch(1)
        columns.addLayout(left, 1)
        columns.addWidget(self._trainer_box(), 1)
        self._lay_out(
            f"A study trains a small model on many subsets of “{dataset}” and scores each "
            "model on a held-out dataset, to see which diversity score predicts how much a "
            "subset helps. The datasets are not changed: the results stay with the study, "
            "and starting the same study again goes on where it stopped.",
            columns,
        )

        self.facts_loader = Loader(self)
        self.facts_loader.loaded.connect(self._facts_loaded)
        self.finished.connect(lambda _result: self._stop_estimate())
        self._trainer_changed()
        if self.location is not None:
            self.facts_loader.run(data.pool_facts, self.location, dataset)
        self.resize(1040, 660)

    # ------------------------------------------------------------------ layout
    def _plan_box(self) -> QGroupBox:
        box = QGroupBox("What to compare")
        self.target_choice = QComboBox()
        self.target_choice.setObjectName("targetChoice")
        self.target_choice.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.target_choice.setMinimumContentsLength(18)
        self.target_choice.addItem(NO_TARGET, None)
        names = [d.name for d in self.document.datasets()] if self.document.is_open else []
        for name in data.target_choices(names, self.dataset):
            self.target_choice.addItem(name, name)
        self.target_choice.setToolTip(
            "Each trained model is scored on this dataset: held-out rows of the task you care "
            "about. Pool rows that are also in it never enter a subset."
        )
        size = data.default_size(self.rows)
        self.subset_size = spin_box(1, max(1, self.rows), size)
        self.subset_size.setToolTip("Rows in every subset a model is trained on")
        self.random = spin_box(0, 10_000, StudyOptions.random)
        self.random.setToolTip("Subsets drawn at random from the pool: the study's backbone")
        self.duplicates = spin_box(0, 1_000, StudyOptions.duplicates)
        self.duplicates.setToolTip(
            "Controls made of few distinct rows, repeated: less diverse by construction, so "
            "a good diversity score ranks them low"
        )
        self.sources = spin_box(0, 1_000, StudyOptions.sources)
        self.sources.setToolTip(
            "Subsets drawn from only some of the pool's sources (needs at least two sources)"
        )
        self.seeds = spin_box(1, 100, StudyOptions.seeds)
        self.seeds.setToolTip(
            "Models trained per subset, each with its own seed: more seeds tell real "
            "differences from chance"
        )
        self.target_rows = spin_box(0, 10_000_000, DEFAULT_TARGET_ROWS)
        self.target_rows.setSpecialValueText("all")
        self.target_rows.setSingleStep(100)
        self.target_rows.setToolTip(
            "Each model is scored on the first this many rows of the target. Every training "
            "run scores all of them, so a large target makes every run slow; “all” (0) scores "
            "every row"
        )
        self.name = QLineEdit()
        self.name.setPlaceholderText("study-N (the next free number)")
        self.name.setToolTip(
            "The study's name; starting again with the same name and settings goes on with it"
        )
        self.force = QCheckBox("Go on even if seed noise is too large")
        self.force.setObjectName("forceStudy")
        self.force.setToolTip(
            "The study first trains a few subsets twice (the pilot). When another seed "
            "changes a result more than the subsets differ, the study stops there; this goes "
            "on anyway"
        )
        form = QFormLayout(box)
        form.addRow("Score on:", self.target_choice)
        form.addRow("Rows per subset:", self.subset_size)
        form.addRow("Random subsets:", self.random)
        form.addRow("Duplicate-heavy controls:", self.duplicates)
        form.addRow("Source-restricted subsets:", self.sources)
        form.addRow("Seeds per subset:", self.seeds)
        form.addRow("Target rows:", self.target_rows)
        form.addRow("Name:", self.name)
        form.addRow(self.force)
        self.target_choice.currentIndexChanged.connect(self._changed)
        for spin in (self.subset_size, self.random, self.duplicates, self.sources, self.seeds,
                     self.target_rows):  # fmt: skip
            spin.valueChanged.connect(self._changed)
        self.name.textChanged.connect(self._changed)
        self.force.toggled.connect(self.validate)
        self.sources.setEnabled(False)  # until the pool's sources are known
        return box

    def _selectors_box(self) -> QGroupBox:
        box = QGroupBox("Subsets picked by selectors (optional)")
        self.selectors: dict[str, QCheckBox] = {}
        grid = QGridLayout(box)
        self.selectors_hint = plain_label(
            "Each checked selector picks one subset from the pool's gradient features."
        )
        self.selectors_hint.setObjectName("hint")
        self.selectors_hint.setWordWrap(True)
        grid.addWidget(self.selectors_hint, 0, 0, 1, 2)
        for number, choice in enumerate(plugin_choices(self.registry, "selector")):
            check = QCheckBox(choice.title)
            check.setObjectName(f"selector-{choice.name}")
            check.setToolTip(plain_tip(plain_help(choice.description)))
            check.toggled.connect(self._changed)
            check.setEnabled(False)  # until the pool's gradient features are known
            self.selectors[choice.name] = check
            grid.addWidget(check, 1 + number // 2, number % 2)
        return box

    def _trainer_box(self) -> QGroupBox:
        box = QGroupBox("Trainer")
        self.trainers = PluginForms(self.registry, "trainer", DEFAULT_TRAINER, self)
        self.trainer = self.trainers.choice
        self.trainer.currentIndexChanged.connect(self._trainer_changed)
        self.trainers.changed.connect(self._changed)
        self.trainers.add_to(QVBoxLayout(box))
        return box

    def _cost_box(self) -> QGroupBox:
        box = QGroupBox("Cost")
        self.estimate_button = QPushButton("Estimate cost")
        self.estimate_button.setObjectName("estimateCost")
        self.estimate_button.setToolTip(
            "Make the plan and time the trainer on a few examples of the pool (its model is "
            "loaded: up to a minute on a CPU); nothing is trained or written"
        )
        self.estimate_button.clicked.connect(self.estimate)
        self.cancel_estimate = QPushButton("Cancel estimate")
        self.cancel_estimate.setObjectName("cancelEstimate")
        self.cancel_estimate.setToolTip("Stop estimating (nothing was written)")
        self.cancel_estimate.clicked.connect(self.stop_estimate)
        self.cancel_estimate.hide()
        self.estimate_bar = QProgressBar()
        self.estimate_bar.setObjectName("estimateProgress")
        self.estimate_bar.setRange(0, 0)  # busy: the steps have no count
        self.estimate_bar.setTextVisible(False)
        self.estimate_bar.setMaximumHeight(14)
        self.estimate_bar.hide()
        self.estimate_clock = QElapsedTimer()
        self.estimate_ticker = QTimer(self)
        self.estimate_ticker.setInterval(1000)
        self.estimate_ticker.timeout.connect(self._estimate_progress)
        self.estimate_result = plain_label(
            "Estimate cost tells how many training runs the study makes and how long they "
            "would take on this computer."
        )
        self.estimate_result.setObjectName("estimateResult")
        self.estimate_result.setWordWrap(True)
        self.estimate_result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        buttons = QVBoxLayout()
        buttons.addWidget(self.estimate_button)
        buttons.addWidget(self.cancel_estimate)
        buttons.addStretch(1)
        found = QVBoxLayout()
        found.addWidget(self.estimate_result)
        found.addWidget(self.estimate_bar)
        found.addStretch(1)
        layout = QHBoxLayout(box)
        layout.addLayout(buttons)
        layout.addLayout(found, 1)
        return box

    # ------------------------------------------------------------------ the pool
    def _facts_loaded(self, facts: data.PoolFacts) -> None:
        self.facts = facts
        self.rows = facts.rows
        self.subset_size.setMaximum(max(1, facts.rows))
        self.sources.setEnabled(facts.sources >= 2)
        if facts.sources < 2:
            self.sources.setValue(0)
            self.sources.setToolTip(
                "The pool's rows have no sources (or only one): import it with a source "
                "field to compare subsets drawn from some sources only"
            )
        for check in self.selectors.values():
            check.setEnabled(facts.gradients)
            if not facts.gradients:
                check.setChecked(False)
        if not facts.gradients:
            self.selectors_hint.setText(
                "Selectors pick from the pool's gradient features, which it does not have yet "
                "(Jobs > Compute gradient features…)."
            )
        self.validate()

    # ------------------------------------------------------------------ trainer
    def current_trainer(self) -> str | None:
        return self.trainers.current()

    def current_form(self) -> ParamForm | None:
        return self.trainers.current_form()

    def _trainer_changed(self) -> None:
        self.trainers.show_current()
        self._changed()

    # ------------------------------------------------------------------ estimate
    def estimate(self) -> None:
        """Make the plan and time the trainer, in a child process; show the plan and cost."""
        if self.estimate_job is not None or self.location is None:
            return
        problem = self.problem_text()
        if problem is not None:
            self._show_estimate(False, problem)
            return
        target = self.target()
        assert target is not None  # problem_text says when there is none
        self.estimate_result.setToolTip("")
        self.estimate_result.setPalette(self.palette())
        self.estimate_job = self._start_check(
            self.estimate_button,
            self._estimated,
            f"Estimating a study of {self.dataset}",
            data.estimate_job,
            self.location,
            self.dataset,
            target,
            self.options(),
        )
        self.estimate_job.changed.connect(self._estimate_progress)
        self.estimate_clock.start()
        self.estimate_ticker.start()
        self._show_estimating(True)
        self._estimate_progress()

    def _show_estimating(self, running: bool) -> None:
        self.estimate_bar.setVisible(running)
        self.cancel_estimate.setVisible(running)
        if not running:
            self.estimate_ticker.stop()
        self.validate()

    def _estimate_progress(self) -> None:
        """The estimate's current step and the time it has taken so far."""
        job = self.estimate_job
        if job is None:
            return
        step = job.status.description or "Starting"
        waited = format_duration(self.estimate_clock.elapsed() / 1000)
        self.estimate_result.setText(
            f"Estimating: {step.rstrip('.…')}… ({waited} so far; loading the trainer's model "
            "can take a few minutes on a CPU)"
        )

    def _estimated(self, job: Any) -> None:
        from vendiscope.gui.jobs.manager import JobState

        self.estimate_job = None
        self.estimate_button.setEnabled(True)
        self._show_estimating(False)
        if job.state == JobState.DONE:
            self.too_long = job.result.get("longer_than_a_day")
            self._show_estimate(not self.too_long, data.estimate_text(job.result), prefix="")
        elif job.state == JobState.FAILED and job.error is not None:
            self._show_estimate(False, describe_error(job.error))
        else:
            self.estimate_result.setText("")

    def _show_estimate(self, ok: bool, text: str, prefix: str = "Cannot estimate: ") -> None:
        self.estimate_shown = True
        self._show_outcome(self.estimate_result, ok, text if ok else f"{prefix}{text}", text)

    def stop_estimate(self) -> None:
        """Cancel a running estimate (its child process ends)."""
        if self.estimate_job is None:
            return
        self._stop_estimate()
        self.estimate_result.setText("Estimate cancelled.")
        self.estimate_result.setPalette(self.palette())

    def _stop_estimate(self) -> None:
        if self.estimate_job is not None:
            job, self.estimate_job = self.estimate_job, None
            job.changed.disconnect(self._estimate_progress)
            self._cancel_check(job, self._estimated, self.estimate_button)
            self._show_estimating(False)

    # ------------------------------------------------------------------ values
    def _changed(self) -> None:
        """A setting changed: an estimate shown is out of date."""
        running = self.estimate_job is not None
        self._stop_estimate()
        self.too_long, self.long_confirmed = None, False
        if self.estimate_shown or running:
            self.estimate_shown = False
            self.estimate_result.setText("The settings changed: Estimate cost again.")
            self.estimate_result.setPalette(self.palette())
        self.validate()

    def target(self) -> str | None:
        """The held-out dataset each model is scored on (None: not chosen yet)."""
        return self.target_choice.currentData()

    def problem_text(self) -> str | None:
        """What keeps the study from starting, in words (None: it can start)."""
        form = self.current_form()
        if not self.document.is_open:
            return "Open a project first."
        if self.target_choice.count() <= 1:
            return (
                "The project has no other dataset to score the models on: import held-out "
                "rows of your task as a dataset of their own first."
            )
        if self.target() is None:
            return "Choose the dataset to score on: held-out rows the models never train on."
        if self.current_trainer() is None or form is None:
            return "Choose a trainer that can be used."
        problem = form.problem()
        if problem is not None:
            return problem
        if self.subset_size.value() > self.rows:
            return f"Rows per subset: the pool has only {self.rows:,} rows."
        try:
            self.options()
        except ValueError as error:
            return str(error)
        return None

    def validate(self) -> None:
        self._show_problem(self.problem_text())
        estimating = self.estimate_job is not None
        self.estimate_button.setEnabled(not estimating and self.location is not None)
        if estimating:
            self.start_button.setEnabled(False)
            self.start_button.setToolTip("Wait for the estimate, or cancel it")
        else:
            self.start_button.setToolTip("")

    def accept(self) -> None:
        """Start, after asking when the estimate said the study takes more than a day."""
        if self.estimate_job is not None:
            return
        if self.too_long and not self.long_confirmed:
            box = QMessageBox(
                QMessageBox.Icon.Warning,
                "Start a study of more than a day?",
                data.long_study_question(self.too_long),
                QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                self,
            )
            box.setObjectName("longStudy")
            box.button(QMessageBox.StandardButton.Yes).setText("Start anyway")
            box.button(QMessageBox.StandardButton.No).setText("Change the plan")
            box.setDefaultButton(QMessageBox.StandardButton.No)
            if box.exec() != QMessageBox.StandardButton.Yes:
                return
            self.long_confirmed = True
        super().accept()

    def options(self) -> dict[str, Any]:
        """The study's options as :class:`StudyOptions` keywords (checked by it)."""
        form = self.current_form()
        options: dict[str, Any] = {
            "size": self.subset_size.value(),
            "random": self.random.value(),
            "selectors": [name for name, check in self.selectors.items() if check.isChecked()],
            "sources": self.sources.value() if self.sources.isEnabled() else 0,
            "duplicates": self.duplicates.value(),
            "seeds": self.seeds.value(),
            "trainer": self.current_trainer() or DEFAULT_TRAINER,
            "trainer_params": form.values() if form is not None else {},
            "target_rows": self.target_rows.value() or None,
            "force": self.force.isChecked(),
            "name": self.name.text().strip() or None,
        }
        StudyOptions(**options)  # raises ValueError naming a bad value
        return options
