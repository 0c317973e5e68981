"""The settings of a "Fill gaps…" job: generator, filter, seeds, budget, and a prompt preview.

:meth:`SynthesisDialog.options` returns the keyword arguments of
:class:`~vendiscope.core.synthesis.options.SynthesisOptions` (plain JSON), which
:func:`vendiscope.gui.jobs.tasks.synthesize` takes. Test connection reaches the generator in
a child process (a local model imports torch, which the window's process never does); the
preview reads the project on a worker thread.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from vendiscope.core.synthesis.options import FILTERS, SEED_CHOICES, SynthesisOptions
from vendiscope.gui.dialogs.error_dialog import describe_error
from vendiscope.gui.dialogs.job_dialog import JobDialog, spin_box
from vendiscope.gui.jobs.background import Loader
from vendiscope.gui.synthesis import data
from vendiscope.gui.widgets.param_form import ParamForm
from vendiscope.gui.widgets.plugin_forms import PluginForms
from vendiscope.gui.widgets.style import monospace_font
from vendiscope.gui.widgets.text import plain_label, plain_tip
from vendiscope.gui.windows.document import ProjectDocument

DEFAULTS = SynthesisOptions()
CHOSEN_BY_JOB = "(chosen as the job would: a random sparse cluster)"


class SynthesisDialog(JobDialog):
    """Settings of a synthesis job on ``dataset``; OK (Start) returns :meth:`options`."""

    def __init__(
        self,
        document: ProjectDocument,
        dataset: str,
        *,
        registry: Any = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(document, dataset, registry=registry, parent=parent)
        self.setWindowTitle(f"Fill the gaps of {dataset}")
        self.setMinimumWidth(980)
        self.check_job: Any = None
        self.needs = _missing_features(document, dataset)

        columns = QHBoxLayout()
        columns.addWidget(self._generator_box(), 1)
        right = QVBoxLayout()
        right.addWidget(self._settings_box())
        right.addWidget(self._preview_box(), 1)
        columns.addLayout(right, 1)
        self._lay_out(
            "A generator model writes new examples modelled on records of the dataset's "
            "sparse clusters (the kinds of data it has few of). Each is kept only if it "
            "adds diversity (raises G-Vendi); the kept ones become a new dataset, and every "
            "usable output also goes to a second dataset, to compare with no filter.",
            columns,
        )

        self.seed_loader = Loader(self)
        self.seed_loader.loaded.connect(self._seeds_loaded)
        self.preview_loader = Loader(self)
        self.preview_loader.loaded.connect(self._previewed)
        self.preview_loader.failed.connect(self._preview_failed)
        self.finished.connect(lambda _result: self._stop_check())
        self._generator_changed()
        if self.location is not None:
            self.seed_loader.run(data.seed_choices, self.location, dataset)
        self.resize(1000, 640)

    # ------------------------------------------------------------------ layout
    def _generator_box(self) -> QGroupBox:
        box = QGroupBox("Generator")
        self.generators = PluginForms(self.registry, "generator", DEFAULTS.generator, self)
        self.generator = self.generators.choice
        self.generator.currentIndexChanged.connect(self._generator_changed)
        self.generators.changed.connect(self.validate)
        self.generators.changed.connect(lambda: self.test_result.setText(""))
        self.test_button = QPushButton("Test connection")
        self.test_button.setToolTip(
            "Make one real example with these settings and the template: whether it parses, "
            "and how long the budget would take (a local model is loaded: up to a minute on "
            "a CPU)"
        )
        self.test_button.clicked.connect(self.test_connection)
        self.test_result = plain_label()
        self.test_result.setObjectName("testResult")
        self.test_result.setWordWrap(True)
        self.test_result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        test_row = QHBoxLayout()
        test_row.addWidget(self.test_button, 0, Qt.AlignmentFlag.AlignTop)
        test_row.addWidget(self.test_result, 1)
        layout = QVBoxLayout(box)
        self.generators.add_to(layout)
        layout.addLayout(test_row)
        return box

    def _settings_box(self) -> QGroupBox:
        box = QGroupBox("What to keep")
        self.filter = QComboBox()
        for name in FILTERS:
            self.filter.addItem(data.FILTER_TEXT.get(name, name), name)
            self.filter.setItemData(
                self.filter.count() - 1, data.FILTER_TIPS.get(name, ""), Qt.ItemDataRole.ToolTipRole
            )
        self.seeds = QComboBox()
        for name in SEED_CHOICES:
            self.seeds.addItem(data.SEED_TEXT.get(name, name), name)
            self.seeds.setItemData(
                self.seeds.count() - 1, data.SEED_TIPS.get(name, ""), Qt.ItemDataRole.ToolTipRole
            )
        self.examples = spin_box(1, 50, DEFAULTS.examples_per_prompt)
        self.examples.setToolTip("How many records of the dataset each prompt shows the generator")
        self.per_round = spin_box(1, 10_000, DEFAULTS.prompts_per_round)
        self.per_round.setToolTip(
            "Prompts sent to the generator at a time; the curve grows after each round"
        )
        self.budget = spin_box(1, 10_000_000, DEFAULTS.budget)
        self.budget.setToolTip("Stop once this many new examples have been accepted")
        self.rounds = spin_box(0, 1_000_000, 0)
        self.rounds.setSpecialValueText("no limit")
        self.rounds.setToolTip("Stop after this many rounds even if the budget is not reached")
        self.name = QLineEdit()
        self.name.setPlaceholderText("synth-N (the next free number)")
        self.name.setToolTip(
            "The new dataset of accepted examples; every usable output also goes to "
            "NAME-all. Starting again with the same name and settings resumes the job."
        )
        self.seed = spin_box(0, 2**31 - 1, DEFAULTS.seed)
        self.seed.setToolTip("The same seed chooses the same seed examples and clusters")
        form = QFormLayout(box)
        form.addRow("Keep:", self.filter)
        form.addRow("Seed examples:", self.seeds)
        form.addRow("Examples per prompt:", self.examples)
        form.addRow("Prompts per round:", self.per_round)
        form.addRow("Budget (accepted):", self.budget)
        form.addRow("Rounds:", self.rounds)
        form.addRow("New dataset:", self.name)
        form.addRow("Seed:", self.seed)
        for widget in (self.filter, self.seeds):
            widget.currentIndexChanged.connect(self.validate)
        for spin in (self.examples, self.per_round, self.budget, self.rounds, self.seed):
            spin.valueChanged.connect(self.validate)
        self.name.textChanged.connect(self.validate)
        return box

    def _preview_box(self) -> QGroupBox:
        box = QGroupBox("Prompt preview")
        self.seed_record = QComboBox()
        self.seed_record.setObjectName("seedRecord")
        self.seed_record.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.seed_record.setMinimumContentsLength(24)
        self.seed_record.addItem(CHOSEN_BY_JOB, None)
        self.seed_record.setToolTip(
            "A record whose sparse cluster gives the prompt's examples (one of each of the "
            "smallest clusters)"
        )
        self.preview_button = QPushButton("Preview")
        self.preview_button.setToolTip("Show the prompt the generator would receive")
        self.preview_button.clicked.connect(self.preview)
        self.preview_button.setEnabled(self.location is not None)
        row = QHBoxLayout()
        row.addWidget(self.seed_record, 1)
        row.addWidget(self.preview_button)
        self.preview_text = QPlainTextEdit()
        self.preview_text.setObjectName("promptPreview")
        self.preview_text.setReadOnly(True)
        self.preview_text.setFont(monospace_font())
        self.preview_text.setPlaceholderText(
            "Preview shows the prompt for one seed record: the instructions and the "
            "example records the generator is asked to follow."
        )
        layout = QVBoxLayout(box)
        layout.addLayout(row)
        layout.addWidget(self.preview_text, 1)
        return box

    # ------------------------------------------------------------------ generator
    def current_generator(self) -> str | None:
        return self.generators.current()

    def current_form(self) -> ParamForm | None:
        return self.generators.current_form()

    def _generator_changed(self) -> None:
        self._stop_check()
        self.test_result.setText("")
        if self.generators.show_current():
            self.test_button.setEnabled(self.current_form() is not None)
        self.validate()

    def test_connection(self) -> None:
        """Reach the generator with the form's settings, in a child process."""
        name, form = self.current_generator(), self.current_form()
        if name is None or form is None or self.check_job is not None:
            return
        problem = form.problem()
        if problem:
            self._show_test(False, problem)
            return
        self.test_result.setText("Connecting…")
        try:
            options: dict[str, Any] | None = self.options()
        except ValueError:
            options = None  # the settings are not valid yet: reach the generator only
        probing = () if options is None or self.location is None else (
            self.location, self.dataset, options
        )  # fmt: skip
        self.check_job = self._start_check(
            self.test_button,
            self._tested,
            f"Testing the {name} generator",
            data.check_generator_job,
            name,
            form.values(),
            *probing,
        )

    def _tested(self, job: Any) -> None:
        from vendiscope.gui.jobs.manager import JobState

        self.check_job = None
        self.test_button.setEnabled(self.current_form() is not None)
        if job.state == JobState.DONE and isinstance(job.result, dict):
            ok, text = bool(job.result.get("ok")), str(job.result.get("text"))
            self._show_outcome(self.test_result, ok, f"Connected: {text}", text)
        elif job.state == JobState.DONE:
            self._show_test(True, str(job.result))
        elif job.state == JobState.FAILED and job.error is not None:
            self._show_test(False, describe_error(job.error))
        else:
            self.test_result.setText("")

    def _show_test(self, ok: bool, text: str) -> None:
        shown = f"Connected: {text}" if ok else f"Could not connect: {text}"
        self._show_outcome(self.test_result, ok, shown, text)

    def _stop_check(self) -> None:
        if self.check_job is not None:
            job, self.check_job = self.check_job, None
            self._cancel_check(job, self._tested, self.test_button)

    # ------------------------------------------------------------------ preview
    def _seeds_loaded(self, choices: list[data.SeedChoice]) -> None:
        for choice in choices:
            text = f"#{choice.position}: {choice.text}"
            self.seed_record.addItem(text, choice.position)
            self.seed_record.setItemData(
                self.seed_record.count() - 1, plain_tip(text), Qt.ItemDataRole.ToolTipRole
            )
        if choices:
            self.seed_record.setCurrentIndex(1)

    def preview(self) -> None:
        """Show the chat messages of one prompt for the chosen seed record."""
        if self.location is None:
            return
        try:
            options = self.options()
        except ValueError as error:
            self.preview_text.setPlainText(f"Cannot preview: {error}")
            return
        self.preview_text.setPlainText("Reading the seed examples…")
        position = self.seed_record.currentData()
        self.preview_loader.run(data.preview, self.location, self.dataset, options, position)

    def _previewed(self, messages: list[dict[str, str]]) -> None:
        self.preview_text.setPlainText(data.messages_text(messages))

    def _preview_failed(self, error: BaseException, _details: str) -> None:
        self.preview_text.setPlainText(f"Cannot preview: {describe_error(error)}")

    # ------------------------------------------------------------------ values
    def validate(self) -> None:
        problem = None
        form = self.current_form()
        if self.needs:
            problem = self.needs
        elif self.current_generator() is None or form is None:
            problem = "Choose a generator that can be used."
        else:
            problem = form.problem()
        if problem is None:
            try:
                self.options()
            except ValueError as error:
                problem = str(error)
        self._show_problem(problem)

    def options(self) -> dict[str, Any]:
        """The job's options as :class:`SynthesisOptions` keywords (checked by it)."""
        form = self.current_form()
        options: dict[str, Any] = {
            "generator": self.current_generator() or DEFAULTS.generator,
            "generator_params": form.values() if form is not None else {},
            "budget": self.budget.value(),
            "rounds": self.rounds.value() or None,
            "filter": self.filter.currentData(),
            "seeds": self.seeds.currentData(),
            "examples_per_prompt": self.examples.value(),
            "prompts_per_round": self.per_round.value(),
            "name": self.name.text().strip() or None,
            "seed": self.seed.value(),
        }
        SynthesisOptions(**options)  # raises ValueError naming a bad value
        return options


def _missing_features(document: ProjectDocument, dataset: str) -> str | None:
    """What the dataset lacks for a job (None: it has complete gradient features)."""
    from vendiscope.core.store import vectors

    if not document.is_open:
        return "Open a project first."
    sets = vectors.list_sets(document.project, dataset)
    if any(s.kind == "gradient" and s.status == "complete" for s in sets):
        return None
    return (
        f"“{dataset}” needs gradient features first: new examples are judged by where their "
        "gradients land (Jobs > Compute gradient features…)."
    )
