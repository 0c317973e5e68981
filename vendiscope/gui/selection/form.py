"""The left side of the selection workbench: what to select, and how.

One or more selector plugins (each becomes a job), the budget k, the vector set, quality
weights (a score set, a numeric record field or a signal's number column), what to leave out
(subsets, records a signal flags, near-duplicates; the candidates left are counted), the
subset's name, and each ticked method's own parameters in a form built from its ParamSpec.
:meth:`SelectionForm.options` turns it all into the keyword arguments of one
:func:`vendiscope.gui.jobs.tasks.select` job per method.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from vendiscope.core.base.errors import VendiscopeError
from vendiscope.core.neighbors.options import NearDuplicateOptions
from vendiscope.core.plugin_host.params import ParamError
from vendiscope.core.selection.choices import BUDGET_RULE, default_budget
from vendiscope.core.selection.options import DEFAULT_METHOD
from vendiscope.gui.selection.data import KIND_TITLES, WorkbenchState, candidate_count
from vendiscope.gui.widgets.icons import icon
from vendiscope.gui.widgets.param_form import ParamForm
from vendiscope.gui.widgets.style import error_palette
from vendiscope.gui.widgets.text import plain_label, plain_tip

NO_QUALITY = "(none: every record weighs the same)"
TICK_ROWS = 6
"""Rows of the subset and flag lists in view (more scroll)."""


class SelectionForm(QWidget):
    """The selection to run; emits ``run_requested`` (Run selection, Ctrl+Enter)."""

    run_requested = Signal()
    step_requested = Signal(str)  # a pipeline step the dataset needs first (embed)
    quality_changed = Signal(object)  # the quality column chosen (None: none)

    def __init__(self, dataset: str, registry: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.dataset = dataset
        self.registry = registry
        self.state: WorkbenchState | None = None
        self.forms: dict[str, ParamForm] = {}
        self.quality_problem: str | None = None
        """Why the core refuses the chosen quality column (its own words), once checked."""
        self._build()

    def _build(self) -> None:
        title = plain_label(f"Select from “{self.dataset}”")
        title.setObjectName("pageTitle")
        intro = plain_label(
            "Choose the k most diverse records under a budget. Each method runs as a job and "
            "saves its subset; its curve shows the diversity of every prefix against random."
        )
        intro.setObjectName("hint")
        intro.setWordWrap(True)
        self.methods = QListWidget()
        self.methods.setObjectName("selectionMethods")
        self.methods.setToolTip("Tick one or more selectors: each runs as its own job")
        for contribution in self.registry.contributions("selector"):
            item = QListWidgetItem(contribution.title or contribution.name)
            item.setData(Qt.ItemDataRole.UserRole, contribution.name)
            tip = f"{contribution.name}: {contribution.description}".strip(": ")
            item.setToolTip(plain_tip(tip))
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            checked = contribution.name == DEFAULT_METHOD
            item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
            self.methods.addItem(item)
        self.methods.setMaximumHeight(self.methods.sizeHintForRow(0) * 7 + 8)
        self.methods.itemChanged.connect(lambda _i: self._methods_changed())

        self.k = QSpinBox()
        self.k.setObjectName("budget")
        self.k.setRange(1, 1)
        self.k.setGroupSeparatorShown(True)
        self.k.setToolTip(f"The budget: how many records to choose. {BUDGET_RULE}.")
        self.k_share = plain_label()
        self.k_share.setObjectName("hint")
        self.k.valueChanged.connect(self._show_share)
        budget_row = QHBoxLayout()
        budget_row.addWidget(self.k, 1)
        budget_row.addWidget(self.k_share)
        self.vector_set = QComboBox()
        self.vector_set.setToolTip(
            "The features to select on: gradients optimise G-Vendi (the paper's measure), "
            "embeddings optimise embedding-Vendi"
        )
        self.quality = QComboBox()
        self.quality.setEditable(True)
        self.quality.setToolTip(
            "Optional per-record weights: a per-record score set, a curation signal's number "
            "(e.g. language-confidence) or a numeric field of the records (a dotted path such "
            "as meta.rating); higher weight, more likely chosen"
        )
        self.quality.currentIndexChanged.connect(self._quality_chosen)
        self.exclude = QListWidget()
        self.exclude.setObjectName("excludeSubsets")
        self.exclude.setToolTip("Records of the ticked subsets are not candidates")
        self.exclude.itemChanged.connect(lambda _i: self._show_candidates())
        self.drop = QListWidget()
        self.drop.setObjectName("dropFlags")
        self.drop.setToolTip(
            "Records a ticked curation signal flags are not candidates (the number is how "
            "many records it flags)"
        )
        self.drop.itemChanged.connect(lambda _i: self._show_candidates())
        self.candidates = plain_label()
        self.candidates.setObjectName("hint")
        self.candidates.setWordWrap(True)
        self.dedupe = QCheckBox("Leave out near-duplicates at cosine ≥")
        self.dedupe_threshold = QDoubleSpinBox()
        self.dedupe_threshold.setRange(0.5, 1.0)
        self.dedupe_threshold.setDecimals(3)
        self.dedupe_threshold.setSingleStep(0.01)
        self.dedupe_threshold.setValue(NearDuplicateOptions.threshold)
        self.dedupe_threshold.setEnabled(False)
        self.dedupe.toggled.connect(self.dedupe_threshold.setEnabled)
        self.dedupe.toggled.connect(lambda _on: self._show_candidates())
        dedupe_row = QHBoxLayout()
        dedupe_row.addWidget(self.dedupe)
        dedupe_row.addWidget(self.dedupe_threshold)
        dedupe_row.addStretch(1)
        self.subset_name = QLineEdit()
        self.subset_name.setPlaceholderText("automatic: METHOD-k")
        form = QFormLayout()
        form.addRow("Budget k:", budget_row)
        form.addRow("Vector set:", self.vector_set)
        form.addRow("Quality:", self.quality)
        form.addRow("Subset name:", self.subset_name)
        leave_out = QFormLayout()
        leave_out.addRow("Subsets:", self.exclude)
        leave_out.addRow("Flagged:", self.drop)
        leave_out.addRow(dedupe_row)
        leave_out.addRow(self.candidates)

        self.param_tabs = QTabWidget()
        self.param_tabs.setObjectName("selectorParameters")
        self.param_tabs.setDocumentMode(True)
        self.problem = plain_label()
        self.problem.setWordWrap(True)
        error_palette(self.problem)
        self.problem.hide()
        self.run_button = QPushButton(icon("select"), "Run selection")
        self.run_button.setObjectName("runSelection")
        self.run_button.setDefault(True)
        self.run_button.setShortcut("Ctrl+Return")
        self.run_button.setToolTip("Start one selection job per ticked method (Ctrl+Enter)")
        self.run_button.clicked.connect(self.run_requested)
        self.needs = plain_label()
        self.needs.setObjectName("hint")
        self.needs.setWordWrap(True)
        self.needs_button = QPushButton(icon("embed"), "Compute embeddings…")
        self.needs_button.clicked.connect(lambda: self.step_requested.emit("embed"))
        self.needs.hide()  # until the dataset is read
        self.needs_button.hide()

        page = QWidget()
        layout = QVBoxLayout(page)
        layout.setContentsMargins(8, 4, 8, 8)
        layout.addWidget(title)
        layout.addWidget(intro)
        layout.addWidget(_section("Methods"))
        layout.addWidget(self.methods)
        layout.addLayout(form)
        layout.addWidget(_section("Leave out"))
        layout.addLayout(leave_out)
        layout.addWidget(_section("Method parameters"))
        layout.addWidget(self.param_tabs)
        layout.addWidget(self.problem)
        layout.addWidget(self.needs)
        layout.addWidget(self.needs_button, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.run_button)
        layout.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(page)
        scroll.setMinimumWidth(340)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(scroll)
        self._methods_changed()

    def _methods_changed(self) -> None:
        """One parameter tab per ticked method (edited values kept when re-ticked)."""
        current = self.param_tabs.tabText(self.param_tabs.currentIndex())
        self.param_tabs.clear()
        for name in self.checked_methods():
            form = self.forms.get(name)
            if form is None:
                try:
                    specs = self.registry.describe("selector", name)
                except VendiscopeError as exc:
                    failed = plain_label(f"This selector cannot be used: {exc}")
                    failed.setWordWrap(True)
                    error_palette(failed)
                    self.param_tabs.addTab(failed, name)
                    continue
                form = ParamForm(specs)
                form.changed.connect(self.clear_problem)
                self.forms[name] = form
            holder = QWidget()
            holder_layout = QVBoxLayout(holder)
            holder_layout.setContentsMargins(4, 6, 4, 4)
            holder_layout.addWidget(form)
            holder_layout.addStretch(1)
            self.param_tabs.addTab(holder, name)
        for index in range(self.param_tabs.count()):
            if self.param_tabs.tabText(index) == current:
                self.param_tabs.setCurrentIndex(index)
        self.update_enabled()

    def checked_methods(self) -> list[str]:
        return [
            self.methods.item(i).data(Qt.ItemDataRole.UserRole)
            for i in range(self.methods.count())
            if self.methods.item(i).checkState() == Qt.CheckState.Checked
        ]

    def set_methods(self, names: list[str]) -> None:
        for i in range(self.methods.count()):
            item = self.methods.item(i)
            wanted = item.data(Qt.ItemDataRole.UserRole) in names
            item.setCheckState(Qt.CheckState.Checked if wanted else Qt.CheckState.Unchecked)

    def fill(self, state: WorkbenchState) -> None:
        """Offer what the dataset has: vector sets, quality columns, subsets to exclude."""
        first = self.state is None
        self.state = state
        self.k.setMaximum(max(1, state.rows))
        if first:
            self.k.setValue(default_budget(state.rows))
        self._show_share()
        refill(
            self.vector_set, [(f"{n} ({KIND_TITLES.get(k, k)})", n) for n, k in state.vector_sets]
        )
        quality = [(NO_QUALITY, None)]
        quality += [(f"score set {n}", n) for n in state.score_sets]
        quality += [(f"field {n}", n) for n in state.numeric_fields]
        quality += [(f"signal {c.name}", c.name) for c in state.signal_numbers]
        before = self.quality.currentData()
        refill(self.quality, quality)
        for index, column in enumerate(
            state.signal_numbers, len(quality) - len(state.signal_numbers)
        ):
            if column.help:
                self.quality.setItemData(index, plain_tip(column.help), Qt.ItemDataRole.ToolTipRole)
        _fill_ticks(
            self.exclude,
            [(f"{name} ({size:,})", name, "") for name, size in state.subsets],
            "no subsets yet",
        )
        _fill_ticks(
            self.drop,
            [(f"{f.name} ({f.count:,})", f.name, f.help) for f in state.flags],
            "no flags yet: compute curation signals first",
        )
        self._show_candidates()
        if self.quality.currentData() != before:
            self._quality_chosen()
        has_vectors = bool(state.vector_sets)
        self.needs.setVisible(not has_vectors)
        self.needs_button.setVisible(not has_vectors)
        self.needs.setText(
            "Selection works on gradient features (G-Vendi) or sentence embeddings; this "
            "dataset has neither yet."
        )
        self.update_enabled()

    def _show_share(self) -> None:
        """What k is as a share of the records, next to it (and why the default is what it is)."""
        rows = self.state.rows if self.state is not None else 0
        if not rows:
            self.k_share.clear()
            return
        k = self.k.value()
        share = k / rows
        self.k_share.setText(f"{share:.{0 if share >= 0.01 else 1}%} of {rows:,}")
        default = default_budget(rows)
        self.k_share.setToolTip(
            f"{k:,} of the {rows:,} records ({share:.1%}). {BUDGET_RULE}: {default:,} here."
        )

    def ticked(self, widget: QListWidget) -> list[str]:
        """The names ticked in ``widget`` (:attr:`exclude` or :attr:`drop`)."""
        return _ticked(widget)

    def set_ticked(self, widget: QListWidget, names: list[str]) -> None:
        for i in range(widget.count()):
            item = widget.item(i)
            if item.flags() & Qt.ItemFlag.ItemIsUserCheckable:
                wanted = item.data(Qt.ItemDataRole.UserRole) in names
                item.setCheckState(Qt.CheckState.Checked if wanted else Qt.CheckState.Unchecked)

    def _show_candidates(self) -> None:
        """How many records are left as candidates after the subsets and flags ticked."""
        if self.state is None:
            self.candidates.clear()
            return
        rows = self.state.rows
        left = candidate_count(self.state, self.ticked(self.exclude), self.ticked(self.drop))
        out = rows - left
        self.candidates.setText(
            f"{left:,} of {rows:,} records are candidates"
            + (f" ({out:,} left out)" if out else "")
            + (", before near-duplicates" if self.dedupe.isChecked() else "")
        )

    def quality_column(self) -> str | None:
        """The quality column chosen (or typed), None for none."""
        quality = self.quality.currentData()
        typed = self.quality.currentText().strip()
        if quality is None and typed and typed != NO_QUALITY:
            quality = typed  # a field path typed in
        return quality

    def _quality_chosen(self) -> None:
        self.quality_problem = None
        self.clear_problem()
        self.quality_changed.emit(self.quality_column())

    def show_quality_problem(self, column: str | None, problem: str | None) -> None:
        """The core's refusal of ``column`` as quality (if it is still the one chosen)."""
        if column != self.quality_column():
            return
        self.quality_problem = problem
        if problem:
            self.show_problem(problem)
        else:
            self.clear_problem()

    def update_enabled(self) -> None:
        ready = (
            self.state is not None and bool(self.state.vector_sets) and bool(self.checked_methods())
        )
        self.run_button.setEnabled(ready)

    def clear_problem(self) -> None:
        self.problem.hide()

    def show_problem(self, text: str) -> None:
        self.problem.setText(text)
        self.problem.show()

    def options(self) -> list[dict[str, Any]]:
        """The keyword arguments of one :func:`tasks.select` job per ticked method.

        Raises ParamError (naming the method's parameter) when a value does not fit.
        """
        methods = self.checked_methods()
        name = self.subset_name.text().strip() or None
        exclude = self.ticked(self.exclude)
        drop = self.ticked(self.drop)
        quality = self.quality_column()
        dedupe = round(self.dedupe_threshold.value(), 3) if self.dedupe.isChecked() else None
        jobs = []
        for method in methods:
            form = self.forms.get(method)
            try:
                params = form.values() if form is not None else {}
            except ParamError as exc:
                raise ParamError(exc.name, exc.problem, prefix=f"{method}: ") from None
            jobs.append({
                "method": method,
                "k": self.k.value(),
                "vector_set": self.vector_set.currentData(),
                "params": params,
                "quality": quality,
                "exclude": exclude,
                "drop": drop,
                "dedupe": dedupe,
                "name": (f"{name}-{method}" if len(methods) > 1 else name) if name else None,
            })  # fmt: skip
        return jobs


