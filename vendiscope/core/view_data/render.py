"""Render chart descriptions (:mod:`vendiscope.core.plugin_host.charts`) to PNG or SVG with
matplotlib.

Reports and the command line draw every view — built-in or third-party — through
:func:`render_chart`, so a plugin that returns a valid chart description gets images for
free. Figures are made with :class:`matplotlib.figure.Figure` and the Agg/SVG canvases
directly: pyplot's global state is never touched, nothing is shown, and style settings stay
inside a ``rc_context``. Safe from worker threads and under any matplotlib backend.

Style: dark text on a light background; categories take colours from a fixed
colour-blind-friendly palette (in order of size, so colours are stable for a chart);
numbers on a colour scale use viridis with a colour bar; scatters of many points are
rasterised (an SVG of 100,000 points stays small). Colours never repeat: with more
categories than the palette has colours, the largest keep a colour and the rest are drawn
as one darker grey "other" entry, and the legend says so. A series or category whose name
is in parentheses — ``"(random)"``, ``"(not in subset)"`` — is a reference or background:
grey (points beneath the others; lines dashed and on top, so a series that follows a
reference line cannot hide it, and a series identical to one says so in the legend).

Everything a reader needs stays inside the image: legends sit beside the axes (in columns
when tall), an axis label longer than its axis is wrapped, long rotated tick labels are
shortened. :func:`build_figure` measures the laid-out figure once to make sure.

Text from datasets is drawn literally: ``$`` never starts matplotlib's math mode.
"""

from __future__ import annotations

import io
import math
import textwrap
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vendiscope.core.base.text import printable_tree, shown_path
from vendiscope.core.plugin_host.charts import DEFAULT_BINS, validate_chart

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

FORMATS = ("png", "svg")
PALETTE = (
    "#0072B2",  # blue
    "#E69F00",  # orange
    "#009E73",  # green
    "#D55E00",  # vermillion
    "#CC79A7",  # purple
    "#56B4E9",  # sky blue
    "#8C6D31",  # brown
    "#332288",  # indigo
    "#B2182B",  # red
    "#44AA99",  # teal
    "#999933",  # olive
    "#882255",  # wine
)
"""Categorical colours, in order (Okabe-Ito first, then Tol's muted colours)."""
BACKGROUND = "#B8B8B8"
"""Colour of reference/background series and categories (names in parentheses)."""
OTHER = "#7A7A7A"
"""Colour of the categories beyond the palette, drawn together as one "other" entry."""
COLORMAP = "viridis"
TEXT = "#1A1A1A"
GRID = "#E3E3E3"
MAX_LEGEND = 12
"""More series than this get no legend (categories are capped at the palette instead)."""
INSIDE_LEGEND = 5
"""Legends of at most this many entries (not a map's) go inside the axes, where they fit."""
MAX_TICK_LABELS = 60
RASTERIZE_ABOVE = 2_000
"""Scatters with more points than this are drawn as an embedded image in SVG."""
LABEL_WIDTH = 28
WIDTH, HEIGHT, DPI = 900, 560, 100

_STYLE = {
    "font.family": "DejaVu Sans",
    "font.size": 10,
    "text.color": TEXT,
    "axes.labelcolor": TEXT,
    "axes.edgecolor": "#555555",
    "axes.titlesize": 11,
    "axes.titleweight": "bold",
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.color": GRID,
    "grid.linewidth": 0.8,
    "axes.axisbelow": True,
    "xtick.color": "#333333",
    "ytick.color": "#333333",
    "figure.facecolor": "white",
    "axes.facecolor": "white",
    "savefig.facecolor": "white",
    "legend.frameon": False,
    "legend.fontsize": 9,
    "svg.hashsalt": "vendiscope",  # the same chart gives the same SVG
    "svg.fonttype": "path",
    "text.usetex": False,
}


