"""The chart description schema: valid charts of every kind pass, each mistake is named."""

from __future__ import annotations

import copy
import json
from typing import Any

import numpy as np
import pytest

from vendiscope.api import CHART_KINDS, validate_chart

VALID: dict[str, dict[str, Any]] = {
    "scatter": {
        "kind": "scatter",
        "title": "Map",
        "x_label": "UMAP 1",
        "y_label": "UMAP 2",
        "version": 1,
        "series": [
            {
                "name": "records",
                "x": [0.0, 1.5, 2],
                "y": [1.0, 0.5, -3],
                "color": [0.1, 0.2, 0.3],
                "category": ["a", "b", "a"],
                "label": ["first", "second", "third"],
                "index": [0, 5, 9],
            }
        ],
    },
    "line": {
        "kind": "line",
        "title": "Diversity vs budget",
        "series": [
            {"name": "greedy", "x": [1, 2, 3], "y": [1.0, 1.9, 2.7]},
            {"name": "(random)", "x": [1, 2], "y": [1.0, 1.5], "label": ["k=1", "k=2"]},
        ],
    },
    "bar": {
        "kind": "bar",
        "title": "By source",
        "series": [{"name": "Vendi", "x": ["math", "code"], "y": [3.5, 2.0]}],
    },
    "histogram": {
        "kind": "histogram",
        "title": "Scores",
        "bins": 10,
        "series": [{"name": "leverage", "values": [0.1, 0.5, 0.9]}],
    },
    "heatmap": {
        "kind": "heatmap",
        "title": "Similarity",
        "series": [
            {"name": "cosine", "z": [[1.0, 0.2], [0.2, 1.0]], "x": ["a", "b"], "y": ["a", "b"]}
        ],
    },
}


@pytest.mark.parametrize("kind", CHART_KINDS)
def test_a_valid_chart_of_each_kind(kind: str) -> None:
    chart = VALID[kind]
    validate_chart(chart)
    assert json.loads(json.dumps(chart)) == chart


def _with(kind: str, path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    chart = copy.deepcopy(VALID[kind])
    target: Any = chart
    for key in path[:-1]:
        target = target[key]
    if value is KeyError:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return chart


@pytest.mark.parametrize(
    ("chart", "message"),
    [
        ([], "chart: expected a dict, got list"),
        (_with("bar", ("kind",), "pie"), "chart.kind: expected one of 'scatter'"),
        (_with("bar", ("title",), None), "chart.title: expected a string"),
        (_with("bar", ("xlabel",), "oops"), "chart.xlabel: unknown field"),
        (_with("bar", ("series",), []), "chart.series: expected a non-empty list"),
        (_with("bar", ("bins",), 5), "chart.bins: only a histogram has bins"),
        (_with("histogram", ("bins",), 0), "chart.bins: expected an integer >= 1"),
        (_with("bar", ("version",), 2), "chart.version: this Vendiscope reads version 1"),
        (_with("bar", ("y_log",), True), "chart.y_log: only a line or scatter chart"),
        (_with("line", ("y_log",), "yes"), "chart.y_log: expected true or false"),
        (_with("scatter", ("series", 0, "y", 1), float("nan")), r"chart.series\[0\].y\[1\]"),
        (_with("scatter", ("series", 0, "y"), [1.0, 2.0]), r"series\[0\].y: has 2 values but x"),
        (_with("scatter", ("series", 0, "index", 0), -1), r"series\[0\].index\[0\]"),
        (_with("scatter", ("series", 0, "x"), np.zeros(3)), r"\(use .tolist\(\)\)"),
        (_with("scatter", ("series", 0, "x", 0), True), r"series\[0\].x\[0\]: expected one"),
        (_with("line", ("series", 1, "y"), KeyError), r"series\[1\].y: missing"),
        (_with("bar", ("series", 0, "x", 0), 3), r"series\[0\].x\[0\]: expected one of strings"),
        (_with("histogram", ("series", 0, "colour"), "red"), r"series\[0\].colour: unknown"),
        (_with("heatmap", ("series", 0, "z", 1), [1.0]), r"z\[1\]: has 1 values, row 0 has 2"),
        (_with("heatmap", ("series", 0, "x"), ["a"]), r"series\[0\].x: has 1 names but z has 2"),
        (_with("heatmap", ("series",), [{"name": "a", "z": [[1]]}] * 2), "exactly one series"),
    ],
)
def test_mistakes_are_named(chart: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        validate_chart(chart)


def test_a_log_scale_needs_positive_values() -> None:
    chart = _with("line", ("y_log",), True)
    validate_chart(chart)
    chart["series"][0]["y"][0] = 0.0
    with pytest.raises(ValueError, match="every y value > 0"):
        validate_chart(chart)
