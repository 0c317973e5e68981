"""A pyqtgraph item that draws up to millions of coloured 2-D points and stays interactive.

Level of detail, decided at every repaint from the points inside the view:

- more than :data:`POINT_LIMIT` visible points (or so many that their discs would cover
  the view over, :data:`CROWDING`): a **density raster**. The visible points are
  binned on the screen's pixel grid (:data:`BIN_PX` pixels a bin) with NumPy; a bin takes
  the colour of its topmost point (background categories first, then the others, in record
  order) and an opacity that grows with the log of its count, so dense regions read as
  dense. About 35 ms for 1,000,000 points on one core.
- otherwise: **symbols**, one antialiased disc per point, drawn with a single
  ``QPainter.drawPixmapFragments`` call from an atlas of one disc per distinct colour (no
  per-point brushes, no per-point Python objects): about 20 ms for 100,000 points.

Either way the result is cached as one image per view (position, zoom, size), so hover
markers and tooltips repaint in a millisecond; panning and zooming re-render.

Colours are given per point as a *code* (an int) and a lookup table of ARGB colours per
code; codes can be hidden (a legend's check boxes) and flagged as background (drawn beneath).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QImage, QPainter, QPen, QPixmap

POINT_LIMIT = 100_000
"""Above this many visible points the cloud is drawn as a density raster."""
CROWDING = 1.0
"""Also a raster when the visible discs would cover the view this many times over (a crowd
of overlapping discs reads worse than a density image)."""
BIN_PX = 2
"""Size of a density bin in screen pixels (a lone point shows as a 2 x 2 square)."""
SYMBOL_PX = 7
"""Diameter of a point's disc in screen pixels."""
ATLAS_COLUMNS = 16


@dataclass(frozen=True)
class RenderStats:
    """What the last render drew: ``mode`` (points or density), visible points, milliseconds."""

    mode: str = ""
    visible: int = 0
    ms: float = 0.0


