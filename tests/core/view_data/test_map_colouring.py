"""One default colouring for every map (the app's, ``vendiscope view map``'s), drawn with a
legend that names the groups and colours that never repeat."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.core._planted import planted_dataset, planted_vectors, write_set
from tests.core.view_data._readable import cut_texts, drawn, legend_colours
from vendiscope.core.clusters.jobs import cluster_dataset
from vendiscope.core.store.project import Project
from vendiscope.core.view_data.build import build_view
from vendiscope.core.view_data.colouring import DISTINCT_COLOURS, default_map_colour
from vendiscope.core.view_data.render import PALETTE, save_chart


@pytest.mark.parametrize(
    ("has_sources", "clusters", "expected"),
    [(True, 40, "source"), (False, 12, "cluster"), (False, 40, "sparse"), (False, 0, "none")],
)
def test_the_default_colouring(has_sources: bool, clusters: int, expected: str) -> None:
    assert default_map_colour(has_sources=has_sources, clusters=clusters) == expected
    assert len(PALETTE) == DISTINCT_COLOURS


@pytest.mark.slow
def test_a_map_of_40_clusters_names_its_groups_in_distinct_colours(tmp_path: Path) -> None:
    with Project.create(tmp_path / "m.vscope") as project:
        planted_dataset(project, tmp_path)  # 978 records, sources c0-c3
        cluster_dataset(project, "pool", n_clusters=40, seed=0)
        rows, _ = planted_vectors()
        write_set(project, "pool", "map/pca/planted", rows[:, :2].copy(), kind="projection")
        default = build_view(project, "map", "pool").chart  # what `vendiscope view map` draws
        clusters = build_view(project, "map", "pool", {"color_by": "cluster"}).chart
    assert default["title"].endswith("coloured by source")
    assert set(default["series"][0]["category"]) == {"c0", "c1", "c2", "c3"}
    save_chart(default, tmp_path / "map.png")
    figure, renderer, _ = drawn(default, 900, 560, 100)  # `view map`'s image size
    assert cut_texts(figure, renderer) == []
    colours = legend_colours(figure)
    assert {label.split(" (")[0] for label in colours} == {"c0", "c1", "c2", "c3"}
    assert len(set(colours.values())) == 4

    groups = len(set(clusters["series"][0]["category"]))
    assert groups > DISTINCT_COLOURS
    save_chart(clusters, tmp_path / "clusters.svg")
    figure, renderer, _ = drawn(clusters, 900, 560, 100)
    assert cut_texts(figure, renderer) == []
    legend = figure.axes[0].get_legend()
    assert legend.get_title().get_text() == f"largest {DISTINCT_COLOURS} of {groups} in colour"
    colours = legend_colours(figure)
    *named, other = colours
    assert all(label.startswith("cluster ") for label in named)
    assert other.startswith(f"{groups - DISTINCT_COLOURS} smaller, in grey")
    assert len(set(colours.values())) == DISTINCT_COLOURS + 1  # no colour stands for two groups