def render_chart(
    chart: dict[str, Any],
    format: str = "png",
    *,
    width: int = WIDTH,
    height: int = HEIGHT,
    dpi: int = DPI,
) -> bytes:
    """The chart as PNG or SVG bytes, ``width`` x ``height`` pixels at ``dpi`` (PNG).

    Raises ``ValueError`` for a chart that fails
    :func:`~vendiscope.core.plugin_host.charts.validate_chart`
    or an unknown format.
    """
    if format not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}; got {format!r}")
    for name, value in (("width", width), ("height", height), ("dpi", dpi)):
        if isinstance(value, bool) or not isinstance(value, int) or not 16 <= value <= 20_000:
            raise ValueError(f"{name} must be a whole number of pixels from 16; got {value!r}")
    validate_chart(chart)
    chart = printable_tree(chart)  # labels from data: no control characters in the image or SVG
    import matplotlib

    buffer = io.BytesIO()
    with matplotlib.rc_context(_STYLE), warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*[Gg]lyph .* missing from.*")
        warnings.filterwarnings("ignore", message=".*Tight layout not applied.*")
        figure = build_figure(chart, width=width, height=height, dpi=dpi)
        metadata = {"Date": None} if format == "svg" else {"Software": "Vendiscope"}
        figure.savefig(buffer, format=format, dpi=dpi, metadata=metadata)
    return buffer.getvalue()


def save_chart(
    chart: dict[str, Any],
    destination: Path | str,
    *,
    format: str | None = None,
    force: bool = False,
    width: int = WIDTH,
    height: int = HEIGHT,
    dpi: int = DPI,
) -> Path:
    """Render to ``destination`` (format from ``format`` or the suffix), written atomically."""
    from vendiscope.core.base.atomic import atomic_path, check_destination

    destination = Path(destination)
    chosen = format or destination.suffix.lower().lstrip(".")
    if chosen not in FORMATS:
        raise ValueError(
            f"{shown_path(destination)}: cannot tell the image format from the suffix; "
            "use .png or .svg"
        )
    check_destination(destination, force=force)
    data = render_chart(chart, chosen, width=width, height=height, dpi=dpi)
    with atomic_path(destination) as temporary:
        temporary.write_bytes(data)
    return destination


