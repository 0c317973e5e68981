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
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from vendiscope.core.synthesis.options import FILTERS, SEED_CHOICES, SynthesisOptions
from vendiscope.gui.dialogs.error_dialog import describe_error
from vendiscope.gui.jobs.background import Loader
from vendiscope.gui.synthesis import data
from vendiscope.gui.widgets.param_form import ParamForm, plain_help
from vendiscope.gui.widgets.style import error_palette, monospace_font
from vendiscope.gui.widgets.text import plain_label, plain_tip
from vendiscope.gui.windows.document import ProjectDocument

DEFAULTS = SynthesisOptions()
CHOSEN_BY_JOB = "(chosen as the job would: a random sparse cluster)"


class SynthesisDialog(QDialog):
    """Settings of a synthesis job on ``dataset``; OK (Start) returns :meth:`options`."""

    def __init__(
        self,
        document: ProjectDocument,
        dataset: str,
        *,
        registry: Any = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        from vendiscope.core.plugins.registry import default_registry

        self.document = document
        self.dataset = dataset
        self.location = document.location
        self.registry = registry or default_registry()
        self.setWindowTitle(f"Fill the gaps of {dataset}")
        self.setMinimumWidth(980)
        self.check_job: Any = None
        self.needs = _missing_features(document, dataset)

        intro = plain_label(
            "A generator model writes new examples modelled on records of the dataset's "
            "sparse clusters (the kinds of data it has few of). Each is kept only if it "
            "adds diversity (raises G-Vendi); the kept ones become a new dataset, and every "
            "usable output also goes to a second dataset, to compare with no filter."
        )
        intro.setObjectName("hint")
        intro.setWordWrap(True)

        columns = QHBoxLayout()
        columns.addWidget(self._generator_box(), 1)
        right = QVBoxLayout()
        right.addWidget(self._settings_box())
        right.addWidget(self._preview_box(), 1)
        columns.addLayout(right, 1)

        self.problem = plain_label()
        self.problem.setObjectName("paramProblem")
        self.problem.setWordWrap(True)
        error_palette(self.problem)
        self.problem.hide()
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.start_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.start_button.setText("Start")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(columns, 1)
        layout.addWidget(self.problem)
        layout.addWidget(self.buttons)

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
        self.generator = QComboBox()
        self.generator.setObjectName("generatorChoice")
        for choice in data.generator_choices(self.registry):
            self.generator.addItem(choice.title, choice.name)
            self.generator.setItemData(
                self.generator.count() - 1,
                plain_tip(plain_help(choice.description)),
                Qt.ItemDataRole.ToolTipRole,
            )
        index = self.generator.findData(DEFAULTS.generator)
        self.generator.setCurrentIndex(max(index, 0))
        self.generator.currentIndexChanged.connect(self._generator_changed)
        self.generator_help = plain_label()
        self.generator_help.setObjectName("hint")
        self.generator_help.setWordWrap(True)
        self.forms: dict[str, ParamForm] = {}
        self.form_pages = QStackedWidget()
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(self.form_pages)
        self.test_button = QPushButton("Test connection")
        self.test_button.setToolTip(
            "Reach the generator once with these settings (a local model is loaded: up to a "
            "minute on a CPU)"
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
        layout.addWidget(self.generator)
        layout.addWidget(self.generator_help)
        layout.addWidget(scroll, 1)
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
        self.examples = _spin(1, 50, DEFAULTS.examples_per_prompt)
        self.examples.setToolTip("How many records of the dataset each prompt shows the generator")
        self.per_round = _spin(1, 10_000, DEFAULTS.prompts_per_round)
        self.per_round.setToolTip(
            "Prompts sent to the generator at a time; the curve grows after each round"
        )
        self.budget = _spin(1, 10_000_000, DEFAULTS.budget)
        self.budget.setToolTip("Stop once this many new examples have been accepted")
        self.rounds = _spin(0, 1_000_000, 0)
        self.rounds.setSpecialValueText("no limit")
        self.rounds.setToolTip("Stop after this many rounds even if the budget is not reached")
        self.name = QLineEdit()
        self.name.setPlaceholderText("synth-N (the next free number)")
        self.name.setToolTip(
            "The new dataset of accepted examples; every usable output also goes to "
            "NAME-all. Starting again with the same name and settings resumes the job."
        )
        self.seed = _spin(0, 2**31 - 1, DEFAULTS.seed)
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
        return self.generator.currentData()

    def current_form(self) -> ParamForm | None:
        name = self.current_generator()
        return self.forms.get(name) if name else None

    def _generator_changed(self) -> None:
        name = self.current_generator()
        self._stop_check()
        self.test_result.setText("")
        self.generator_help.setText(
            plain_help(self.generator.itemData(self.generator.currentIndex(),
                                               Qt.ItemDataRole.ToolTipRole) or "")
            if name else "No generator is installed: see Plugins > Installed plugins."
        )  # fmt: skip
        self.generator_help.setVisible(bool(self.generator_help.text()))
        if name is not None and name not in self.forms:
            try:
                specs = self.registry.describe("generator", name)
            except Exception as error:
                failed = plain_label(f"This generator cannot be used: {describe_error(error)}")
                failed.setWordWrap(True)
                error_palette(failed)
                self.form_pages.addWidget(failed)
                self.form_pages.setCurrentWidget(failed)
                self.forms.pop(name, None)
                self.validate()
                return
            form = ParamForm(specs, show_help=True)
            form.setObjectName(f"generatorForm-{name}")
            form.changed.connect(self.validate)
            form.changed.connect(lambda: self.test_result.setText(""))
            holder = QWidget()
            holder_layout = QVBoxLayout(holder)
            holder_layout.setContentsMargins(0, 4, 6, 0)
            holder_layout.addWidget(form)
            holder_layout.addStretch(1)
            self.forms[name] = form
            self.form_pages.addWidget(holder)
        form = self.current_form()
        if form is not None:
            self.form_pages.setCurrentWidget(form.parentWidget())
        self.test_button.setEnabled(form is not None)
        self.validate()

    def test_connection(self) -> None:
        """Reach the generator with the form's settings, in a child process."""
        from vendiscope.gui.jobs.manager import start_now

        name, form = self.current_generator(), self.current_form()
        if name is None or form is None or self.check_job is not None:
            return
        problem = form.problem()
        if problem:
            self._show_test(False, problem)
            return
        self.test_result.setText("Connecting…")
        self.test_button.setEnabled(False)
        self.check_job = start_now(
            f"Testing the {name} generator",
            data.check_generator_job,
            name,
            form.values(),
            in_process=True,
        )
        self.check_job.finished.connect(self._tested)

    def _tested(self, job: Any) -> None:
        from vendiscope.gui.jobs.manager import JobState

        self.check_job = None
        self.test_button.setEnabled(self.current_form() is not None)
        if job.state == JobState.DONE:
            self._show_test(True, str(job.result))
        elif job.state == JobState.FAILED and job.error is not None:
            self._show_test(False, describe_error(job.error))
        else:
            self.test_result.setText("")

    def _show_test(self, ok: bool, text: str) -> None:
        self.test_result.setText(f"Connected: {text}" if ok else f"Could not connect: {text}")
        self.test_result.setToolTip(plain_tip(text))
        if ok:
            self.test_result.setPalette(self.palette())
        else:
            error_palette(self.test_result)

    def _stop_check(self) -> None:
        if self.check_job is not None:
            job, self.check_job = self.check_job, None
            job.finished.disconnect(self._tested)
            job.cancel()
            self.test_button.setEnabled(True)

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
        self.problem.setText(problem or "")
        self.problem.setVisible(problem is not None)
        self.start_button.setEnabled(problem is None and self.location is not None)

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


def _spin(low: int, high: int, value: int) -> QSpinBox:
    spin = QSpinBox()
    spin.setRange(low, high)
    spin.setValue(value)
    spin.setGroupSeparatorShown(True)
    return spin
