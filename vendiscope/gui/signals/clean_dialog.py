"""The "Clean up…" checklist: which flagged records to leave out of a new subset.

One row per flag column of the dataset, with the records it raises; ticking a row counts,
live, what each rule removes (in the order of the list: a record two flags raise is removed
by the first) and how many records are kept, by a dry run of the core's clean-up
(:func:`vendiscope.gui.signals.data.dry_run`, on a worker thread: only the latest count is
shown). An optional filter keeps only the records that match it (``vendiscope clean
--keep``); a filter the core cannot read shows the core's message under it. The subset's
name is checked as the core checks it, and an existing one is replaced only once confirmed.
Records are never deleted. :meth:`CleanUpDialog.options` returns the keyword arguments of
:func:`vendiscope.gui.jobs.tasks.clean_up`.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialogButtonBox,
    QGridLayout,
    QHeaderView,
    QLineEdit,
    QMessageBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from vendiscope.gui.dialogs.error_dialog import describe_error
from vendiscope.gui.dialogs.job_dialog import JobDialog
from vendiscope.gui.jobs.background import Loader
from vendiscope.gui.signals import data
from vendiscope.gui.widgets.style import error_palette
from vendiscope.gui.widgets.text import ask, plain_label, plain_tip
from vendiscope.gui.windows.document import ProjectDocument

DEFAULT_NAME = "clean"
COUNT_DELAY_MS = 250
"""A filter being typed is counted once typing pauses this long."""
FLAG, FLAGGED, REMOVED, MEANING = range(4)


class CleanUpDialog(JobDialog):
    """The clean-up checklist of ``dataset``; Apply accepts :meth:`options`."""

    def __init__(
        self,
        document: ProjectDocument,
        dataset: str,
        *,
        registry: Any = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(document, dataset, registry=registry, parent=parent)
        self.facts: data.CleanFacts | None = None
        self.report: Any = None  # the latest dry run's CleanReport
        self.counting = False
        self.filter_problem: str | None = None
        self.overwrite = False
        self.setWindowTitle(f"Clean up {dataset}")
        self.setMinimumSize(780, 540)

        intro = plain_label(
            f"Save the records of “{dataset}” that pass these rules as a subset: tick the "
            "flags whose records to leave out, and, if you like, a filter the kept records "
            "must match. Records are never deleted; the subset can be exported or selected "
            "from like any other."
        )
        intro.setObjectName("hint")
        intro.setWordWrap(True)
        self.table = QTableWidget(0, 4)
        self.table.setObjectName("cleanFlags")
        self.table.setHorizontalHeaderLabels(
            ["Leave out records flagged", "Flagged", "Removed", "What it flags"]
        )
        removed_header = self.table.horizontalHeaderItem(REMOVED)
        assert removed_header is not None
        removed_header.setToolTip("Records this rule removes that no rule above it removed already")
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.table.verticalHeader().hide()
        self.table.setWordWrap(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(MEANING, QHeaderView.ResizeMode.Stretch)
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 10)
        self.table.itemChanged.connect(self._flag_toggled)
        self.empty = plain_label("Reading the flags…")
        self.empty.setObjectName("hint")
        self.empty.setWordWrap(True)

        self.expression = QLineEdit()
        self.expression.setObjectName("keepExpression")
        self.expression.setPlaceholderText("optional, e.g. words >= 5 and language == en")
        self.expression.setClearButtonEnabled(True)
        self.expression.textChanged.connect(self._expression_edited)
        self.expression_note = plain_label()
        self.expression_note.setObjectName("expressionNote")
        self.expression_note.setWordWrap(True)
        self.expression_note.hide()
        self.name = QLineEdit(DEFAULT_NAME)
        self.name.setObjectName("subsetName")
        self.name.textChanged.connect(lambda _text: self._update())
        self.name_note = plain_label()
        self.name_note.setObjectName("nameNote")
        self.name_note.setWordWrap(True)
        self.name_note.hide()
        form = QGridLayout()
        form.setColumnStretch(1, 1)
        form.addWidget(plain_label("Keep only records where:"), 0, 0)
        form.addWidget(self.expression, 0, 1)
        form.addWidget(self.expression_note, 1, 1)
        form.addWidget(plain_label("Subset name:"), 2, 0)
        form.addWidget(self.name, 2, 1)
        form.addWidget(self.name_note, 3, 1)

        self.kept = plain_label("—")
        self.kept.setObjectName("cleanKept")
        font = self.kept.font()
        font.setBold(True)
        self.kept.setFont(font)
        self.problem = plain_label()
        self.problem.setObjectName("hint")
        self.problem.setWordWrap(True)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Apply | QDialogButtonBox.StandardButton.Cancel
        )
        self.apply_button = self.buttons.button(QDialogButtonBox.StandardButton.Apply)
        self.apply_button.setText("Save subset")
        self.apply_button.clicked.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.empty)
        layout.addWidget(self.table, 1)
        layout.addLayout(form)
        layout.addWidget(self.kept)
        layout.addWidget(self.problem)
        layout.addWidget(self.buttons)

        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(COUNT_DELAY_MS)
        self.timer.timeout.connect(self.recount)
        self.facts_loader = Loader(self)
        self.facts_loader.loaded.connect(self.show_facts)
        self.facts_loader.failed.connect(self._facts_failed)
        self.counter = Loader(self)
        self.counter.loaded.connect(self._counted)
        self.counter.failed.connect(self._count_failed)
        self._update()
        if self.location is not None:
            self.facts_loader.run(data.clean_facts, self.location, dataset)

    # ------------------------------------------------------------------ rules
    def drop(self) -> list[str]:
        """The flags ticked, in the list's order (the order the rules apply in)."""
        flags = [self._cell(row, FLAG) for row in range(self.table.rowCount())]
        return [
            item.data(Qt.ItemDataRole.UserRole)
            for item in flags
            if item.checkState() == Qt.CheckState.Checked
        ]

    def keep(self) -> list[str]:
        text = self.expression.text().strip()
        return [text] if text else []

    def set_flag(self, rule: str, checked: bool) -> None:
        """Tick (or untick) the row of flag ``rule``."""
        for row in range(self.table.rowCount()):
            item = self._cell(row, FLAG)
            if item.data(Qt.ItemDataRole.UserRole) == rule:
                item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
                return
        raise KeyError(rule)

    def _cell(self, row: int, column: int) -> QTableWidgetItem:
        item = self.table.item(row, column)
        assert item is not None
        return item

    def options(self) -> dict[str, Any]:
        """The keyword arguments of :func:`vendiscope.gui.jobs.tasks.clean_up`."""
        return {
            "name": self.name.text(),
            "drop": self.drop(),
            "keep": self.keep(),
            "overwrite": self.overwrite,
        }

    # ------------------------------------------------------------------ facts
    def show_facts(self, facts: data.CleanFacts) -> None:
        self.facts = facts
        self.table.blockSignals(True)
        self.table.setRowCount(0)
        for rule in facts.flags:
            row = self.table.rowCount()
            self.table.insertRow(row)
            share = rule.raised / facts.records if facts.records else 0.0
            flag = QTableWidgetItem(rule.rule)
            flag.setData(Qt.ItemDataRole.UserRole, rule.rule)
            flag.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsUserCheckable)
            flag.setCheckState(Qt.CheckState.Unchecked)
            flag.setToolTip(plain_tip(f"{rule.column}: {rule.help}" if rule.help else rule.column))
            cells = {
                FLAG: flag,
                FLAGGED: QTableWidgetItem(f"{rule.raised:,} ({share:.1%})"),
                REMOVED: QTableWidgetItem(""),
                MEANING: QTableWidgetItem(rule.help),
            }
            cells[MEANING].setToolTip(plain_tip(rule.help))
            for column in (FLAGGED, REMOVED):
                cells[column].setTextAlignment(
                    Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                )
            for column, item in cells.items():
                self.table.setItem(row, column, item)
        self.table.blockSignals(False)
        if facts.columns:
            self.expression.setToolTip(
                plain_tip(
                    "Conditions joined with 'and': a flag alone ('pii'), 'not pii', a number "
                    "compared ('words >= 5') or a label ('language == en'). Columns: "
                    + ", ".join(facts.columns)
                )
            )
        if not facts.columns:
            self.empty.setText(
                "This dataset has no signals yet: compute them first (Compute signals…)."
            )
        elif not facts.flags:
            self.empty.setText("Its signals have no flags; a filter can still leave records out.")
        self.empty.setVisible(not facts.flags)
        self.recount()

    def _facts_failed(self, error: BaseException, _details: str) -> None:
        self.empty.setText(f"Could not read the signals: {describe_error(error)}")
        self.empty.show()

    # ------------------------------------------------------------------ counting
    def _flag_toggled(self, item: QTableWidgetItem) -> None:
        if item.column() == FLAG:
            self.recount()

    def _expression_edited(self, _text: str) -> None:
        self.counting = True  # Apply waits for the count of what is typed
        self._update()
        self.timer.start()

    def recount(self) -> None:
        """Count what the rules ticked and typed would keep (a dry run on a worker thread)."""
        self.timer.stop()
        drop, keep = self.drop(), self.keep()
        if self.facts is None or self.location is None:
            return
        if not drop and not keep:
            self.counter.cancel()
            self.counting = False
            self.report = None
            self.filter_problem = None
            self._show_removed()
            self._update()
            return
        self.counting = True
        self._update()
        self.counter.run(data.dry_run, self.location, self.dataset, drop, keep)

    def _counted(self, report: Any) -> None:
        self.counting = False
        self.report = report
        self.filter_problem = None
        self._show_removed()
        self._update()

    def _count_failed(self, error: BaseException, _details: str) -> None:
        self.counting = False
        self.report = None
        self.filter_problem = describe_error(error)
        self._show_removed()
        self._update()

    def _show_removed(self) -> None:
        removed = {}
        if self.report is not None:
            removed = {r.rule: r for r in self.report.rules}
        self.table.blockSignals(True)
        for row in range(self.table.rowCount()):
            rule = removed.get(f"drop {self._cell(row, FLAG).data(Qt.ItemDataRole.UserRole)}")
            self._cell(row, REMOVED).setText(f"{rule.removed:,}" if rule else "")
        self.table.blockSignals(False)
        keep = next((r for r in removed.values() if r.rule.startswith("keep ")), None)
        if self.filter_problem:
            self.expression_note.setText(self.filter_problem)
            error_palette(self.expression_note)
        elif keep is not None:
            self.expression_note.setText(
                f"The filter leaves out {keep.matched:,} records, {keep.removed:,} of them not "
                "left out by a flag above."
            )
            self.expression_note.setPalette(self.palette())
        self.expression_note.setVisible(bool(self.filter_problem) or keep is not None)

    # ------------------------------------------------------------------ state
    def name_problem(self) -> str | None:
        return data.check_subset_name(self.name.text())

    def name_exists(self) -> bool:
        return self.facts is not None and self.name.text() in self.facts.subsets

    def _update(self) -> None:
        records = self.facts.records if self.facts is not None else 0
        if self.report is not None and not self.counting:
            self.kept.setText(f"{self.report.kept:,} of {records:,} records kept")
        elif self.counting:
            self.kept.setText("Counting…")
        elif self.filter_problem:
            self.kept.setText(f"? of {records:,} records kept")
        else:
            self.kept.setText(f"{records:,} of {records:,} records kept" if records else "—")
        name_problem = self.name_problem()
        if name_problem:
            self.name_note.setText(name_problem)
            error_palette(self.name_note)
        elif self.name_exists():
            self.name_note.setText(
                f"A subset named “{self.name.text()}” exists: saving asks before replacing it."
            )
            self.name_note.setPalette(self.palette())
        self.name_note.setVisible(bool(name_problem) or self.name_exists())
        problem = self.why_not()
        self.problem.setText(problem or "")
        self.problem.setVisible(problem is not None)
        self.apply_button.setEnabled(problem is None)

    def why_not(self) -> str | None:
        """What keeps the subset from being saved (None: nothing)."""
        if self.facts is None or self.location is None:
            return "Reading the signals…"
        if not self.document.writable:
            return "The project cannot be written."
        if self.counting:
            return "Counting…"
        if self.filter_problem:
            return "The filter cannot be read (see above)."
        if self.report is None:
            return "Tick a flag or write a filter to leave records out."
        if self.name_problem():
            return "The subset's name is not valid (see above)."
        return None

    def accept(self) -> None:
        if self.why_not() is not None:
            return
        if self.name_exists():
            answer = ask(
                self,
                "Replace the subset?",
                f"The dataset already has a subset named “{self.name.text()}”. Replace it with "
                f"the {self.report.kept:,} records kept?",
                QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                QMessageBox.StandardButton.No,
            )
            if answer != QMessageBox.StandardButton.Yes:
                return
            self.overwrite = True
        super().accept()

    def done(self, result: int) -> None:
        self.timer.stop()
        self.counter.cancel()
        self.facts_loader.cancel()
        super().done(result)


__all__ = ["CleanUpDialog"]