def build_figure(chart: dict[str, Any], *, width: int = WIDTH, height: int = HEIGHT,
                 dpi: int = DPI) -> Figure:  # fmt: skip
    """A matplotlib ``Figure`` (not managed by pyplot) drawing a validated chart."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width / dpi, height / dpi), dpi=dpi, layout="constrained")
    axes = figure.add_subplot()
    kind = chart["kind"]
    drawn = _DRAW[kind](figure, axes, chart)
    axes.set_title(_wrap(chart["title"], width, dpi), loc="left")
    axes.set_xlabel(plain(chart.get("x_label", "")))
    axes.set_ylabel(plain(chart.get("y_label", "")))
    if chart.get("y_log") and drawn:
        axes.set_yscale("log")
    if not drawn:
        axes.text(0.5, 0.5, "no data", transform=axes.transAxes, ha="center", va="center",
                  color="#777777")  # fmt: skip
    _fit(figure, axes)
    return figure


def _fit(figure: Figure, axes: Axes) -> None:
    """Lay the figure out once and fold what would not fit: an axis label longer than its
    axis, a title wider than the figure, a legend taller than the figure (more columns)."""
    figure.draw_without_rendering()
    box = figure.bbox
    label = axes.yaxis.label
    if label.get_text():
        room = min(axes.bbox.height, box.height) * 0.95
        tall = label.get_window_extent().height
        if tall > room:
            label.set_text(_fold(label.get_text(), tall / room))
    label = axes.xaxis.label
    if label.get_text():
        room = box.width * 0.95
        wide = label.get_window_extent().width
        if wide > room:
            label.set_text(_fold(label.get_text(), wide / room))
    title = axes.title
    extent = title.get_window_extent()
    if extent.x1 > box.x1:
        room = box.x1 - extent.x0
        columns = max(12, int(max(len(t) for t in title.get_text().split("\n")) * room
                              / extent.width) - 1)  # fmt: skip
        title.set_text("\n".join(textwrap.wrap(title.get_text().replace("\n", " "), columns)[:3]))
    legend = axes.get_legend()
    if legend is not None:
        # mypy, on the next line: our own attribute on a matplotlib Legend
        handles, labels, outside, kwargs = legend.vendiscope_args  # type: ignore[attr-defined]
        extent = legend.get_window_extent()
        if not outside and not _inside(extent, axes.bbox):
            _place_legend(axes, handles, labels, outside=True, **kwargs)
        elif extent.height > box.height * 0.95:
            columns = math.ceil(extent.height / (box.height * 0.9))
            _place_legend(axes, handles, labels, outside=True, columns=columns, **kwargs)


def _inside(extent: Any, box: Any) -> bool:
    return (extent.x0 >= box.x0 and extent.y0 >= box.y0 and extent.x1 <= box.x1
            and extent.y1 <= box.y1)  # fmt: skip


def _fold(text: str, factor: float) -> str:
    """``text`` in lines about ``factor`` times shorter."""
    lines = math.ceil(factor)
    return "\n".join(textwrap.wrap(text, max(8, math.ceil(len(text) / lines) + 2)))


# ----------------------------------------------------------------------------- helpers
def plain(text: str) -> str:
    """``text`` drawn literally: ``$`` escaped so matplotlib never enters math mode."""
    return text.replace("$", r"\$") if text else ""


def is_background(name: str) -> bool:
    return name.startswith("(") and name.endswith(")")


def _wrap(title: str, width: int, dpi: int = DPI) -> str:
    """The title in lines that fit ``width`` pixels: the axes (where a title starts) take
    about 85% of the figure, and a bold title character is about 10.5 px wide at 100 dpi,
    wider in proportion at a higher dpi."""
    columns = max(30, int(width * 0.85 / (10.5 * dpi / 100)))
    return "\n".join(textwrap.wrap(plain(title), columns)[:3]) or " "


def _short(label: str, width: int = LABEL_WIDTH) -> str:
    flat = " ".join(label.split())
    flat = plain(flat if len(flat) <= width else flat[: width - 1] + "…")
    return " " + flat if flat.startswith("_") else flat  # matplotlib hides "_..." legend labels


def _colors(names: Sequence[str]) -> dict[str, str]:
    """Palette colours for ``names`` in order, grey for background names (the palette is
    never cycled here: callers with more names than colours group the rest as "other")."""
    out: dict[str, str] = {}
    position = 0
    for name in names:
        if is_background(name):
            out[name] = BACKGROUND
        else:
            out[name] = PALETTE[position % len(PALETTE)]
            position += 1
    return out


def _legend(axes: Axes, count: int, **kwargs: Any) -> None:
    if 1 < count <= MAX_LEGEND:
        handles, labels = axes.get_legend_handles_labels()
        _place_legend(axes, handles, labels, outside=count > INSIDE_LEGEND, **kwargs)


def _place_legend(axes: Axes, handles: list[Any], labels: list[str], *, outside: bool,
                  columns: int = 1, **kwargs: Any) -> None:  # fmt: skip
    """A small legend where it hides the least data inside the axes; a larger one (and a
    map's) beside the axes, top-aligned, where the constrained layout makes room for it.
    :func:`_fit` moves an inside legend that does not fit outside, and gives an outside
    one taller than the figure more columns."""
    where: dict[str, Any] = (
        {"loc": "upper left", "bbox_to_anchor": (1.01, 1.0), "borderaxespad": 0.0}
        if outside
        else {"loc": "best"}
    )
    legend = axes.legend(handles, labels, ncols=columns, **where, **kwargs)
    # mypy, on the next line: our own attribute on a matplotlib Legend
    legend.vendiscope_args = (handles, labels, outside, kwargs)  # type: ignore[attr-defined]


def _tick_width(height: int, dpi: int) -> int:
    """Characters of a rotated (60 degrees) tick label that take at most a third of the
    figure's height (a 9-point character is about 5.5 points wide)."""
    per_character = 5.5 * dpi / 72 * math.sin(math.radians(60))
    return max(10, min(LABEL_WIDTH, int(height / 3 / per_character)))


# ----------------------------------------------------------------------------- kinds
def _scatter(figure: Figure, axes: Axes, chart: dict[str, Any]) -> bool:
    import numpy as np

    series = chart["series"]
    total = sum(len(s["x"]) for s in series)
    if total == 0:
        return False
    size = float(np.clip(6000.0 / total, 0.4, 28.0))
    alpha = 0.85 if total < 5_000 else 0.55
    raster = total > RASTERIZE_ABOVE
    scale = max(1.0, 5.0 / math.sqrt(size))
    entries, placed = 0, False
    series_colors = _colors([s["name"] for s in series])
    for s in series:
        x = np.asarray(s["x"], dtype=np.float64)
        y = np.asarray(s["y"], dtype=np.float64)
        if "color" in s:
            values = np.asarray(s["color"], dtype=np.float64)
            order = np.argsort(values, kind="stable")  # high values on top
            points = axes.scatter(x[order], y[order], c=values[order], cmap=COLORMAP, s=size,
                                  alpha=alpha, linewidths=0, rasterized=raster)  # fmt: skip
            bar = figure.colorbar(points, ax=axes, shrink=0.85)
            bar.set_label(plain(s["name"]))
            if bar.solids is not None:
                bar.solids.set_alpha(1.0)
        elif "category" in s:
            placed = _categories(axes, x, y, s["category"], size, alpha, raster, scale) > 1
        else:
            axes.scatter(x, y, s=size, color=series_colors[s["name"]], alpha=alpha, linewidths=0,
                         rasterized=raster, label=_short(s["name"]))  # fmt: skip
            entries += 1
    if not placed:
        _legend(axes, entries, markerscale=scale)
    return True


def _categories(axes: Axes, x: Any, y: Any, category: list[str], size: float, alpha: float,
                raster: bool, markerscale: float) -> int:  # fmt: skip
    """Points coloured by category: background first, then largest first (small groups on
    top), one legend entry each. Colours never repeat: beyond the palette, the smallest
    categories are drawn as one "other" entry in a darker grey, and the legend says so.
    Returns how many legend entries it drew (the legend is placed here)."""
    import numpy as np

    names, codes, counts = np.unique(np.asarray(category, dtype=object), return_inverse=True,
                                     return_counts=True)  # fmt: skip
    names = [str(n) for n in names]
    by_size = sorted(range(len(names)), key=lambda i: (-counts[i], names[i]))
    foreground = [i for i in by_size if not is_background(names[i])]
    rest = set(foreground[len(PALETTE) :])
    kept = [i for i in by_size if i not in rest]
    colors = _colors([names[i] for i in kept])
    handles: list[Any] = []
    for i in sorted(kept, key=lambda i: not is_background(names[i])):
        mask = codes == i
        handles.append(axes.scatter(
            x[mask], y[mask], s=size, color=colors[names[i]], alpha=alpha, linewidths=0,
            rasterized=raster, label=f"{_short(names[i])} ({counts[i]:,})",
        ))  # fmt: skip
    title = None
    if rest:
        other = np.isin(codes, sorted(rest))
        handles.append(axes.scatter(
            x[other], y[other], s=size, color=OTHER, alpha=alpha, linewidths=0,
            rasterized=raster, zorder=0.9,  # beneath the coloured groups
            label=f"{len(rest):,} smaller, in grey ({int(other.sum()):,})",
        ))  # fmt: skip
        title = f"largest {len(PALETTE)} of {len(foreground):,} in colour"
    if len(handles) > 1:
        _place_legend(axes, handles, [h.get_label() for h in handles], outside=True,
                      title=title, markerscale=markerscale)  # fmt: skip
    return len(handles)


def _line(figure: Figure, axes: Axes, chart: dict[str, Any]) -> bool:
    series = chart["series"]
    colors = _colors([s["name"] for s in series])
    references = [s for s in series if is_background(s["name"]) and s["x"]]
    handles: dict[int, Any] = {}
    for i, s in enumerate(series):
        if not s["x"]:
            continue
        background = is_background(s["name"])
        marker = "o" if len(s["x"]) <= 40 and not background else None
        label = _short(s["name"], 48)
        same = [r["name"] for r in references if not background and r["x"] == s["x"]
                and r["y"] == s["y"]]  # fmt: skip
        if same:
            label += f", same as {same[0]}"
        (handles[i],) = axes.plot(
            s["x"], s["y"], color=colors[s["name"]], linewidth=1.6 if background else 1.8,
            linestyle=(0, (4, 3)) if background else "-", marker=marker, markersize=3.5,
            label=label, zorder=3 if background else 2,  # a reference on top: never hidden
        )  # fmt: skip
    if 1 < len(handles) <= MAX_LEGEND:
        shown = [handles[i] for i in sorted(handles)]
        _place_legend(axes, shown, [h.get_label() for h in shown],
                      outside=len(shown) > INSIDE_LEGEND)  # fmt: skip
    return bool(handles)


def _bar(figure: Figure, axes: Axes, chart: dict[str, Any]) -> bool:
    import numpy as np

    series = chart["series"]
    categories: list[str] = []
    for s in series:
        for name in s["x"]:
            if name not in categories:
                categories.append(name)
    if not categories:
        return False
    where = {name: i for i, name in enumerate(categories)}
    colors = _colors([s["name"] for s in series])
    group = 0.8
    width = group / len(series)
    for number, s in enumerate(series):
        offsets = (number - (len(series) - 1) / 2) * width
        positions = np.asarray([where[name] for name in s["x"]], dtype=np.float64) + offsets
        axes.bar(positions, s["y"], width=width * 0.95, color=colors[s["name"]],
                 label=_short(s["name"], 48))  # fmt: skip
    axes.grid(False, axis="x")
    axes.axhline(0.0, color="#555555", linewidth=0.8)
    if len(categories) <= MAX_TICK_LABELS:
        longest = max(len(c) for c in categories)
        rotate = len(categories) > 8 or longest * len(categories) > 90
        box = figure.bbox
        short = _tick_width(int(box.height), int(figure.dpi)) if rotate else LABEL_WIDTH
        axes.set_xticks(range(len(categories)), [_short(c, short) for c in categories],
                        rotation=60 if rotate else 0, ha="right" if rotate else "center",
                        fontsize=8 if len(categories) > 25 else 9)  # fmt: skip
    else:
        axes.set_xticks([])
    _legend(axes, len(series))
    return True


def _histogram(figure: Figure, axes: Axes, chart: dict[str, Any]) -> bool:
    import numpy as np

    series = [s for s in chart["series"] if s["values"]]
    if not series:
        return False
    bins = chart.get("bins", DEFAULT_BINS)
    low = min(min(s["values"]) for s in series)
    high = max(max(s["values"]) for s in series)
    edges = np.linspace(low, high if high > low else low + 1.0, bins + 1)
    colors = _colors([s["name"] for s in chart["series"]])
    for s in series:
        axes.hist(s["values"], bins=edges, color=colors[s["name"]],
                  alpha=0.6 if len(series) > 1 else 0.9, label=_short(s["name"], 48))  # fmt: skip
    _legend(axes, len(series))
    return True


def _heatmap(figure: Figure, axes: Axes, chart: dict[str, Any]) -> bool:
    import numpy as np

    s = chart["series"][0]
    grid = np.asarray(s["z"], dtype=np.float64)
    if grid.size == 0:
        return False
    image = axes.imshow(grid, cmap=COLORMAP, aspect="auto", interpolation="nearest")
    bar = figure.colorbar(image, ax=axes, shrink=0.85)
    bar.set_label(plain(s["name"]))
    axes.grid(False)
    rows, columns = grid.shape
    if "x" in s and columns <= MAX_TICK_LABELS:
        axes.set_xticks(range(columns), [_short(c) for c in s["x"]], rotation=60, ha="right")
    if "y" in s and rows <= MAX_TICK_LABELS:
        axes.set_yticks(range(rows), [_short(r) for r in s["y"]])
    return True


_DRAW = {
    "scatter": _scatter,
    "line": _line,
    "bar": _bar,
    "histogram": _histogram,
    "heatmap": _heatmap,
}

__all__ = ["FORMATS", "PALETTE", "build_figure", "plain", "render_chart", "save_chart"]
