"""A form built from a contribution's parameters (a list of ``ParamSpec``).

No per-plugin GUI code: each parameter gets the field that fits its declaration — a combo
box for choices (``Literal``), a check box for a bool, a spin box for an int or float within
its range, a line edit for text, paths, JSON and optional numbers (empty means none), and a
list of the project's subsets or vector sets for a parameter declared with ``FromProject``
(when the form is given a ``choices`` function that reads them) — labelled from its name,
with its help as the tooltip (and, with ``show_help``, under the field).
:meth:`ParamForm.values` returns the values that differ from the defaults, typed and checked
by the spec; a bad one raises ``ParamError`` naming it. :meth:`ParamForm.problem` words the
problem for people, with the field's label.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QGridLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from vendiscope.core.plugin_host.params import REQUIRED, FromProject, ParamError, ParamSpec
from vendiscope.gui.widgets.style import error_palette
from vendiscope.gui.widgets.text import plain_label, plain_tip

INT_LIMIT = 2**31 - 1
NONE_TEXT = "(none)"
MISSING_ROLE = Qt.ItemDataRole.UserRole + 1
"""Set on a combo item that stands for "nothing to choose" (never a value)."""

ChoicesFn = Callable[[FromProject], list[tuple[str, str]]]
"""``(text shown, value)`` pairs of what the project offers for a ``FromProject`` parameter."""

WHAT_WORDS = {"subset": "subsets", "vector_set": "vector sets", "dataset": "other datasets"}
KIND_WORDS = {
    "embedding": "embeddings",
    "gradient": "gradient features",
    "score": "per-record scores",
    "projection": "maps",
    "cluster": "clusterings",
}


def plain_help(text: str) -> str:
    """Help text without reStructuredText markup (``code``, :class:`X`), for people."""
    text = re.sub(r":[a-z]+:`~?([^`]+)`", lambda m: m.group(1).rsplit(".", 1)[-1], text or "")
    return " ".join(text.replace("``", "").replace("`", "").split())


def choice_help(spec: ParamSpec) -> dict[str, str]:
    """What each choice means, when the help says it as ``value: meaning; value: ...``."""
    found = {}
    for part in plain_help(spec.help).split(";"):
        value, colon, meaning = part.strip().partition(":")
        if colon and value.strip() in {str(c) for c in spec.choices} and meaning.strip():
            found[value.strip()] = meaning.strip().rstrip(".")
    return found if len(found) == len(spec.choices) else {}


def missing_words(source: FromProject) -> str:
    """What an empty list of a ``FromProject`` parameter lacks, in words."""
    if source.what == "vector_set" and source.kinds:
        what = " or ".join(KIND_WORDS.get(k, f"{k} sets") for k in source.kinds)
    else:
        what = WHAT_WORDS[source.what]
    whose = " in the target dataset" if source.dataset == "target" else ""
    return f"no {what}{whose} yet"


class ParamForm(QWidget):
    """Fields for ``specs``; ``values()`` gives the changed ones, typed."""

    changed = Signal()

    def __init__(
        self,
        specs: list[ParamSpec],
        parent: QWidget | None = None,
        *,
        choices: ChoicesFn | None = None,
        show_help: bool = False,
        leading: Sequence[tuple[QLabel, QWidget, QLabel | None]] = (),
    ) -> None:
        super().__init__(parent)
        self.specs = list(specs)
        self.choices = choices
        self.fields: dict[str, QWidget] = {}
        self.labels: dict[str, QLabel] = {}
        self.helps: dict[str, QLabel] = {}
        self.grid = QGridLayout(self)
        self.grid.setContentsMargins(0, 0, 0, 0)
        self.grid.setHorizontalSpacing(10)
        self.grid.setVerticalSpacing(4)
        self.grid.setColumnStretch(1, 1)
        for label, field, hint in leading:
            self.add_row(label, field, hint)
        for spec in self.specs:
            field = self._field(spec)
            field.setObjectName(f"param-{spec.name}")
            help_text = plain_help(spec.help)
            tip = "\n\n".join(t for t in (help_text, f"Expected: {self.expects(spec)}.") if t)
            field.setToolTip(plain_tip(tip))
            unit = f" ({spec.unit})" if spec.unit is not None else ""
            label = plain_label(f"{spec.label}{unit}{' *' if spec.required else ''}:")
            label.setToolTip(plain_tip(tip))
            label.setBuddy(field)
            self.fields[spec.name] = field
            self.labels[spec.name] = label
            hint = None
            if show_help and help_text:
                hint = plain_label(help_text)
                hint.setObjectName("hint")
                hint.setWordWrap(True)
                hint.setToolTip(plain_tip(tip))
                self.helps[spec.name] = hint
            self.add_row(label, field, hint)
        if not self.specs:
            none = plain_label("No parameters.")
            none.setObjectName("hint")
            self.grid.addWidget(none, self.grid.rowCount(), 0, 1, 2)

    def add_row(self, label: QLabel, field: QWidget, hint: QLabel | None = None) -> None:
        """``label`` beside ``field``, with ``hint`` (its help) in small print under the field."""
        row = self.grid.rowCount()
        self.grid.addWidget(label, row, 0)
        self.grid.addWidget(field, row, 1)
        if hint is not None:
            hint.setContentsMargins(0, 0, 0, 6)
            self.grid.addWidget(hint, row + 1, 1)

    def expects(self, spec: ParamSpec) -> str:
        """What the field accepts, in words (no parameter names, no code)."""
        if spec.source is not None and self.choices is not None:
            what = {"subset": "a subset", "vector_set": "a vector set", "dataset": "a dataset"}
            text = what[spec.source.what]
            if spec.source.dataset == "target":
                text += " of the target dataset"
            if spec.optional:
                text += f", or {spec.source.none or 'none'}"
            return text
        return spec.expects()

    # ------------------------------------------------------------------ fields
    def _field(self, spec: ParamSpec) -> QWidget:
        default = None if spec.default is REQUIRED else spec.default
        kind = spec.widget
        if spec.source is not None and self.choices is not None and not spec.choices:
            combo = QComboBox()
            combo.setEditable(spec.source.free_text)
            # long names do not widen the form; the open list is as wide as they need
            combo.setSizeAdjustPolicy(
                QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
            )
            combo.setMinimumContentsLength(16)
            self._fill_project_combo(spec, combo, default)
            combo.currentIndexChanged.connect(self.changed)
            if combo.isEditable():
                combo.editTextChanged.connect(self.changed)
            return combo
        if kind == "choice":
            combo = QComboBox()
            if spec.optional:
                combo.addItem(NONE_TEXT, None)
            described = choice_help(spec)  # shown under the field; each in its tooltip
            for choice in spec.choices:
                combo.addItem(str(choice), choice)
                if described.get(str(choice)):
                    tip = f"{choice}: {described[str(choice)]}"
                    combo.setItemData(
                        combo.count() - 1, plain_tip(tip), Qt.ItemDataRole.ToolTipRole
                    )
            index = combo.findData(default) if default is not None or spec.optional else 0
            combo.setCurrentIndex(max(0, index))
            combo.currentIndexChanged.connect(self.changed)
            return combo
        if kind == "bool" and not spec.optional:
            box = QCheckBox()
            box.setChecked(bool(default))
            box.toggled.connect(self.changed)
            return box
        if kind == "int" and not spec.optional:
            spin = QSpinBox()
            low, high = _bounds(spec, integer=True)
            spin.setRange(int(low), int(high))
            spin.setValue(int(default) if default is not None else int(max(low, 0)))
            spin.setGroupSeparatorShown(True)
            spin.valueChanged.connect(self.changed)
            return spin
        if kind == "float" and not spec.optional and default is not None and math.isfinite(default):
            spin = QDoubleSpinBox()
            low, high = _bounds(spec, integer=False)
            spin.setDecimals(_decimals(float(default)))
            spin.setRange(low, high)
            spin.setSingleStep(_step(float(default), low, high))
            spin.setValue(float(default))
            spin.valueChanged.connect(self.changed)
            return spin
        edit = QLineEdit()
        if default is not None:
            edit.setText(json.dumps(default) if kind == "json" else str(default))
        edit.setPlaceholderText(NONE_TEXT if spec.optional else spec.expects())
        edit.textChanged.connect(self.changed)
        return edit

    def _fill_project_combo(self, spec: ParamSpec, combo: QComboBox, value: Any) -> None:
        """The project's names for ``spec`` (and what ``None`` means), ``value`` selected."""
        assert spec.source is not None and self.choices is not None
        source = spec.source
        blocked = combo.blockSignals(True)
        combo.clear()
        if spec.optional:
            combo.addItem(f"({source.none or 'none'})", None)
        try:
            offered = self.choices(source)
        except Exception:  # a project that cannot be read: leave the list empty
            offered = []
        for text, name in offered:
            combo.addItem(text, name)
            combo.setItemData(combo.count() - 1, plain_tip(text), Qt.ItemDataRole.ToolTipRole)
        if not offered:
            combo.addItem(f"({missing_words(source)})", None)
            # mypy, on the next line: QComboBox.model() is a QStandardItemModel here
            item = combo.model().item(combo.count() - 1)  # type: ignore[attr-defined]
            if spec.optional:
                item.setEnabled(False)
            combo.setItemData(combo.count() - 1, True, MISSING_ROLE)
        index = combo.findData(value) if value is not None else 0
        if value is not None and index < 0:
            if combo.isEditable():
                combo.setEditText(str(value))
            else:  # a name the project no longer has: keep it, say so
                combo.addItem(f"{value} (not in the project)", value)
                index = combo.count() - 1
        if index >= 0:
            combo.setCurrentIndex(index)
        view = combo.view()
        view.setMinimumWidth(view.sizeHintForColumn(0) + 24)
        combo.blockSignals(blocked)

    def refresh_choices(self) -> None:
        """Read the project's names again (the dataset or target changed), keeping values."""
        for spec in self.specs:
            field = self.fields[spec.name]
            if spec.source is not None and isinstance(field, QComboBox) and self.choices:
                self._fill_project_combo(spec, field, self.raw_value(spec.name))
        self.changed.emit()

    # ------------------------------------------------------------------ values
    def raw_value(self, name: str) -> Any:
        """The field's value as shown (a typed value, or the text of a line edit)."""
        field = self.fields[name]
        if isinstance(field, QComboBox):
            if field.isEditable():
                text = field.currentText().strip()
                index = field.currentIndex()
                if index >= 0 and text == field.itemText(index):
                    return field.currentData()
                return text or None
            return field.currentData()
        if isinstance(field, QCheckBox):
            return field.isChecked()
        if isinstance(field, (QSpinBox, QDoubleSpinBox)):
            return field.value()
        text = field.text().strip()
        return text or None

    def set_value(self, name: str, value: Any) -> None:
        field = self.fields[name]
        spec = next(s for s in self.specs if s.name == name)
        if isinstance(field, QComboBox) and spec.source is not None and not spec.choices:
            self._fill_project_combo(spec, field, value)
            self.changed.emit()
        elif isinstance(field, QComboBox):
            field.setCurrentIndex(max(0, field.findData(value)))
        elif isinstance(field, QCheckBox):
            field.setChecked(bool(value))
        elif isinstance(field, (QSpinBox, QDoubleSpinBox)):
            field.setValue(value)
        else:
            field.setText("" if value is None else str(value))

    def values(self, *, changed_only: bool = True) -> dict[str, Any]:
        """Typed values (those that differ from the defaults); raises ParamError on a bad one."""
        out: dict[str, Any] = {}
        for spec in self.specs:
            raw = self.raw_value(spec.name)
            if raw is None and spec.required:
                raise ParamError(spec.name, f"required: {spec.expects()}")
            if raw is None and not spec.optional and isinstance(self.fields[spec.name], QLineEdit):
                if spec.default is REQUIRED:
                    raise ParamError(spec.name, f"required: {spec.expects()}")
                continue  # an emptied text field means the default
            value = spec.coerce(raw)
            if changed_only and not spec.required and _same(value, spec.default):
                continue
            out[spec.name] = value
        return out

    def error(self) -> str | None:
        """The first problem with the values, as ``ParamError`` words it (naming it), or None."""
        try:
            self.values()
        except ParamError as exc:
            return str(exc)
        return None

    def problem(self) -> str | None:
        """The first problem with the values, for people: the field's label, not its name."""
        try:
            self.values()
        except ParamError as exc:
            spec = next((s for s in self.specs if s.name == exc.name), None)
            if spec is None:
                return str(exc)
            problem = exc.problem
            if spec.source is not None and self.raw_value(spec.name) is None:
                problem = f"choose one ({missing_words(spec.source)})"
            return f"{spec.label}: {problem}"
        return None


