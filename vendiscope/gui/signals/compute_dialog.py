"""The "Compute signals…" dialog: which curation signals to compute, and their settings.

Every registered signal is listed (:func:`vendiscope.gui.signals.data.signal_choices`, so a
plugin installed later appears with no change here), the cheap ones checked. The signal
chosen in the list shows its description, the dataset it compares with (when it needs one)
and its parameter form (:class:`~vendiscope.gui.widgets.param_form.ParamForm`, made the
first time it is shown). :meth:`ComputeSignalsDialog.options` returns the keyword arguments
of :func:`vendiscope.gui.jobs.tasks.compute_signals`.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFrame,
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QScrollArea,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from vendiscope.gui.dialogs.job_dialog import JobDialog
from vendiscope.gui.signals import data
from vendiscope.gui.widgets.param_form import ParamForm, plain_help
from vendiscope.gui.widgets.style import error_palette
from vendiscope.gui.widgets.text import plain_label, plain_tip
from vendiscope.gui.windows.document import ProjectDocument

SLOW = "slow"
NAME_ROLE = Qt.ItemDataRole.UserRole


class SignalPage(QWidget):
    """One signal's description, target dataset (if it compares with one) and parameters."""

    def __init__(self, choice: data.SignalChoice, registry: Any, targets: list[str]) -> None:
        super().__init__()
        self.choice = choice
        self.form: ParamForm | None = None
        self.target: QComboBox | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        title = plain_label(choice.title)
        title.setObjectName("sectionTitle")
        layout.addWidget(title)
        about = plain_label(plain_help(choice.description))
        about.setObjectName("hint")
        about.setWordWrap(True)
        layout.addWidget(about)
        if choice.slow:
            slow = plain_label(
                "Slow: it loads a language model (minutes on a CPU for a few thousand records); "
                "left unchecked unless you ask for it."
            )
            slow.setWordWrap(True)
            layout.addWidget(slow)
        if choice.problem:
            failed = plain_label(f"This signal cannot be used: {choice.problem}")
            failed.setWordWrap(True)
            error_palette(failed)
            layout.addWidget(failed)
            layout.addStretch(1)
            return
        if choice.needs_target and not targets:
            missing = plain_label(
                "It compares each record with another dataset of the project (a benchmark), "
                "and this project has no other: import one first."
            )
            missing.setWordWrap(True)
            layout.addWidget(missing)
        elif choice.needs_target:
            self.target = QComboBox()
            self.target.setObjectName("signalTarget")
            self.target.addItems(targets)
            self.target.setToolTip("The dataset each record is compared with (a benchmark)")
            row = QHBoxLayout()
            row.addWidget(plain_label("Compare with:"))
            row.addWidget(self.target, 1)
            layout.addLayout(row)
        try:
            specs = data.parameters(registry, choice.name)
        except Exception as error:  # a plugin whose parameters cannot be read
            failed = plain_label(f"Its settings cannot be read: {error}")
            failed.setWordWrap(True)
            error_palette(failed)
            layout.addWidget(failed)
        else:
            if specs:
                self.form = ParamForm(specs, show_help=True)
                self.form.setObjectName(f"signalForm-{choice.name}")
                layout.addWidget(self.form)
        layout.addStretch(1)


