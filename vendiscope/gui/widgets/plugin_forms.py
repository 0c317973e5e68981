"""A choice of plugin of one kind and the parameter form of the one chosen.

A job's dialog offers the plugins of a kind (a generator, a trainer) in a combo box, with the
chosen one's help under it and its :class:`~vendiscope.gui.widgets.param_form.ParamForm`
below, made the first time it is chosen and kept while the dialog lives; a plugin whose
parameters cannot be read gets a line saying why in its form's place.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QComboBox, QFrame, QScrollArea, QStackedWidget, QVBoxLayout, QWidget

from vendiscope.gui.dialogs.error_dialog import describe_error
from vendiscope.gui.jobs.plugin_choices import plugin_choices
from vendiscope.gui.widgets.param_form import ParamForm, plain_help
from vendiscope.gui.widgets.style import error_palette
from vendiscope.gui.widgets.text import plain_label, plain_tip


class PluginForms(QObject):
    """The plugins of ``kind`` in :attr:`choice` (``default`` chosen), the chosen one's
    :attr:`help` and its form in :attr:`scroll`; :attr:`changed` when a form's values do."""

    changed = Signal()

    def __init__(self, registry: Any, kind: str, default: str | None, parent: QObject) -> None:
        super().__init__(parent)
        self.registry = registry
        self.kind = kind
        self.choice = QComboBox()
        self.choice.setObjectName(f"{kind}Choice")
        for found in plugin_choices(registry, kind):
            self.choice.addItem(found.title, found.name)
            self.choice.setItemData(
                self.choice.count() - 1,
                plain_tip(plain_help(found.description)),
                Qt.ItemDataRole.ToolTipRole,
            )
        self.choice.setCurrentIndex(max(self.choice.findData(default), 0))
        self.help = plain_label()
        self.help.setObjectName("hint")
        self.help.setWordWrap(True)
        self.forms: dict[str, ParamForm] = {}
        self.pages = QStackedWidget()
        self.scroll = QScrollArea()
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll.setWidget(self.pages)

    def add_to(self, layout: QVBoxLayout) -> None:
        """Lay out the choice, the help and the form (which takes the room left)."""
        layout.addWidget(self.choice)
        layout.addWidget(self.help)
        layout.addWidget(self.scroll, 1)

    def current(self) -> str | None:
        """The chosen plugin's name (None: none is installed)."""
        return self.choice.currentData()

    def current_form(self) -> ParamForm | None:
        """The chosen plugin's form (None: none chosen, or its form could not be made)."""
        name = self.current()
        return self.forms.get(name) if name else None

    def show_current(self) -> bool:
        """Show the chosen plugin's help and form (made the first time); False when its
        parameters cannot be read (a line says why in the form's place)."""
        name = self.current()
        tip = self.choice.itemData(self.choice.currentIndex(), Qt.ItemDataRole.ToolTipRole)
        self.help.setText(
            plain_help(tip or "") if name
            else f"No {self.kind} is installed: see Plugins > Installed plugins."
        )  # fmt: skip
        self.help.setVisible(bool(self.help.text()))
        if name is not None and name not in self.forms:
            try:
                specs = self.registry.describe(self.kind, name)
            except Exception as error:
                failed = plain_label(f"This {self.kind} cannot be used: {describe_error(error)}")
                failed.setWordWrap(True)
                error_palette(failed)
                self.pages.addWidget(failed)
                self.pages.setCurrentWidget(failed)
                return False
            form = ParamForm(specs, show_help=True)
            form.setObjectName(f"{self.kind}Form-{name}")
            form.changed.connect(self.changed)
            holder = QWidget()
            holder_layout = QVBoxLayout(holder)
            holder_layout.setContentsMargins(0, 4, 6, 0)
            holder_layout.addWidget(form)
            holder_layout.addStretch(1)
            self.forms[name] = form
            self.pages.addWidget(holder)
        form = self.current_form()
        if form is not None:
            self.pages.setCurrentWidget(form.parentWidget())
        return True
