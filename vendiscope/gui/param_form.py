"""A form built from a contribution's parameters (a list of ``ParamSpec``).

No per-plugin GUI code: each parameter gets the field that fits its declaration — a combo
box for choices (``Literal``), a check box for a bool, a spin box for an int or float within
its range, a line edit for text, paths, JSON and optional numbers (empty means none) — with
its help as the tooltip. :meth:`ParamForm.values` returns the values that differ from the
defaults, typed and checked by the spec; a bad one raises ``ParamError`` naming it.
"""

from __future__ import annotations

import json
import math
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from vendiscope.core.plugins.params import REQUIRED, ParamError, ParamSpec
from vendiscope.gui.style import error_palette

INT_LIMIT = 2**31 - 1
NONE_TEXT = "(none)"


class ParamForm(QWidget):
    """Fields for ``specs``; ``values()`` gives the changed ones, typed."""

    changed = Signal()

    def __init__(self, specs: list[ParamSpec], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.specs = list(specs)
        self.fields: dict[str, QWidget] = {}
        self.form = QFormLayout(self)
        self.form.setContentsMargins(0, 0, 0, 0)
        for spec in self.specs:
            field = self._field(spec)
            field.setObjectName(f"param-{spec.name}")
            tip = spec.help or ""
            tip = f"{tip}\n\n{spec.name}: {spec.expects()}".strip()
            field.setToolTip(tip)
            label = QLabel(f"{spec.label}{' *' if spec.required else ''}:")
            label.setToolTip(tip)
            label.setBuddy(field)
            self.form.addRow(label, field)
            self.fields[spec.name] = field
        if not self.specs:
            none = QLabel("No parameters.")
            none.setObjectName("hint")
            self.form.addRow(none)

    # ------------------------------------------------------------------ fields
    def _field(self, spec: ParamSpec) -> QWidget:
        default = None if spec.default is REQUIRED else spec.default
        kind = spec.widget
        if kind == "choice":
            combo = QComboBox()
            if spec.optional:
                combo.addItem(NONE_TEXT, None)
            for choice in spec.choices:
                combo.addItem(str(choice), choice)
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

    # ------------------------------------------------------------------ values
    def raw_value(self, name: str) -> Any:
        """The field's value as shown (a typed value, or the text of a line edit)."""
        field = self.fields[name]
        if isinstance(field, QComboBox):
            return field.currentData()
        if isinstance(field, QCheckBox):
            return field.isChecked()
        if isinstance(field, (QSpinBox, QDoubleSpinBox)):
            return field.value()
        text = field.text().strip()
        return text or None

    def set_value(self, name: str, value: Any) -> None:
        field = self.fields[name]
        if isinstance(field, QComboBox):
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
        """The first problem with the values, in words, or None."""
        try:
            self.values()
        except ParamError as exc:
            return str(exc)
        return None


class ParamDialog(QDialog):
    """A parameter form with OK/Cancel; OK stays disabled while a value is invalid."""

    def __init__(
        self,
        title: str,
        intro: str,
        specs: list[ParamSpec],
        parent: QWidget | None = None,
        *,
        extra: QWidget | None = None,
        ok_text: str = "Show",
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.setMinimumWidth(440)
        text = QLabel(intro)
        text.setWordWrap(True)
        text.setObjectName("hint")
        self.form = ParamForm(specs)
        self.problem = QLabel()
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
        layout.addWidget(self.buttons)
        self.form.changed.connect(self._validate)
        self._validate()

    def _validate(self) -> None:
        problem = self.form.error()
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
    if value == 0 or abs(value) >= 0.01:
        return 4
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
