"""Text from data shown as text: plain labels, plain tooltips, escaped data in our markup.

Qt's labels, tooltips and message boxes guess whether a string is rich text
(``Qt::AutoText``: a tag before the first line break makes it HTML). A record, a source, a
dataset or subset name, a file name or an error message quoting one may look like HTML,
and shown as HTML it could load a local file (``<img src=...>``) or look like something it
is not. So every widget that shows such text shows it as plain text:

* labels: :func:`plain_label` (or :func:`make_plain` on a label Qt made, such as the
  text of a :class:`QInputDialog`); a label of our own markup is a :func:`rich_label`, with
  every piece of data in it escaped by :func:`markup`;
* tooltips (always guessed; no widget can make them plain): :func:`plain_tip`;
* message boxes: :func:`message_box` and :func:`ask`.
"""

from __future__ import annotations

from html import escape

from PySide6 import QtGui
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QMessageBox, QVBoxLayout, QWidget

__all__ = ["ask", "make_plain", "markup", "message_box", "plain_label", "plain_tip", "rich_label"]


def plain_label(text: str = "", parent: QWidget | None = None) -> QLabel:
    """A label that shows ``text`` exactly as it is (never as markup)."""
    label = QLabel(parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setText(text)
    return label


def titled(title: str, widget: QWidget) -> QWidget:
    """``widget`` under a section title (object name ``sectionTitle``), without margins."""
    holder = QWidget()
    layout = QVBoxLayout(holder)
    layout.setContentsMargins(0, 0, 0, 0)
    label = plain_label(title)
    label.setObjectName("sectionTitle")
    layout.addWidget(label)
    layout.addWidget(widget, 1)
    return holder


def rich_label(html: str = "", parent: QWidget | None = None) -> QLabel:
    """A label of our own markup; every piece of data in ``html`` must go through
    :func:`markup`."""
    label = QLabel(parent)
    label.setTextFormat(Qt.TextFormat.RichText)
    label.setText(html)
    return label


def make_plain(*widgets: QWidget) -> None:
    """Show every label of ``widgets`` (the labels themselves, or the labels Qt built inside
    a dialog such as :class:`QInputDialog`) as plain text."""
    for widget in widgets:
        labels = [widget] if isinstance(widget, QLabel) else []
        for label in (*labels, *widget.findChildren(QLabel)):
            label.setTextFormat(Qt.TextFormat.PlainText)


def markup(text: object) -> str:
    """``text`` escaped for our own markup (a rich label, a rich tooltip)."""
    return escape(str(text), quote=True)


def plain_tip(text: str | None) -> str:
    """A tooltip that shows ``text`` as it is.

    Tooltips are always guessed: text Qt would take for markup comes back escaped (line
    breaks kept, long lines wrapped), any other text unchanged.
    """
    if not text:
        return ""
    if not QtGui.Qt.mightBeRichText(text):
        return text
    return QtGui.Qt.convertFromPlainText(text, Qt.WhiteSpaceMode.WhiteSpaceNormal)


def message_box(
    parent: QWidget | None,
    title: str,
    text: str,
    buttons: QMessageBox.StandardButton = QMessageBox.StandardButton.Ok,
    default: QMessageBox.StandardButton = QMessageBox.StandardButton.NoButton,
    icon: QMessageBox.Icon = QMessageBox.Icon.Question,
) -> QMessageBox:
    """A message box showing ``text`` (which may quote names) as plain text."""
    box = QMessageBox(icon, title, "", buttons, parent)
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setText(text)
    if default != QMessageBox.StandardButton.NoButton:
        box.setDefaultButton(default)
    return box


def ask(
    parent: QWidget | None,
    title: str,
    text: str,
    buttons: QMessageBox.StandardButton = (
        QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No
    ),
    default: QMessageBox.StandardButton = QMessageBox.StandardButton.NoButton,
) -> QMessageBox.StandardButton:
    """What :meth:`QMessageBox.question` does, with ``text`` shown as plain text."""
    box = message_box(parent, title, text, buttons, default)
    box.exec()
    clicked = box.clickedButton()  # Escape clicks the escape button
    box.deleteLater()
    if clicked is None:
        return QMessageBox.StandardButton.NoButton
    return box.standardButton(clicked)
