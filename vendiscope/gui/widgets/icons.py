"""Icons: the application icon and line icons drawn in the palette's text colour.

The line icons in ``resources/icons/`` are SVGs stroked with ``currentColor``; they are
rendered here with the current palette's colours (normal and disabled), so they read well
in light and dark themes alike.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from PySide6.QtCore import QByteArray, QRectF, Qt
from PySide6.QtGui import QColor, QGuiApplication, QIcon, QPainter, QPalette, QPixmap
from PySide6.QtSvg import QSvgRenderer

RESOURCES = Path(__file__).resolve().parents[2] / "resources"
APP_ICON = RESOURCES / "vendiscope.svg"
ICON_DIR = RESOURCES / "icons"
SIZES = (16, 20, 24, 32, 48)


def app_icon() -> QIcon:
    """The Vendiscope application icon."""
    return QIcon(str(APP_ICON))


def icon(name: str) -> QIcon:
    """The line icon ``name`` (a file in ``resources/icons``) in the palette's colours."""
    palette = QGuiApplication.palette()
    normal = palette.color(QPalette.ColorGroup.Active, QPalette.ColorRole.WindowText)
    disabled = palette.color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.WindowText)
    return _icon(name, normal.name(), disabled.name())


@cache
def _icon(name: str, normal: str, disabled: str) -> QIcon:
    source = (ICON_DIR / f"{name}.svg").read_text(encoding="utf-8")
    result = QIcon()
    for colour, mode in ((normal, QIcon.Mode.Normal), (disabled, QIcon.Mode.Disabled)):
        renderer = QSvgRenderer(QByteArray(source.replace("currentColor", colour).encode()))
        for size in SIZES:
            result.addPixmap(_render(renderer, size), mode)
    return result


def _render(renderer: QSvgRenderer, size: int) -> QPixmap:
    ratio = QGuiApplication.instance().devicePixelRatio() if QGuiApplication.instance() else 1.0
    pixmap = QPixmap(round(size * ratio), round(size * ratio))
    pixmap.setDevicePixelRatio(ratio)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter, QRectF(0, 0, size, size))
    painter.end()
    return pixmap


def swatch(colour: QColor, size: int = 12) -> QIcon:
    """A small filled circle, for legends."""
    pixmap = QPixmap(size, size)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setBrush(colour)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.drawEllipse(1, 1, size - 2, size - 2)
    painter.end()
    return QIcon(pixmap)
