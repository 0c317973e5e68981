"""A readable error: the message first, the traceback in a collapsible, copyable details area."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QPlainTextEdit,
    QPushButton,
    QStyle,
    QVBoxLayout,
    QWidget,
)

from vendiscope.core.base.errors import VendiscopeError
from vendiscope.core.store.health import store_failure
from vendiscope.gui.widgets.style import monospace_font
from vendiscope.gui.widgets.text import markup, plain_label, rich_label


def describe_error(error: BaseException) -> str:
    """The message a user should read: our errors as they are, others with their type."""
    if isinstance(error, VendiscopeError):
        return str(error)
    failure = store_failure(error)
    if failure is not None:  # SQLite's words, not the SQL statement around them
        return f"the project file failed: {failure.message}"
    text = str(error) or "(no message)"
    return f"{type(error).__name__}: {text}"


class ErrorDialog(QDialog):
    """Shows ``title``, the error's message, and (collapsed) its traceback."""

    def __init__(
        self,
        title: str,
        error: BaseException | str,
        details: str = "",
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.setMinimumWidth(520)
        message = error if isinstance(error, str) else describe_error(error)
        self.message = message
        self.details = details

        icon = plain_label()
        icon.setPixmap(
            self.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxCritical).pixmap(40, 40)
        )
        icon.setAlignment(Qt.AlignmentFlag.AlignTop)
        heading = rich_label(f"<b>{markup(title)}</b>")
        body = plain_label(message)  # messages quote user data: never markup
        body.setWordWrap(True)
        body.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        body.setObjectName("errorMessage")
        texts = QVBoxLayout()
        texts.addWidget(heading)
        texts.addWidget(body)
        top = QHBoxLayout()
        top.addWidget(icon)
        top.addLayout(texts, 1)

        self.details_view = QPlainTextEdit(details or message)
        self.details_view.setReadOnly(True)
        self.details_view.setFont(monospace_font())
        self.details_view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.details_view.setMinimumHeight(220)
        self.details_view.setVisible(False)

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.toggle_button = QPushButton("Show details")
        self.toggle_button.setCheckable(True)
        self.toggle_button.toggled.connect(self._toggle)
        self.copy_button = QPushButton("Copy details")
        self.copy_button.clicked.connect(self.copy_details)
        buttons.addButton(self.toggle_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.addButton(self.copy_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        buttons.accepted.connect(self.accept)

        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.details_view, 1)
        layout.addWidget(buttons)

    def _toggle(self, shown: bool) -> None:
        self.details_view.setVisible(shown)
        self.toggle_button.setText("Hide details" if shown else "Show details")
        self.adjustSize()

    def copy_details(self) -> None:
        """Put the message and the traceback on the clipboard (for a bug report)."""
        text = self.message if not self.details else f"{self.message}\n\n{self.details}"
        QGuiApplication.clipboard().setText(text)
