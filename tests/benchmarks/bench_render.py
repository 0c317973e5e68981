"""Render a 50,000-point, 5,000-category scatter (the case of
``tests/core/view_data/test_views.py::test_many_points_and_categories_are_rasterised``) to SVG and
PNG
with ``vendiscope.core.view_data.render.render_chart``, against the same points drawn by a plain
matplotlib ``Figure.scatter`` to SVG without rasterising, in the same run (median of
``--repeats``, the two in alternating order). Target: the SVG under 20 s (it used to be a
timed assertion in the test; timings depend on the machine, so they are measured here).

    .venv/bin/python tests/benchmarks/bench_render.py [--points 50000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.benchmarks._common import save


def chart(points: int, seed: int = 1) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    return {
        "kind": "scatter",
        "title": "t",
        "series": [
            {
                "name": "s",
                "x": rng.normal(size=points).tolist(),
                "y": rng.normal(size=points).tolist(),
                "category": [f"cluster {i % 5000}" for i in range(points)],
            }
        ],
    }


def plain_matplotlib_svg(data: dict[str, Any]) -> bytes:
    """The reference: every point an SVG path, no rasterising."""
    from matplotlib.figure import Figure

    series = data["series"][0]
    codes = np.unique(series["category"], return_inverse=True)[1]
    figure = Figure(figsize=(8, 6), dpi=100)
    axes = figure.add_subplot()
    axes.scatter(series["x"], series["y"], c=codes, s=4, linewidths=0, cmap="tab20")
    out = io.BytesIO()
    figure.savefig(out, format="svg")
    return out.getvalue()


def timed(fn: Any) -> tuple[float, int]:
    started = time.perf_counter()
    out = fn()
    return time.perf_counter() - started, len(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--points", type=int, default=50_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    from vendiscope.core.view_data.render import render_chart

    data = chart(args.points)
    runs: dict[str, Any] = {
        "vendiscope_svg": lambda: render_chart(data, "svg"),
        "vendiscope_png": lambda: render_chart(data, "png"),
        "matplotlib_vector_svg": lambda: plain_matplotlib_svg(data),
    }
    samples: dict[str, list[float]] = {name: [] for name in runs}
    sizes: dict[str, int] = {}
    for repeat in range(args.repeats):
        names = list(runs) if repeat % 2 == 0 else list(runs)[::-1]
        for name in names:
            seconds, size = timed(runs[name])
            samples[name].append(seconds)
            sizes[name] = size
            print(f"  {name}: {seconds:.2f} s, {size / 1e6:.2f} MB", flush=True)
    median = {name: statistics.median(values) for name, values in samples.items()}
    results = {
        "points": args.points,
        "repeats": args.repeats,
        "seconds": median,
        "bytes": sizes,
        "svg_under_20_s": median["vendiscope_svg"] < 20,
        "ratio_svg_seconds_over_matplotlib_vector": (
            median["vendiscope_svg"] / median["matplotlib_vector_svg"]
        ),
        "ratio_svg_bytes_over_matplotlib_vector": (
            sizes["vendiscope_svg"] / sizes["matplotlib_vector_svg"]
        ),
    }
    print(results)
    print(f"saved {save('render', results)}")


if __name__ == "__main__":
    main()
