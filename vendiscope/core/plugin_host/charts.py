"""Chart descriptions: what a view plugin returns — Qt-free, plain, JSON-serialisable data.

A :class:`~vendiscope.core.plugin_host.View` computes a chart description; the GUI draws it
interactively and reports render it to an image, so a plugin author never touches Qt or
matplotlib. A description is a ``dict`` of strings, numbers and lists (convert NumPy arrays
with ``.tolist()``); the ``TypedDict`` classes below document it for type checkers and
:func:`validate_chart` checks it at run time.

Schema, version 1
-----------------
Every chart::

    {
        "kind": "scatter",        # or "bar", "line", "histogram", "heatmap"
        "title": "Map of the dataset",
        "x_label": "UMAP 1",      # optional (default "")
        "y_log": False,           # optional: a logarithmic y axis (line and scatter; y > 0)
        "y_label": "UMAP 2",      # optional (default "")
        "series": [...],          # one or more; their fields depend on the kind
        "version": 1,             # optional
    }

Series, by kind. Arrays are lists; those of one series have the same length.

``scatter`` (the map)
    ``name``, ``x``, ``y`` (numbers); optional per-point ``color`` (numbers, drawn on a colour
    scale), ``category`` (strings, one colour each), ``label`` (strings, shown on hover) and
    ``index`` (record positions, so a selection on the map leads back to records).
``line``
    ``name``, ``x``, ``y`` (numbers, in drawing order); optional ``label``.
``bar``
    ``name``, ``x`` (category strings), ``y`` (numbers); optional ``label``. Several series
    are drawn as grouped bars.
``histogram``
    ``name``, ``values`` (numbers); the chart may set ``bins`` (an integer >= 1, default 30).
``heatmap``
    Exactly one series: ``name``, ``z`` (rows of numbers, all of one length); optional ``x``
    (column names) and ``y`` (row names).

Numbers are finite ``int`` or ``float`` values (``bool`` is not a number here). Unknown keys
are refused, so a misspelt ``"xlabel"`` is caught instead of silently ignored.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any, Literal, TypedDict

CHART_SCHEMA_VERSION = 1
CHART_KINDS = ("scatter", "bar", "line", "histogram", "heatmap")
DEFAULT_BINS = 30

ChartKind = Literal["scatter", "bar", "line", "histogram", "heatmap"]


class _XY(TypedDict):
    name: str
    x: list[float]
    y: list[float]


class ScatterSeries(_XY, total=False):
    """Points of the map; optional per-point colour value, category, hover label, record."""

    color: list[float]
    category: list[str]
    label: list[str]
    index: list[int]


class LineSeries(_XY, total=False):
    """A polyline through ``(x[i], y[i])`` in list order."""

    label: list[str]


class _Bars(TypedDict):
    name: str
    x: list[str]
    y: list[float]


class BarSeries(_Bars, total=False):
    """One bar per category; series with the same categories are grouped."""

    label: list[str]


class HistogramSeries(TypedDict):
    """Raw values; the renderer bins them (``Chart["bins"]`` bins)."""

    name: str
    values: list[float]


class _Grid(TypedDict):
    name: str
    z: list[list[float]]


class HeatmapSeries(_Grid, total=False):
    """A grid of values ``z[row][column]`` with optional column (``x``) and row (``y``) names."""

    x: list[str]
    y: list[str]


Series = ScatterSeries | LineSeries | BarSeries | HistogramSeries | HeatmapSeries


class _ChartBase(TypedDict):
    kind: ChartKind
    title: str
    series: list[Any]


class Chart(_ChartBase, total=False):
    """A chart description (see the module docstring for the fields of each kind)."""

    x_label: str
    y_label: str
    y_log: bool
    bins: int
    version: int


# field -> "num" | "str" | "int" (non-negative) | "grid"; required fields of each series kind
_SERIES_FIELDS: dict[str, tuple[dict[str, str], dict[str, str]]] = {
    "scatter": (
        {"name": "name", "x": "num", "y": "num"},
        {"color": "num", "category": "str", "label": "str", "index": "int"},
    ),
    "line": ({"name": "name", "x": "num", "y": "num"}, {"label": "str"}),
    "bar": ({"name": "name", "x": "str", "y": "num"}, {"label": "str"}),
    "histogram": ({"name": "name", "values": "num"}, {}),
    "heatmap": ({"name": "name", "z": "grid"}, {"x": "str", "y": "str"}),
}
_CHART_FIELDS = {"kind", "title", "x_label", "y_label", "y_log", "series", "version", "bins"}
_WHAT = {"num": "numbers", "str": "strings", "int": "record positions (integers >= 0)"}


def validate_chart(chart: Any) -> None:
    """Check a chart description against the schema; raise ``ValueError`` naming the bad field.

    Examples of messages: ``"chart.kind: expected one of 'scatter', ..., got 'pie'"``,
    ``"chart.series[0].y: has 9 values but x has 10"``.
    """
    if not isinstance(chart, Mapping):
        raise ValueError(f"chart: expected a dict, got {type(chart).__name__}")
    _no_unknown(chart, _CHART_FIELDS, "chart")
    kind = chart.get("kind")
    if kind not in CHART_KINDS:
        raise ValueError(
            f"chart.kind: expected one of {', '.join(map(repr, CHART_KINDS))}, got {kind!r}"
        )
    if not isinstance(chart.get("title"), str):
        raise ValueError(f"chart.title: expected a string, got {chart.get('title')!r}")
    for key in ("x_label", "y_label"):
        if key in chart and not isinstance(chart[key], str):
            raise ValueError(f"chart.{key}: expected a string, got {chart[key]!r}")
    if "y_log" in chart:
        if not isinstance(chart["y_log"], bool):
            raise ValueError(f"chart.y_log: expected true or false, got {chart['y_log']!r}")
        if chart["y_log"] and kind not in ("line", "scatter"):
            raise ValueError(
                f"chart.y_log: only a line or scatter chart has a log scale, not a {kind}"
            )
        if chart["y_log"] and any(
            isinstance(v, int | float) and v <= 0
            for item in chart.get("series") or ()
            if isinstance(item, Mapping) and isinstance(item.get("y"), list | tuple)
            for v in item["y"]
        ):
            raise ValueError("chart.y_log: a log scale needs every y value > 0")
    version = chart.get("version", CHART_SCHEMA_VERSION)
    if version != CHART_SCHEMA_VERSION or isinstance(version, bool):
        raise ValueError(f"chart.version: this Vendiscope reads version 1, got {version!r}")
    if "bins" in chart:
        bins = chart["bins"]
        if kind != "histogram":
            raise ValueError(f"chart.bins: only a histogram has bins, not a {kind}")
        if isinstance(bins, bool) or not isinstance(bins, int) or bins < 1:
            raise ValueError(f"chart.bins: expected an integer >= 1, got {bins!r}")
    series = chart.get("series")
    if not isinstance(series, (list, tuple)) or not series:
        raise ValueError(f"chart.series: expected a non-empty list of series, got {series!r}")
    if kind == "heatmap" and len(series) != 1:
        raise ValueError(f"chart.series: a heatmap has exactly one series, got {len(series)}")
    for number, item in enumerate(series):
        _check_series(kind, item, f"chart.series[{number}]")
    try:
        json.dumps(chart, allow_nan=False)
    except (TypeError, ValueError) as exc:  # pragma: no cover - the checks above catch these
        raise ValueError(f"chart: not JSON-serialisable: {exc}") from None


def _check_series(kind: str, series: Any, where: str) -> None:
    if not isinstance(series, Mapping):
        raise ValueError(f"{where}: expected a dict, got {type(series).__name__}")
    required, optional = _SERIES_FIELDS[kind]
    _no_unknown(series, {*required, *optional}, where)
    lengths: dict[str, int] = {}
    for key, what in {**required, **optional}.items():
        if key not in series:
            if key in required:
                raise ValueError(
                    f"{where}.{key}: missing (a {kind} series needs {_list(required)})"
                )
            continue
        value = series[key]
        if what == "name":
            if not isinstance(value, str):
                raise ValueError(f"{where}.name: expected a string, got {value!r}")
        elif what == "grid":
            lengths.update(_check_grid(value, f"{where}.z"))
        else:
            _check_array(value, what, f"{where}.{key}")
            lengths[key] = len(value)
    if kind == "heatmap":
        for key, axis in (("x", "columns"), ("y", "rows")):
            if key in series and lengths[key] != lengths[axis]:
                raise ValueError(
                    f"{where}.{key}: has {lengths[key]} names but z has {lengths[axis]} {axis}"
                )
        return
    first = "values" if kind == "histogram" else "x"
    for key, length in lengths.items():
        if length != lengths[first]:
            raise ValueError(f"{where}.{key}: has {length} values but {first} has {lengths[first]}")


def _check_array(value: Any, what: str, where: str) -> None:
    if not isinstance(value, (list, tuple)):
        hint = " (use .tolist())" if hasattr(value, "tolist") else ""
        raise ValueError(
            f"{where}: expected a list of {_WHAT[what]}, got {type(value).__name__}{hint}"
        )
    for position, item in enumerate(value):
        if not _is(item, what):
            raise ValueError(f"{where}[{position}]: expected one of {_WHAT[what]}, got {item!r}")


def _check_grid(value: Any, where: str) -> dict[str, int]:
    if not isinstance(value, (list, tuple)) or not value:
        raise ValueError(f"{where}: expected a non-empty list of rows of numbers, got {value!r}")
    width = None
    for row_number, row in enumerate(value):
        _check_array(row, "num", f"{where}[{row_number}]")
        if width is None:
            width = len(row)
        elif len(row) != width:
            raise ValueError(f"{where}[{row_number}]: has {len(row)} values, row 0 has {width}")
    return {"rows": len(value), "columns": width or 0}


def _is(item: Any, what: str) -> bool:
    if what == "str":
        return isinstance(item, str)
    if isinstance(item, bool):
        return False
    if what == "int":
        return isinstance(item, int) and item >= 0
    return isinstance(item, (int, float)) and math.isfinite(item)


def _no_unknown(mapping: Mapping[str, Any], allowed: set[str], where: str) -> None:
    unknown = sorted(str(k) for k in mapping if k not in allowed)
    if unknown:
        raise ValueError(
            f"{where}.{unknown[0]}: unknown field (allowed: {', '.join(sorted(allowed))})"
        )


def _list(fields: Sequence[str] | Mapping[str, str]) -> str:
    return ", ".join(fields)


__all__ = [
    "CHART_KINDS",
    "CHART_SCHEMA_VERSION",
    "DEFAULT_BINS",
    "BarSeries",
    "Chart",
    "ChartKind",
    "HeatmapSeries",
    "HistogramSeries",
    "LineSeries",
    "ScatterSeries",
    "Series",
    "validate_chart",
]
