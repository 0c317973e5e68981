"""The application's look: a palette-driven style sheet, an optional dark palette, fonts.

Every colour comes from the palette (``palette(...)`` in style sheets, :class:`QPalette`
roles in code), never from hard-coded light colours, so a dark desktop theme works as is.
"""

from __future__ import annotations

import os
import sys

from PySide6.QtGui import QColor, QFont, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QWidget

STYLE_SHEET = """
QFrame#card {
    background: palette(base);
    border: 1px solid palette(mid);
    border-radius: 8px;
}
QFrame#card:hover { border-color: palette(highlight); }
QLabel#cardValue { font-size: 20pt; font-weight: 600; }
QLabel#cardCaption { color: palette(placeholder-text); }
QLabel#pageTitle { font-size: 15pt; font-weight: 600; }
QLabel#sectionTitle { font-weight: 600; }
QLabel#hint { color: palette(placeholder-text); }
QToolButton#startAction {
    text-align: left; padding: 10px 12px; border: 1px solid palette(mid);
    border-radius: 6px; background: palette(base);
}
QToolButton#startAction:hover { border-color: palette(highlight); }
QToolButton#startAction:focus { border: 2px solid palette(highlight); }
QStatusBar QLabel { padding: 0 6px; }
"""


def is_dark(palette: QPalette | None = None) -> bool:
    """Whether the window background is dark (so charts pick matching colours)."""
    palette = palette or QGuiApplication.palette()
    return palette.color(QPalette.ColorRole.Window).lightness() < 128


def dark_palette() -> QPalette:
    """A neutral dark palette, used when ``VENDISCOPE_THEME=dark`` (or for screenshots)."""
    roles = QPalette.ColorRole
    p = QPalette()
    base, window, text = QColor("#1e1f24"), QColor("#2a2c33"), QColor("#e6e7eb")
    for role, colour in (
        (roles.Window, window),
        (roles.WindowText, text),
        (roles.Base, base),
        (roles.AlternateBase, QColor("#25262c")),
        (roles.ToolTipBase, QColor("#33353d")),
        (roles.ToolTipText, text),
        (roles.Text, text),
        (roles.Button, window),
        (roles.ButtonText, text),
        (roles.BrightText, QColor("#ffffff")),
        (roles.Highlight, QColor("#5b7cfa")),
        (roles.HighlightedText, QColor("#ffffff")),
        (roles.Link, QColor("#8aa2ff")),
        (roles.Mid, QColor("#4a4c55")),
        (roles.Dark, QColor("#18191d")),
        (roles.Light, QColor("#3a3c44")),
        (roles.PlaceholderText, QColor("#9a9ca6")),
    ):
        p.setColor(role, colour)
    for role in (roles.WindowText, roles.Text, roles.ButtonText):
        p.setColor(QPalette.ColorGroup.Disabled, role, QColor("#70727c"))
    return p


def error_palette(widget: QWidget) -> None:
    """Show a label's text in the palette's error-ish colour (readable in both themes)."""
    palette = widget.palette()
    colour = QColor("#ff7b72") if is_dark(palette) else QColor("#b42318")
    palette.setColor(QPalette.ColorRole.WindowText, colour)
    widget.setPalette(palette)


def apply_style(app: QApplication, theme: str | None = None) -> None:
    """Fusion on Linux (the platform style elsewhere), the style sheet, an optional theme."""
    theme = theme or os.environ.get("VENDISCOPE_THEME")
    if sys.platform.startswith("linux") or theme:
        app.setStyle("Fusion")
    if theme == "dark":
        app.setPalette(dark_palette())
    app.setStyleSheet(STYLE_SHEET)


def monospace_font() -> QFont:
    font = QFont("monospace")
    font.setStyleHint(QFont.StyleHint.Monospace)
    return font
