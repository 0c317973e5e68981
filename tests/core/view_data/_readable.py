"""What a reader of a rendered chart sees: the figure drawn on a real Agg canvas, every text
and legend inside the image, every legend entry's colour on the plot."""

from __future__ import annotations

from typing import Any

import matplotlib
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import to_rgb
from matplotlib.text import Text

from vendiscope.core.view_data import render


def drawn(chart: dict[str, Any], width: int, height: int, dpi: int) -> Any:
    """The chart's figure drawn as :func:`render.render_chart` draws it, with its pixels."""
    with matplotlib.rc_context(render._STYLE):
        figure = render.build_figure(chart, width=width, height=height, dpi=dpi)
        canvas = FigureCanvasAgg(figure)
        canvas.draw()
        pixels = np.asarray(canvas.buffer_rgba())[:, :, :3].copy()
    return figure, canvas.get_renderer(), pixels


def cut_texts(figure: Any, renderer: Any) -> list[str]:
    """Texts drawn partly outside the image (titles, axis labels, legends, tick labels)."""
    box = figure.bbox
    cut = []
    for text in figure.findobj(Text):
        if not text.get_visible() or not text.get_text().strip() or _tick(figure, text):
            continue
        e = text.get_window_extent(renderer)
        if e.x0 < box.x0 - 1 or e.y0 < box.y0 - 1 or e.x1 > box.x1 + 1 or e.y1 > box.y1 + 1:
            cut.append(text.get_text())
    tight = figure.get_tightbbox(renderer)  # all drawn artists, tick labels included
    if tight.x0 < -0.02 or tight.y0 < -0.02 or tight.x1 > figure.get_figwidth() + 0.02 \
            or tight.y1 > figure.get_figheight() + 0.02:  # fmt: skip
        cut.append(f"drawn artists reach {tight} beyond the figure")
    return cut


def _tick(figure: Any, text: Text) -> bool:
    """A tick label: only those in the axis' view are drawn (checked by the tight bbox)."""
    ticks = [t for axes in figure.axes for a in (axes.xaxis, axes.yaxis)
             for t in [*a.majorTicks, *a.minorTicks]]  # fmt: skip
    return any(text is t.label1 or text is t.label2 for t in ticks)


def hidden_entries(figure: Any, pixels: np.ndarray) -> list[str]:
    """Legend entries whose colour does not appear on the plot outside the legend: a reader
    cannot find what they name."""
    height = pixels.shape[0]
    missing = []
    for axes in figure.axes:
        legend = axes.get_legend()
        if legend is None:
            continue
        box = axes.bbox
        area = np.zeros(pixels.shape[:2], dtype=bool)
        area[int(height - box.y1) : int(height - box.y0), int(box.x0) : int(box.x1)] = True
        lb = legend.get_window_extent()
        area[int(height - lb.y1) - 2 : int(height - lb.y0) + 2,
             int(lb.x0) - 2 : int(lb.x1) + 2] = False  # fmt: skip
        for handle, text in zip(legend.legend_handles, legend.get_texts(), strict=True):
            colour = _colour(handle)
            assert colour is not None and handle.get_visible(), text.get_text()
            close = np.abs(pixels.astype(int) - np.asarray(colour) * 255).max(axis=2) <= 12
            if int((close & area).sum()) < 3:
                missing.append(text.get_text())
    return missing


def _colour(handle: Any) -> tuple[float, float, float] | None:
    if hasattr(handle, "get_color") and not hasattr(handle, "get_facecolor"):
        return to_rgb(handle.get_color())
    faces = handle.get_facecolor()
    faces = np.atleast_2d(faces)
    return tuple(faces[0][:3]) if len(faces) else None


def legend_colours(figure: Any) -> dict[str, tuple[float, float, float]]:
    legend = figure.axes[0].get_legend()
    return {t.get_text(): _colour(h) for h, t in zip(legend.legend_handles,
                                                      legend.get_texts(), strict=True)}  # fmt: skip
