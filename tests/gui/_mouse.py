"""Real mouse events for pyqtgraph views (offscreen Qt delivers them; pyqtgraph drops move
events closer than 1/60 s apart, so these helpers pace them)."""

from __future__ import annotations

import time
from collections.abc import Sequence

from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication, QWidget

PACE_S = 0.03
LEFT = Qt.MouseButton.LeftButton
NONE = Qt.MouseButton.NoButton


def _send(widget: QWidget, kind: QEvent.Type, pos: QPoint, button, buttons) -> None:
    event = QMouseEvent(
        kind, QPointF(pos), QPointF(widget.mapToGlobal(pos)), button, buttons,
        Qt.KeyboardModifier.NoModifier,
    )  # fmt: skip
    QApplication.sendEvent(widget, event)
    QApplication.processEvents()


def drag(widget: QWidget, points: Sequence[QPoint]) -> None:
    """Press the left button at ``points[0]``, move through the others, release at the last."""
    _send(widget, QEvent.Type.MouseButtonPress, points[0], LEFT, LEFT)
    for point in points[1:]:
        time.sleep(PACE_S)
        _send(widget, QEvent.Type.MouseMove, point, NONE, LEFT)
    _send(widget, QEvent.Type.MouseButtonRelease, points[-1], LEFT, NONE)


def move(widget: QWidget, point: QPoint) -> None:
    time.sleep(PACE_S)
    _send(widget, QEvent.Type.MouseMove, point, NONE, NONE)


def click(widget: QWidget, point: QPoint) -> None:
    move(widget, point)
    _send(widget, QEvent.Type.MouseButtonPress, point, LEFT, LEFT)
    _send(widget, QEvent.Type.MouseButtonRelease, point, LEFT, NONE)