class PointCloud(pg.GraphicsObject):
    """Points ``(x[i], y[i])`` coloured by ``lut[codes[i]]``; see the module docstring."""

    def __init__(
        self,
        *,
        point_limit: int = POINT_LIMIT,
        symbol_px: float = SYMBOL_PX,
        bin_px: int = BIN_PX,
    ) -> None:
        super().__init__()
        self.point_limit = point_limit
        self.symbol_px = symbol_px
        self.bin_px = bin_px
        self.x = np.empty(0, dtype=np.float32)
        self.y = np.empty(0, dtype=np.float32)
        self.codes = np.empty(0, dtype=np.int32)
        self.lut = np.array([0xFF808080], dtype=np.uint32)
        self.background = np.zeros(1, dtype=bool)
        self.hidden = np.zeros(1, dtype=bool)
        self.stats = RenderStats()
        self.renders = 0
        self._bounds = QRectF()
        self._version = 0
        self._cache: tuple[tuple, QImage, QRectF] | None = None  # key, image, its device size
        self._atlas: tuple[tuple, QPixmap, np.ndarray, int] | None = None
        self._point_colours = np.empty(0, dtype=np.uint32)
        self._all_finite = True
        self._point_background: np.ndarray | None = None

    # ------------------------------------------------------------------ data
    def set_points(self, x: np.ndarray, y: np.ndarray) -> None:
        """New coordinates (one colour until :meth:`set_colours`)."""
        self.prepareGeometryChange()
        self.x = np.ascontiguousarray(x, dtype=np.float32)
        self.y = np.ascontiguousarray(y, dtype=np.float32)
        if len(self.x) != len(self.y):
            raise ValueError(f"x has {len(self.x)} values but y has {len(self.y)}")
        finite = np.isfinite(self.x) & np.isfinite(self.y)
        self._all_finite = bool(finite.all())  # else never take the no-mask path
        if finite.any():
            xs, ys = self.x[finite], self.y[finite]
            left, right = float(xs.min()), float(xs.max())
            bottom, top = float(ys.min()), float(ys.max())
            self._bounds = QRectF(left, bottom, right - left, top - bottom)
        else:
            self._bounds = QRectF()
        self.codes = np.zeros(len(self.x), dtype=np.int32)
        self.hidden = np.zeros(len(self.lut), dtype=bool)
        self._per_point()
        self._changed()
        self.informViewBoundsChanged()

    def set_colours(
        self,
        codes: np.ndarray,
        lut: np.ndarray,
        background: np.ndarray | None = None,
    ) -> None:
        """Point ``i`` gets colour ``lut[codes[i]]`` (``0xAARRGGBB``); ``background`` per code."""
        codes = np.ascontiguousarray(codes, dtype=np.int32)
        if len(codes) != len(self.x):
            raise ValueError(f"{len(codes)} colour codes for {len(self.x)} points")
        self.codes = codes
        self.lut = np.ascontiguousarray(lut, dtype=np.uint32)
        self.background = (
            np.zeros(len(self.lut), dtype=bool)
            if background is None
            else np.asarray(background, dtype=bool)
        )
        self.hidden = np.zeros(len(self.lut), dtype=bool)
        self._atlas = None
        self._per_point()
        self._changed()

    def _per_point(self) -> None:
        """Each point's colour and background flag, looked up once (not at every repaint)."""
        self._point_colours = self.lut[self.codes]
        background = self.background if len(self.background) == len(self.lut) else None
        if background is not None and background.any():
            self._point_background: np.ndarray | None = background[self.codes]
        else:
            self._point_background = None

    def set_hidden(self, hidden: np.ndarray) -> None:
        """Codes not to draw (nor hover nor select): a bool per code."""
        self.hidden = np.asarray(hidden, dtype=bool)
        self._changed()

    def _changed(self) -> None:
        self._version += 1
        self._cache = None
        self.update()

    def visible_mask(self) -> np.ndarray | None:
        """Which points are shown (None: all), after hidden codes."""
        if not self.hidden.any():
            return None
        return ~self.hidden[self.codes]

    # ------------------------------------------------------------------ geometry
    def dataBounds(self, ax: int, frac: float = 1.0, orthoRange=None) -> tuple:
        if self._bounds.isNull() and not len(self.x):
            return (None, None)
        if ax == 0:
            return (self._bounds.left(), self._bounds.right())
        return (self._bounds.top(), self._bounds.bottom())

    def pixelPadding(self) -> float:
        return self.symbol_px / 2 + 1

    def boundingRect(self) -> QRectF:
        if self._bounds.isNull() and not len(self.x):
            return QRectF()
        pad_x = pad_y = 0.0
        view = self.getViewBox()
        if view is not None:
            size = view.viewPixelSize()
            pad_x, pad_y = size[0] * self.pixelPadding(), size[1] * self.pixelPadding()
        return self._bounds.adjusted(-pad_x, -pad_y, pad_x, pad_y)

    def viewTransformChanged(self) -> None:
        self.prepareGeometryChange()

    # ------------------------------------------------------------------ painting
    def paint(self, painter: QPainter, option: object, widget: object = None) -> None:
        view = self.getViewBox()
        if not len(self.x) or view is None:
            return
        view_rect = view.viewRect()
        transform = painter.transform()
        target = transform.mapRect(view_rect)
        ratio = widget.devicePixelRatioF() if widget is not None else 1.0
        key = (
            round(transform.m11(), 9), round(transform.m22(), 9),
            round(transform.dx(), 3), round(transform.dy(), 3),
            round(target.width()), round(target.height()), ratio, self._version,
        )  # fmt: skip
        if self._cache is None or self._cache[0] != key:
            image, source = self._render(transform, target, ratio)
            self._cache = (key, image, source)
        _, image, size = self._cache
        painter.save()
        painter.resetTransform()
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, False)
        painter.drawImage(
            QRectF(target.left(), target.top(), size.width() / ratio, size.height() / ratio),
            image,
            QRectF(image.rect()),
        )
        painter.restore()

    def render_now(self, transform, target: QRectF, ratio: float = 1.0) -> QImage:
        """Render for a device transform and target rect (benchmarks; tests)."""
        return self._render(transform, target, ratio)[0]

    def _render(self, transform, target: QRectF, ratio: float) -> tuple[QImage, QRectF]:
        started = time.perf_counter()
        width = max(1, math.ceil(target.width() * ratio))
        height = max(1, math.ceil(target.height() * ratio))
        # device (image) coordinates of the points; the view is never rotated
        sx, sy = transform.m11() * ratio, transform.m22() * ratio
        ox = (transform.dx() - target.left()) * ratio
        oy = (transform.dy() - target.top()) * ratio
        pad = self.symbol_px * ratio
        # the data rectangle that maps to the image plus a symbol's margin
        x0, x1 = sorted(((-pad - ox) / sx, (width + pad - ox) / sx))
        y0, y1 = sorted(((-pad - oy) / sy, (height + pad - oy) / sy))
        # the data rectangle of the image itself (points outside it are not binned)
        ix0, ix1 = sorted(((-ox) / sx, (width - ox) / sx))
        iy0, iy1 = sorted(((-oy) / sy, (height - oy) / sy))
        shown = self.visible_mask()
        bounds = self._bounds
        everything = (
            shown is None and self._all_finite and bounds.left() >= ix0 and bounds.right() <= ix1
            and bounds.top() >= iy0 and bounds.bottom() <= iy1
        )  # fmt: skip
        if everything:  # the common zoomed-out case: no mask, no gathers
            mask, count = None, len(self.x)
        else:
            mask = self._inside(ix0, ix1, iy0, iy1, shown)
            count = int(np.count_nonzero(mask))
        crowd = int(CROWDING * width * height / max(pad * pad, 1.0))
        if count > min(self.point_limit, max(crowd, 1000)):
            image, source = self._density(mask, sx, sy, ox, oy, width, height, ratio)
            mode = "density"
        else:
            margin = None if everything else self._inside(x0, x1, y0, y1, shown)
            index = np.arange(len(self.x)) if margin is None else np.flatnonzero(margin)
            image, source = self._symbols(index, sx, sy, ox, oy, width, height, ratio)
            mode = "points"
        self.renders += 1
        self.stats = RenderStats(mode, count, (time.perf_counter() - started) * 1000)
        return image, source

    def _inside(
        self, x0: float, x1: float, y0: float, y1: float, shown: np.ndarray | None
    ) -> np.ndarray:
        x, y = self.x, self.y
        mask = (x >= x0) & (x <= x1) & (y >= y0) & (y <= y1)
        if shown is not None:
            mask &= shown
        return mask

    def _layered(self, index: np.ndarray) -> np.ndarray:
        """``index`` with background points first (drawn beneath), each part in record order."""
        if not self.background.any():
            return index
        behind = self.background[self.codes[index]]
        if not behind.any() or behind.all():
            return index
        return np.concatenate([index[behind], index[~behind]])

    def _density(self, mask, sx, sy, ox, oy, width, height, ratio) -> tuple[QImage, QRectF]:
        """Bin the shown points inside the image (``mask``; None: all) on the screen's grid."""
        step = max(1, round(self.bin_px * ratio))
        columns, rows = math.ceil(width / step), math.ceil(height / step)
        colours, behind = self._point_colours, self._point_background
        # every point is binned (no gathers: cheaper than selecting the ones in view); those
        # outside the image or hidden go to one extra bin that is never drawn
        bins = columns * rows
        bx = self.x * np.float32(sx / step)
        bx += np.float32(ox / step)
        by = self.y * np.float32(sy / step)
        by += np.float32(oy / step)
        flat = np.minimum(by.astype(np.int32), rows - 1)
        flat *= columns
        flat += np.minimum(bx.astype(np.int32), columns - 1)
        np.clip(flat, 0, bins - 1, out=flat)
        if mask is not None:
            np.putmask(flat, ~mask, bins)
        counts = np.bincount(flat, minlength=bins + 1)[:bins]
        binned = np.zeros(bins + 1, dtype=np.uint32)
        if behind is not None:
            binned[flat[behind]] = colours[behind]  # background beneath
            front = ~behind
            binned[flat[front]] = colours[front]
        else:
            binned[flat] = colours  # the last (topmost) point of a bin wins
        binned = binned[:bins]
        filled = np.flatnonzero(counts)
        out = np.zeros(columns * rows, dtype=np.uint32)
        if len(filled):
            level = np.log1p(counts[filled].astype(np.float32))
            alpha = 0.45 + 0.55 * level / max(float(level.max()), 1e-6)
            alpha *= ((binned[filled] >> 24) & 0xFF) / 255.0
            out[filled] = _premultiply(binned[filled], alpha)
        image = _image(out.reshape(rows, columns))
        return image, QRectF(0, 0, columns * step, rows * step)  # drawn scaled up by ``step``

    def _symbols(self, index, sx, sy, ox, oy, width, height, ratio) -> tuple[QImage, QRectF]:
        image = QImage(width, height, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        if len(index):
            index = self._layered(index)
            atlas, symbol_of_code, size = self._symbol_atlas(ratio)
            symbols = symbol_of_code[self.codes[index]]
            fragments = _Fragments(len(index))
            array = fragments.array
            array[:, 0] = self.x[index] * sx + ox
            array[:, 1] = self.y[index] * sy + oy
            array[:, 2] = (symbols % ATLAS_COLUMNS) * size
            array[:, 3] = (symbols // ATLAS_COLUMNS) * size
            array[:, 4:6] = size
            array[:, 6:8] = 1.0
            array[:, 8] = 0.0
            array[:, 9] = 1.0
            painter = QPainter(image)
            fragments.draw(painter, atlas)
            painter.end()
        return image, QRectF(0, 0, width, height)

    def _symbol_atlas(self, ratio: float) -> tuple[QPixmap, np.ndarray, int]:
        """One antialiased disc per distinct colour of the lookup table, in a grid."""
        key = (ratio, self.symbol_px, self.lut.tobytes())
        if self._atlas is not None and self._atlas[0] == key:
            return self._atlas[1], self._atlas[2], self._atlas[3]
        distinct, symbol_of_code = np.unique(self.lut, return_inverse=True)
        size = math.ceil(self.symbol_px * ratio) + 2
        rows = math.ceil(len(distinct) / ATLAS_COLUMNS)
        atlas = QPixmap(ATLAS_COLUMNS * size, rows * size)
        atlas.fill(Qt.GlobalColor.transparent)
        painter = QPainter(atlas)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        diameter = self.symbol_px * ratio
        for number, value in enumerate(distinct):
            colour = QColor.fromRgba(int(value))
            edge = QColor(colour)
            edge.setAlpha(255)
            painter.setPen(QPen(edge.darker(135), max(1.0, ratio * 0.8)))
            fill = QColor(colour)
            fill.setAlpha(min(colour.alpha(), 215))
            painter.setBrush(fill)
            left = (number % ATLAS_COLUMNS) * size + (size - diameter) / 2
            top = (number // ATLAS_COLUMNS) * size + (size - diameter) / 2
            painter.drawEllipse(QRectF(left, top, diameter, diameter))
        painter.end()
        symbol_of_code = symbol_of_code.astype(np.int64).reshape(-1)
        self._atlas = (key, atlas, symbol_of_code, size)
        return atlas, symbol_of_code, size

    # ------------------------------------------------------------------ picking
    def nearest(self, x: float, y: float, radius_px: float = 8.0) -> int | None:
        """The shown point nearest to data point ``(x, y)`` within ``radius_px`` screen pixels."""
        view = self.getViewBox()
        if view is None or not len(self.x):
            return None
        width, height = view.viewPixelSize()
        if not width or not height:
            return None
        rx, ry = radius_px * width, radius_px * height
        mask = (np.abs(self.x - x) <= rx) & (np.abs(self.y - y) <= ry)
        shown = self.visible_mask()
        if shown is not None:
            mask &= shown
        index = np.flatnonzero(mask)
        if not len(index):
            return None
        distance = ((self.x[index] - x) / width) ** 2 + ((self.y[index] - y) / height) ** 2
        if self.background.any():  # prefer a foreground point: it is drawn on top
            distance = distance + self.background[self.codes[index]] * 1e-3
        best = int(np.argmin(distance))
        return int(index[best]) if distance[best] <= radius_px**2 + 1e-3 else None

    def inside_rect(self, rect: QRectF) -> np.ndarray:
        """Indices of the shown points inside ``rect`` (data coordinates, edges included)."""
        rect = rect.normalized()
        mask = (
            (self.x >= rect.left()) & (self.x <= rect.right())
            & (self.y >= rect.top()) & (self.y <= rect.bottom())
        )  # fmt: skip
        shown = self.visible_mask()
        if shown is not None:
            mask &= shown
        return np.flatnonzero(mask)

    def inside_polygon(self, points: list[QPointF] | np.ndarray) -> np.ndarray:
        """Indices of the shown points inside the closed polygon ``points`` (data coordinates)."""
        vertices = np.asarray(
            [(p.x(), p.y()) for p in points] if not isinstance(points, np.ndarray) else points,
            dtype=np.float64,
        )
        if len(vertices) < 3:
            return np.empty(0, dtype=np.int64)
        (left, bottom), (right, top) = vertices.min(axis=0), vertices.max(axis=0)
        candidates = self.inside_rect(QRectF(left, bottom, right - left, top - bottom))
        if not len(candidates):
            return candidates
        from matplotlib.path import Path  # C++ point-in-polygon; no pyplot, no backend

        coords = np.column_stack([self.x[candidates], self.y[candidates]]).astype(np.float64)
        inside = Path(np.vstack([vertices, vertices[:1]]), closed=True).contains_points(coords)
        return candidates[inside]


def _premultiply(colours: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """``0xAARRGGBB`` colours with opacity ``alpha`` (0..1), premultiplied for QImage."""
    a = np.clip(alpha, 0.0, 1.0)
    red = (((colours >> 16) & 0xFF) * a).astype(np.uint32)
    green = (((colours >> 8) & 0xFF) * a).astype(np.uint32)
    blue = ((colours & 0xFF) * a).astype(np.uint32)
    return (np.round(a * 255).astype(np.uint32) << 24) | (red << 16) | (green << 8) | blue


def _image(pixels: np.ndarray) -> QImage:
    """A QImage that owns a copy of ``pixels`` (rows x columns of premultiplied ARGB32)."""
    pixels = np.ascontiguousarray(pixels, dtype=np.uint32)
    rows, columns = pixels.shape
    view = QImage(
        pixels.data, columns, rows, columns * 4, QImage.Format.Format_ARGB32_Premultiplied
    )
    return view.copy()


class _Fragments:
    """``QPainter.PixmapFragment`` records backed by one NumPy array (10 doubles each)."""

    def __init__(self, count: int) -> None:
        try:
            from pyqtgraph.Qt.internals import PrimitiveArray
        except ImportError:  # pragma: no cover - pyqtgraph < 0.13
            PrimitiveArray = None
        if PrimitiveArray is not None:
            self._primitive = PrimitiveArray(QPainter.PixmapFragment, 10)
            self._primitive.resize(count)
            self.array = self._primitive.ndarray()
        else:  # pragma: no cover
            self._primitive = None
            self.array = np.zeros((count, 10), dtype=np.float64)

    def draw(self, painter: QPainter, atlas: QPixmap) -> None:
        if self._primitive is not None:
            painter.drawPixmapFragments(*self._primitive.drawargs(), atlas)
            return
        fragments = [  # pragma: no cover - slow path
            QPainter.PixmapFragment.create(QPointF(r[0], r[1]), QRectF(r[2], r[3], r[4], r[5]))
            for r in self.array
        ]
        painter.drawPixmapFragments(fragments, atlas)  # pragma: no cover