class ComputeSignalsDialog(JobDialog):
    """Settings of a signals job on ``dataset``; OK (Start) returns :meth:`options`."""

    def __init__(
        self,
        document: ProjectDocument,
        dataset: str,
        *,
        registry: Any = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(document, dataset, registry=registry, parent=parent)
        self.setWindowTitle(f"Compute signals of {dataset}")
        self.setMinimumSize(780, 500)
        self.choices = data.signal_choices(self.registry)
        others = [d.name for d in document.datasets() if d.name != dataset]
        self.targets = others
        self.pages: dict[str, SignalPage] = {}
        self.list = QListWidget()
        self.list.setObjectName("signalList")
        for choice in self.choices:
            text = choice.title + (f"  ({SLOW})" if choice.slow else "")
            item = QListWidgetItem(text)
            item.setData(NAME_ROLE, choice.name)
            slow = "\n\nSlow: it loads a language model." if choice.slow else ""
            item.setToolTip(plain_tip(plain_help(choice.description) + slow))
            usable = not choice.problem and (not choice.needs_target or bool(others))
            flags = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
            item.setFlags(flags | Qt.ItemFlag.ItemIsUserCheckable if usable else flags)
            item.setCheckState(
                Qt.CheckState.Checked if choice.default and usable else Qt.CheckState.Unchecked
            )
            self.list.addItem(item)
        self.list.setMinimumWidth(self.list.sizeHintForColumn(0) + 2 * self.list.frameWidth() + 8)
        self.stack = QStackedWidget()
        pages = QScrollArea()  # a plugin's form may be long
        pages.setWidgetResizable(True)
        pages.setFrameShape(QFrame.Shape.NoFrame)
        pages.setWidget(self.stack)
        self.list.currentRowChanged.connect(self._show_page)
        self.list.itemChanged.connect(lambda _item: self._check())
        self.replace = QCheckBox("Compute anew the signals computed before with other settings")
        self.replace.setToolTip(
            plain_tip(
                "A signal computed before with other settings is refused unless this is "
                "checked; then its values are deleted and computed again. An interrupted "
                "signal with the same settings always resumes where it stopped."
            )
        )
        columns = QHBoxLayout()
        left = QVBoxLayout()
        left.addWidget(plain_label("Signals:"))
        left.addWidget(self.list, 1)
        columns.addLayout(left, 0)
        columns.addWidget(pages, 1)
        settings = QVBoxLayout()
        settings.addLayout(columns, 1)
        settings.addWidget(self.replace)
        self._lay_out(
            f"Signals are per-record checks of “{dataset}”: quality heuristics, personal data, "
            "language, near-copies, benchmark leaks. They are stored in the project; "
            "Clean up… then leaves the flagged records out of a subset (nothing is deleted). "
            "An interrupted run continues where it stopped when started again.",
            settings,
        )
        self.list.setCurrentRow(0)
        self._check()

    # ------------------------------------------------------------------ pages
    def _show_page(self, row: int) -> None:
        if row < 0:
            return
        choice = self.choices[row]
        if choice.name not in self.pages:
            page = SignalPage(choice, self.registry, self.targets)
            if page.form is not None:
                page.form.changed.connect(self._check)
            self.pages[choice.name] = page
            self.stack.addWidget(page)
        self.stack.setCurrentWidget(self.pages[choice.name])

    def page(self, name: str) -> SignalPage:
        """The settings page of signal ``name`` (made now if it was never shown)."""
        if name not in self.pages:
            current = self.list.currentRow()
            self._show_page(self.names().index(name))
            self._show_page(current)
        return self.pages[name]

    def names(self) -> list[str]:
        """Every signal listed, in order."""
        return [choice.name for choice in self.choices]

    def checked(self) -> list[str]:
        """The signals checked, in the list's order."""
        return [
            self.list.item(row).data(NAME_ROLE)
            for row in range(self.list.count())
            if self.list.item(row).checkState() == Qt.CheckState.Checked
        ]

    def set_checked(self, name: str, checked: bool) -> None:
        item = self.list.item(self.names().index(name))
        item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)

    # ------------------------------------------------------------------ checks
    def _check(self) -> None:
        self._show_problem(self.why_not())

    def why_not(self) -> str | None:
        """What keeps the job from starting, in words (None: nothing)."""
        chosen = self.checked()
        if not chosen:
            return "Check at least one signal to compute."
        for name in chosen:
            page = self.pages.get(name)
            form_problem = page.form.problem() if page is not None and page.form else None
            if form_problem:
                return f"{page.choice.title if page else name}: {form_problem}"
        return None

    def options(self) -> dict[str, Any]:
        """The keyword arguments of :func:`vendiscope.gui.jobs.tasks.compute_signals`."""
        params: dict[str, dict[str, Any]] = {}
        targets: dict[str, str] = {}
        for name in self.checked():
            page = self.pages.get(name)
            if page is None:
                continue
            if page.form is not None and page.form.values():
                params[name] = page.form.values()
            if page.target is not None and page.target.currentText():
                targets[name] = page.target.currentText()
        for name in self.checked():  # a target never shown: the first other dataset
            choice = self.choices[self.names().index(name)]
            if choice.needs_target and name not in targets and self.targets:
                targets[name] = self.targets[0]
        return {
            "signals": self.checked(),
            "params": params,
            "targets": targets,
            "replace": self.replace.isChecked(),
        }