def _section(title: str) -> QLabel:
    label = plain_label(title)
    label.setObjectName("sectionTitle")
    return label


def _ticked(widget: QListWidget) -> list[str]:
    return [
        widget.item(i).data(Qt.ItemDataRole.UserRole)
        for i in range(widget.count())
        if widget.item(i).checkState() == Qt.CheckState.Checked
    ]


def _fill_ticks(widget: QListWidget, items: list[tuple[str, str, str]], empty: str) -> None:
    """Checkable ``(text, name, tooltip)`` items, the names ticked before kept ticked."""
    ticked = set(_ticked(widget))
    widget.blockSignals(True)
    widget.clear()
    for text, name, tip in items:
        item = QListWidgetItem(text)
        item.setData(Qt.ItemDataRole.UserRole, name)
        if tip:
            item.setToolTip(plain_tip(f"{name}: {tip}"))
        item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
        item.setCheckState(Qt.CheckState.Checked if name in ticked else Qt.CheckState.Unchecked)
        widget.addItem(item)
    if not items:
        none = QListWidgetItem(empty)
        none.setFlags(Qt.ItemFlag.NoItemFlags)
        widget.addItem(none)
    widget.blockSignals(False)
    rows = min(widget.count(), TICK_ROWS)  # whole rows in view; more scroll
    widget.setMaximumHeight(widget.sizeHintForRow(0) * rows + 2 * widget.frameWidth() + 2)


def refill(combo: QComboBox, items: list[tuple[str, Any]]) -> None:
    """Replace a combo's items, keeping the current choice when it is still there."""
    current = combo.currentData()
    text = combo.currentText() if combo.isEditable() else None
    combo.blockSignals(True)
    combo.clear()
    for label, data in items:
        combo.addItem(label, data)
    index = combo.findData(current) if current is not None else -1
    if index >= 0:
        combo.setCurrentIndex(index)
    elif (
        text
        and combo.isEditable()
        and combo.findText(text) < 0
        and current is None
        and text != NO_QUALITY
    ):
        combo.setEditText(text)
    else:
        combo.setCurrentIndex(0 if combo.count() else -1)
    combo.blockSignals(False)
