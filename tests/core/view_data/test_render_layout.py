"""What a reader sees in a rendered chart: no text or legend cut at the image's edge, every
legend entry findable on the plot, colours never repeated silently."""

from __future__ import annotations

import numpy as np
import pytest

from tests.core.view_data._readable import cut_texts, drawn, hidden_entries, legend_colours
from vendiscope.core.view_data.render import OTHER, PALETTE

LONG = [f"source_{i}_with_a_rather_long_descriptive_name" for i in range(8)]
COMPOSITION = {
    "kind": "bar",
    "title": "Composition of pool by source: G-Vendi 7.0 of 978 records, and more words "
    "so that the title takes three lines of the image",
    "x_label": "source",
    "y_label": "effective number of distinct examples",
    "series": [
        {"name": "G-Vendi of the source alone", "x": LONG, "y": [2.6, 2.8, 2.9, 3.4] * 2},
        {"name": "contribution to the whole", "x": LONG, "y": [0.7, 1.2, 0.9, 1.4] * 2},
    ],
}


@pytest.mark.slow
def test_long_labels_and_tall_legends_stay_inside_the_image() -> None:
    rng = np.random.default_rng(0)
    sources = [f"source-{i}" for i in rng.integers(0, 12, 1500)]
    scatter = {"kind": "scatter", "title": "Map of pool (UMAP), coloured by source",
               "x_label": "UMAP 1", "y_label": "UMAP 2",
               "series": [{"name": "pool", "x": rng.random(1500).tolist(),
                           "y": rng.random(1500).tolist(), "category": sources}]}  # fmt: skip
    lines = {"kind": "line", "title": "Diversity vs budget", "x_label": "budget b",
             "y_label": "effective number of distinct examples by meaning",
             "series": [{"name": f"greedy-vendi on a vector set with a long name (run {i})",
                         "x": [1, 2, 3], "y": [1.0, 2.0 + i, 3.0 + i]}
                        for i in range(9)]}  # fmt: skip
    for chart, (width, height, dpi) in [
        (COMPOSITION, (900, 520, 150)),  # the report's charts: 900 x 520 at 150 dpi
        (COMPOSITION, (900, 380, 150)),
        (scatter, (900, 380, 150)),
        (lines, (700, 360, 100)),
    ]:
        figure, renderer, pixels = drawn(chart, width, height, dpi)
        assert cut_texts(figure, renderer) == [], (chart["title"], height)
        assert figure.axes[0].get_legend() is not None
        assert hidden_entries(figure, pixels) == [] if chart["kind"] != "scatter" else True


def test_a_reference_line_that_a_series_follows_stays_visible() -> None:
    same = {"x": [1, 2, 3, 5, 8], "y": [1.0, 1.9, 2.5, 3.1, 3.3]}
    chart = {"kind": "line", "title": "Diversity vs budget", "x_label": "b", "y_label": "G-Vendi",
             "series": [{"name": "random (k=8, run 7)", **same},
                        {"name": "greedy-vendi (k=8, run 8)", "x": same["x"],
                         "y": [1.0, 2.0, 3.0, 4.6, 7.0]},
                        {"name": "(random)", **same}]}  # fmt: skip
    figure, _, pixels = drawn(chart, 900, 520, 150)
    assert hidden_entries(figure, pixels) == []
    labels = list(legend_colours(figure))
    assert labels[0] == "random (k=8, run 7), same as (random)"


def test_more_groups_than_colours_keep_distinct_colours_and_say_so() -> None:
    rng = np.random.default_rng(1)
    clusters = [f"cluster {c}" for c in rng.integers(0, 40, 4000)]
    chart = {"kind": "scatter", "title": "Map of pool (PCA), coloured by cluster (40 clusters)",
             "x_label": "PCA 1", "y_label": "PCA 2",
             "series": [{"name": "pool", "x": rng.random(4000).tolist(),
                         "y": rng.random(4000).tolist(), "category": clusters}]}  # fmt: skip
    figure, renderer, _ = drawn(chart, 900, 520, 150)
    assert cut_texts(figure, renderer) == []
    legend = figure.axes[0].get_legend()
    assert legend.get_title().get_text() == f"largest {len(PALETTE)} of 40 in colour"
    colours = legend_colours(figure)
    assert len(colours) == len(PALETTE) + 1
    *named, other = colours
    assert other.startswith("28 smaller, in grey")
    assert len({colours[n] for n in named}) == len(PALETTE)  # no colour twice
    drawn_colours = {tuple(np.round(c[:3], 3)) for a in figure.axes[0].collections
                     for c in a.get_facecolor()}  # fmt: skip
    assert len(drawn_colours) == len(PALETTE) + 1
    assert tuple(np.round(np.asarray(colours[other]), 3)) == tuple(
        np.round([int(OTHER[i : i + 2], 16) / 255 for i in (1, 3, 5)], 3)
    )
