"""Editable combos, one per role, showing the detected field mapping and letting users fix it."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QFormLayout, QWidget

from vendiscope.core.io.fields import ROLES, FieldMapping

NONE_TEXT = "(none)"
ROLE_HELP = {
    "prompt": "The instruction or question (the user turn).",
    "response": "The answer the model should learn to give (the assistant turn).",
    "text": "Plain text, for datasets without prompt/response pairs.",
    "label": "A class label (e.g. NLI entailment); kept with the record.",
    "source": "Where the record comes from (domain, task, subset); diversity is reported "
    "per source.",
    "id": "The record's own identifier in the source, kept for provenance.",
}


def describe_spec(spec: Any) -> str:
    """How a mapping spec reads in a combo: a column, or a join/template/chat part."""
    if isinstance(spec, str):
        return spec
    if "join" in spec:
        return " + ".join(spec["join"])
    if "template" in spec:
        return f"template: {spec['template']}"
    return f"{spec['chat']} → {spec['part']} (chat)"


class MappingEditor(QWidget):
    """Six editable combos (prompt, response, text, label, source, id).

    Each lists ``(none)``, the detected spec (which may combine columns) and the source's
    columns; users may also type a dotted path into nested objects (``meta.domain``).
    """

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.detected: FieldMapping | None = None
        self.combos: dict[str, QComboBox] = {}
        layout = QFormLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for role in ROLES:
            combo = QComboBox()
            combo.setEditable(True)
            combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
            combo.setToolTip(ROLE_HELP[role])
            combo.setObjectName(f"role_{role}")
            combo.currentTextChanged.connect(lambda _text: self.changed.emit())
            self.combos[role] = combo
            layout.addRow(f"{role.capitalize()}:", combo)

    def set_source(self, columns: list[str], detected: FieldMapping | None) -> None:
        """Offer ``columns`` and select the detected spec of each role."""
        self.detected = detected
        roles = detected.roles if detected is not None else {}
        for role, combo in self.combos.items():
            combo.blockSignals(True)
            combo.clear()
            combo.addItem(NONE_TEXT, None)
            spec = roles.get(role)
            if spec is not None and not isinstance(spec, str):
                combo.addItem(describe_spec(spec), spec)
            for column in columns:
                combo.addItem(column, column)
            if spec is None:
                combo.setCurrentIndex(0)
            else:
                combo.setCurrentIndex(max(0, combo.findText(describe_spec(spec))))
                if combo.currentIndex() == 0:  # a dotted path that is not a top-level column
                    combo.setEditText(describe_spec(spec))
            combo.blockSignals(False)
        self.changed.emit()

    def set_role(self, role: str, column: str | None) -> None:
        combo = self.combos[role]
        combo.setEditText(column if column else NONE_TEXT)

    def spec(self, role: str) -> Any:
        combo = self.combos[role]
        text = combo.currentText().strip()
        if not text or text == NONE_TEXT:
            return None
        index = combo.findText(text)
        if index >= 0:
            return combo.itemData(index)
        return text

    def mapping(self) -> FieldMapping:
        """The edited mapping; raises ValueError (with a readable message) when invalid."""
        roles = {role: spec for role in ROLES if (spec := self.spec(role)) is not None}
        unchanged = self.detected is not None and roles == self.detected.roles
        detected = self.detected.detected if unchanged and self.detected else "manual"
        return FieldMapping(roles=roles, detected=detected)