class ParamDialog(QDialog):
    """A parameter form with OK/Cancel; OK stays disabled while a value is invalid.

    ``leading`` rows (label, field, help; e.g. a target dataset) come first in the form,
    ``extra`` above it; ``check`` is asked too before OK is enabled (a problem in words, or
    None); call :meth:`validate` when what it reads changes. The help of each parameter is
    shown under its field.
    """

    def __init__(
        self,
        title: str,
        intro: str,
        specs: list[ParamSpec],
        parent: QWidget | None = None,
        *,
        extra: QWidget | None = None,
        ok_text: str = "Show",
        choices: ChoicesFn | None = None,
        check: Callable[[], str | None] | None = None,
        leading: Sequence[tuple[QLabel, QWidget, QLabel | None]] = (),
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.setMinimumWidth(560)
        self.check = check
        text = plain_label(intro)
        text.setWordWrap(True)
        text.setObjectName("hint")
        self.intro = text
        self.form = ParamForm(specs, choices=choices, show_help=True, leading=leading)
        self.problem = plain_label()
        self.problem.setObjectName("paramProblem")
        self.problem.setWordWrap(True)
        error_palette(self.problem)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText(ok_text)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(text)
        if extra is not None:
            layout.addWidget(extra)
        layout.addWidget(self.form)
        layout.addWidget(self.problem)
        layout.addStretch(1)
        layout.addWidget(self.buttons)
        self.form.changed.connect(self.validate)
        self.validate()

    def showEvent(self, event: Any) -> None:
        super().showEvent(event)
        layout = self.layout()
        if layout is not None and layout.hasHeightForWidth():  # wrapped help: fit its height
            height = max(layout.totalHeightForWidth(self.width()), self.minimumHeight())
            screen = self.screen().availableGeometry().height() if self.screen() else height
            if 0 < height != self.height():
                self.resize(self.width(), min(height, screen))

    def validate(self) -> None:
        problem = self.check() if self.check is not None else None
        problem = problem or self.form.problem()
        self.problem.setText(problem or "")
        self.problem.setVisible(problem is not None)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(problem is None)

    def values(self) -> dict[str, Any]:
        return self.form.values()


def _bounds(spec: ParamSpec, *, integer: bool) -> tuple[float, float]:
    bounds = spec.range
    low, high = (-INT_LIMIT, INT_LIMIT) if integer else (-1e12, 1e12)
    if bounds is not None:
        step = 1 if integer else 0.0
        if bounds.ge is not None:
            low = bounds.ge
        elif bounds.gt is not None:
            low = bounds.gt + step if integer else bounds.gt
        if bounds.le is not None:
            high = bounds.le
        elif bounds.lt is not None:
            high = bounds.lt - step if integer else bounds.lt
    elif integer and spec.default is not REQUIRED and isinstance(spec.default, int):
        low = 0 if spec.default >= 0 else low
    elif not integer and isinstance(spec.default, float) and spec.default >= 0:
        low = 0.0
    return low, high


def _decimals(value: float) -> int:
    if value == 0:
        return 2
    if abs(value) >= 0.01:  # enough to show the default as it is (0.8 -> 0.80), at most 4
        return min(4, max(2, len(f"{abs(value):.4f}".rstrip("0").split(".")[1])))
    return min(10, 2 - math.floor(math.log10(abs(value))) + 1)


def _step(value: float, low: float, high: float) -> float:
    if value:
        return 10 ** math.floor(math.log10(abs(value)))
    if high - low <= 2:
        return 0.01
    return 0.1


def _same(value: Any, default: Any) -> bool:
    if default is REQUIRED:
        return False
    if (
        isinstance(value, float)
        and isinstance(default, (int, float))
        and not isinstance(default, bool)
    ):
        return math.isclose(value, float(default), rel_tol=1e-9, abs_tol=1e-12)
    return value == default and type(value) is type(default)
