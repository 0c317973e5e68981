"""Colours for data: a categorical palette and a colour scale that read on light and dark bases.

Categories get the Tableau 10 hues (then ten paler/darker companions): distinct for most
colour-vision deficiencies and readable on white. On a dark base the same hues are lifted a
little so they keep their contrast. Background categories (names in parentheses, such as
``(other)`` or ``(not in subset)``, as in :mod:`vendiscope.core.view_data.render`) are drawn in a
grey
taken from the palette. Scores use viridis (perceptually uniform, colour-blind safe).
"""

from __future__ import annotations

from functools import cache

import numpy as np
from PySide6.QtGui import QColor, QPalette

from vendiscope.gui.widgets.style import is_dark

CATEGORICAL = (
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
    "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#499894",
    "#a0cbe8", "#ffbe7d", "#8cd17d", "#b6992d", "#f1ce63",
    "#86bcb6", "#d37295", "#fabfd2", "#d4a6c8", "#79706e",
)  # fmt: skip
"""Tableau 20 reordered: the ten strong hues first."""

VIRIDIS = (
    (0.0, "#440154"), (0.13, "#482878"), (0.25, "#3e4989"), (0.38, "#31688e"),
    (0.5, "#26828e"), (0.63, "#1f9e89"), (0.75, "#35b779"), (0.88, "#6ece58"),
    (1.0, "#fde725"),
)  # fmt: skip
SCALE_STEPS = 256


def is_background(name: str) -> bool:
    """Names in parentheses are a reference or background: drawn in grey, beneath the others."""
    return name.startswith("(") and name.endswith(")")


def categorical(palette: QPalette, count: int) -> list[QColor]:
    """``count`` category colours for this palette (the hues repeat after 20)."""
    dark = is_dark(palette)
    colours = []
    for number in range(count):
        colour = QColor(CATEGORICAL[number % len(CATEGORICAL)])
        colours.append(colour.lighter(118) if dark else colour)
    return colours


def background(palette: QPalette) -> QColor:
    """The grey of background categories: between the base colour and the text."""
    base = palette.color(QPalette.ColorRole.Base)
    text = palette.color(QPalette.ColorRole.Text)
    mix = 0.32 if is_dark(palette) else 0.3
    return QColor(
        round(base.red() + (text.red() - base.red()) * mix),
        round(base.green() + (text.green() - base.green()) * mix),
        round(base.blue() + (text.blue() - base.blue()) * mix),
    )


def accent(palette: QPalette) -> QColor:
    """The colour of a highlighted set (a subset, the sparse clusters)."""
    return QColor("#ff7f50") if is_dark(palette) else QColor("#d1495b")


@cache
def scale_rgb(steps: int = SCALE_STEPS) -> np.ndarray:
    """``steps`` x 3 uint8 colours of the score scale (viridis), low to high."""
    stops = np.array([s for s, _ in VIRIDIS])
    rgb = np.array([QColor(c).getRgb()[:3] for _, c in VIRIDIS], dtype=np.float64)
    where = np.linspace(0.0, 1.0, steps)
    channels = [np.interp(where, stops, rgb[:, i]) for i in range(3)]
    return np.round(np.stack(channels, axis=1)).astype(np.uint8)


def scale_colours(steps: int = SCALE_STEPS) -> list[QColor]:
    return [QColor(int(r), int(g), int(b)) for r, g, b in scale_rgb(steps)]


def argb(colours: list[QColor], alpha: int = 255) -> np.ndarray:
    """Colours as 32-bit ``0xAARRGGBB`` values (what a QImage of Format_ARGB32 holds)."""
    values = [(alpha << 24) | (c.red() << 16) | (c.green() << 8) | c.blue() for c in colours]
    return np.array(values, dtype=np.uint32)
