"""Built-in views on a small real project: the charts hold the right data; the renderer draws
every kind without pyplot."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.conftest import write_jsonl
from tests.core._planted import N_ROWS, planted_dataset, planted_vectors, write_set
from vendiscope.core.clusters.jobs import cluster_dataset
from vendiscope.core.io.importing import import_dataset
from vendiscope.core.maps.jobs import map_dataset
from vendiscope.core.metrics.algorithms import vendi
from vendiscope.core.metrics.scoring import score_dataset
from vendiscope.core.neighbors.search import clear_index_cache, find_near_duplicates
from vendiscope.core.plugin_host import View, default_registry
from vendiscope.core.plugin_host.charts import validate_chart
from vendiscope.core.selection.job import select_dataset
from vendiscope.core.store import subsets, vectors
from vendiscope.core.store.project import Project
from vendiscope.core.view_data import data as viewdata
from vendiscope.core.view_data.render import render_chart

VIEWS = ("map", "cluster-coverage", "selection-curves", "spectrum", "composition", "coverage",
         "near-duplicates")  # fmt: skip
NEAR_GROUPS = ([10, 11, 12, 13], [20, 21])
BENCH_COVERED, BENCH_RANDOM = 30, 10


def build_audited(folder: Path) -> Path:
    """A project with every piece of an audit: dataset ``pool`` (978 records in 20 planted
    clusters, 4 sources, gradients and embeddings, two near-duplicate groups), its scores,
    clusters, a PCA map, near-duplicates and two selections; and ``bench`` (40 records, 30
    close to pool records, 10 random) with comparable embeddings."""
    location = folder / "audit.vscope"
    with Project.create(location) as project:
        planted_dataset(project, folder)
        emb, _ = planted_vectors(dim=32, seed=3)
        for group in NEAR_GROUPS:
            emb[group[1:]] = emb[group[0]]
        write_set(project, "pool", "emb", emb, kind="embedding")
        score_dataset(project, "pool", metric="gvendi")
        score_dataset(project, "pool", metric="vendi")
        cluster_dataset(project, "pool", n_clusters=20, seed=0)
        map_dataset(project, "pool", method="pca")
        find_near_duplicates(project, "pool", "emb", threshold=0.99)
        select_dataset(project, "pool", method="random", k=100, params={"seed": 1})
        select_dataset(project, "pool", method="greedy-vendi", k=60)
        rows = [{"question": f"bench question {i}", "answer": str(i)} for i in range(40)]
        import_dataset(project, write_jsonl(folder / "bench.jsonl", rows), name="bench")
        rng = np.random.default_rng(5)
        bench = np.vstack([
            emb[100 : 100 + BENCH_COVERED] + 1e-3 * rng.standard_normal((BENCH_COVERED, 32)),
            rng.standard_normal((BENCH_RANDOM, 32)),
        ]).astype(np.float32)  # fmt: skip
        write_set(project, "bench", "emb", bench, kind="embedding")
    clear_index_cache()
    return location


@pytest.fixture(scope="module")
def audited(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_audited(tmp_path_factory.mktemp("audited"))


@pytest.fixture
def project(audited: Path) -> Any:
    with Project.open(audited) as opened:
        yield opened


def build(project: Project, name: str, data: dict[str, Any] | None = None, **params: Any) -> Any:
    chart = (
        default_registry()
        .create("view", name, **params)
        .build(data or {"project": project, "dataset": "pool"})
    )
    validate_chart(chart)
    json.dumps(chart, allow_nan=False)
    return chart


# ----------------------------------------------------------------------------- every view
@pytest.mark.slow
def test_every_builtin_view_gives_a_valid_chart_that_renders(project: Project) -> None:
    registry = default_registry()
    assert set(VIEWS) <= {c.name for c in registry.contributions("view")}
    for name in VIEWS:
        chart = build(project, name, {"project": project, "dataset": "pool", "target": "bench"})
        png = render_chart(chart, "png", width=400, height=300)
        svg = render_chart(chart, "svg", width=400, height=300)
        assert png.startswith(b"\x89PNG\r\n\x1a\n"), name
        assert b"<svg" in svg[:600], name


def test_every_builtin_view_builds_from_the_view_data_alone(project: Project) -> None:
    """No built-in view reads the project: given only ``view_data`` (no ``"project"``), each
    draws the same chart as with the full ``data`` of the app."""
    for name in VIEWS:
        full = viewdata.ViewInput(project, "pool", target="bench")
        alone = {"view_data": viewdata.ProjectViewData(project, "pool", target="bench")}
        chart = build(project, name, alone)
        assert chart == build(project, name, full), name
    with pytest.raises(ValueError, match="data\\['view_data'\\] must be a ViewData"):
        build(project, "map", {"view_data": object()})


# ----------------------------------------------------------------------------- map
def test_map_coloured_by_cluster_source_score_and_subset(project: Project) -> None:
    info = viewdata.map_set(project, "pool")
    coords = vectors.load(project, "pool", info.name)
    run = viewdata.cluster_run(project, "pool")
    labels = viewdata.cluster_labels(project, "pool", run)

    chart = build(project, "map", color_by="cluster")
    (series,) = chart["series"]
    assert chart["kind"] == "scatter" and chart["x_label"] == "PCA 1"
    assert series["index"] == list(range(N_ROWS))
    assert np.allclose(series["x"], coords[:, 0], atol=1e-4)
    assert np.allclose(series["y"], coords[:, 1], atol=1e-4)
    assert series["category"] == [f"cluster {c}" for c in labels]
    counts = {c: series["category"].count(f"cluster {c}") for c in range(20)}
    assert [counts[c] for c in range(20)] == run.result["sizes"]

    sparse = set(run.result["sparse"])
    chart = build(project, "map", color_by="sparse")
    in_sparse = chart["series"][0]["category"].count("sparse cluster")
    assert in_sparse == sum(run.result["sizes"][c] for c in sparse) == run.result[
        "records_in_sparse_clusters"]  # fmt: skip

    chart = build(project, "map", color_by="source")
    sources = viewdata.record_sources(project, "pool")
    assert chart["series"][0]["category"] == sources
    assert {s: sources.count(s) for s in set(sources)} == project.stats("pool")["sources"]

    score_set = viewdata.score_set(project, "pool")
    chart = build(project, "map", color_by="score")
    column = vectors.load(project, "pool", score_set.name)[:, 0]
    assert np.allclose(chart["series"][0]["color"], column, atol=1e-6)

    chart = build(project, "map", color_by="subset", subset="random-100")
    members = subsets.members(project, "pool", "random-100").positions
    category = chart["series"][0]["category"]
    assert category.count("random-100") == 100 and category.count("(not in subset)") == N_ROWS - 100
    assert {i for i, c in enumerate(category) if c == "random-100"} == set(members)
    # the default subset is the latest selection's
    chart = build(project, "map", color_by="subset")
    assert chart["series"][0]["category"].count("greedy-vendi-60") == 60


def test_map_samples_large_sets_and_says_so(project: Project) -> None:
    coords = vectors.load(project, "pool", viewdata.map_set(project, "pool").name)
    chart = build(project, "map", color_by="none", max_points=200, seed=3)
    (series,) = chart["series"]
    index = series["index"]
    assert len(index) == 200 == len(set(index)) and index == sorted(index)
    assert np.allclose(series["x"], coords[index, 0], atol=1e-4)
    assert "200 of 978 records shown" in chart["title"]
    assert build(project, "map", color_by="none", max_points=200, seed=3) == chart
    with pytest.raises(ValueError, match="color_by must be one of"):
        build(project, "map", color_by="rainbow")


# ----------------------------------------------------------------------------- clusters
def test_cluster_coverage_bars_are_shares_of_dataset_and_subset(project: Project) -> None:
    run = viewdata.cluster_run(project, "pool")
    sizes = np.asarray(run.result["sizes"])
    sparse = set(run.result["sparse"])
    labels = viewdata.cluster_labels(project, "pool", run)
    members = subsets.members(project, "pool", "random-100").positions

    chart = build(project, "cluster-coverage", subset="random-100")
    full, subset = chart["series"]
    order = np.argsort(-sizes, kind="stable")
    assert full["x"] == [f"{c}*" if c in sparse else str(c) for c in order]
    assert np.allclose(full["y"], sizes[order] / N_ROWS, atol=1e-6)
    counts = np.bincount(labels[members], minlength=len(sizes))
    assert np.allclose(subset["y"], counts[order] / 100, atol=1e-6)
    assert sum(x.endswith("*") for x in full["x"]) == len(sparse) > 0
    reached = int((counts > 0).sum())
    assert f"{reached} of 20 clusters reached" in chart["title"]
    assert f"({int((counts[sorted(sparse)] > 0).sum())} of {len(sparse)} sparse)" in chart["title"]

    chart = build(project, "cluster-coverage", subset="random-100", measure="count",
                  max_clusters=5)  # fmt: skip
    full, subset = chart["series"]
    assert len(full["x"]) == 5 and full["y"][0] == int(sizes.max())
    assert full["y"][-1] == int(sizes.min()) and "5 of 20 clusters shown" in chart["title"]
    assert sum(subset["y"]) <= 100


def test_cluster_table_matches_the_planted_structure(project: Project) -> None:
    table = viewdata.cluster_table(project, "pool", "greedy-vendi-60")
    assert table["n_clusters"] == 20 and table["records"] == N_ROWS
    labels = viewdata.cluster_labels(project, "pool", viewdata.cluster_run(project, "pool"))
    assert table["sizes"] == np.bincount(labels, minlength=20).tolist()
    assert table["median_size"] == float(np.median(table["sizes"]))
    assert table["sparse"] == [c for c in range(20) if table["sizes"][c] < table["median_size"]]
    members = subsets.members(project, "pool", "greedy-vendi-60").positions
    counts = np.bincount(labels[members], minlength=20)
    assert table["subset_size"] == 60 and table["subset_counts"] == counts.tolist()
    assert table["clusters_reached"] == int((counts > 0).sum())
    assert table["subset_in_sparse"] == int(counts[table["sparse"]].sum())
    examples = viewdata.sparse_cluster_examples(project, "pool", limit=3)
    assert len(examples) == 3 and all(e["cluster"] in table["sparse"] for e in examples)
    assert [e["size"] for e in examples] == sorted(e["size"] for e in examples)
    assert all("of cluster" in r["text"] for e in examples for r in e["records"])


# ----------------------------------------------------------------------------- selections
def test_selection_curves_hold_each_runs_curve_and_the_random_baseline(project: Project) -> None:
    runs = [r for r in project.runs("pool") if r.kind == "selection"]
    chart = build(project, "selection-curves")
    assert chart["kind"] == "line" and chart["y_label"] == "G-Vendi"
    by_name = {s["name"]: s for s in chart["series"]}
    for run in runs:
        curve = run.result["curve"]
        series = by_name[f"{run.result['method']} (k={run.result['k']}, run {run.id})"]
        assert series["x"] == curve["budgets"] and series["x"][-1] == run.result["k"]
        assert series["y"] == pytest.approx(curve["vendi"]["gradients/planted"])
        assert series["y"][-1] == pytest.approx(run.result["vendi"]["gradients/planted"])
    widest = max(runs, key=lambda r: r.result["k"])
    assert by_name["(random)"]["y"] == pytest.approx(
        widest.result["curve"]["random"]["gradients/planted"]
    )
    greedy = next(s for n, s in by_name.items() if n.startswith("greedy-vendi"))
    random_run = next(s for n, s in by_name.items() if n.startswith("random ("))
    assert greedy["y"][-1] > random_run["y"][-1]  # greedy Vendi beats random at k = 60 vs 100
    chart = build(project, "selection-curves", vector_set="emb")
    assert chart["y_label"] == "embedding-Vendi"
    with pytest.raises(ValueError, match="no selection run measured vector set 'nope'"):
        build(project, "selection-curves", vector_set="nope")


# ----------------------------------------------------------------------------- scores
def test_spectrum_is_the_stored_top_eigenvalues(project: Project) -> None:
    chart = build(project, "spectrum")
    gradient, embedding = chart["series"]
    g_run = viewdata.score_run(project, "pool", "gvendi")
    top = g_run.result["details"]["spectrum_top"]
    shown = [v for v in top if round(v, 8) > 0]  # beyond the rank: zero, not drawn in log
    assert gradient["y"] == pytest.approx(shown, abs=1e-8) and gradient["x"][:3] == [1, 2, 3]
    assert chart["y_log"] is True and len(gradient["y"]) <= 16  # 16-dimensional rows
    assert sum(gradient["y"]) <= 1 + 1e-6 and gradient["y"] == sorted(gradient["y"], reverse=True)
    matrix = vectors.load(project, "pool", "gradients/planted")
    assert gradient["y"][:16] == pytest.approx(vendi.vendi_spectrum(matrix)[:16].tolist(), abs=1e-6)
    assert embedding["name"].startswith("embedding-Vendi")
    assert f"G-Vendi {g_run.result['value']:,.1f} of 978 records" in chart["title"]
    cumulative = build(project, "spectrum", metric="gvendi", cumulative=True, top=10)
    (series,) = cumulative["series"]
    assert series["y"] == pytest.approx(np.cumsum(top[:10]).tolist(), abs=1e-8)
    assert "y_log" not in cumulative


def test_composition_and_source_contributions_match_brute_force(project: Project) -> None:
    matrix = vectors.load(project, "pool", "gradients/planted")
    sources = np.asarray(viewdata.record_sources(project, "pool"))
    whole = vendi.vendi_score(matrix)
    chart = build(project, "composition")
    own, added = chart["series"]
    run = viewdata.score_run(project, "pool", "gvendi")
    counts = project.stats("pool")["sources"]
    assert own["x"] == sorted(counts, key=lambda s: (-counts[s], s))
    for i, source in enumerate(own["x"]):
        alone = vendi.vendi_score(matrix[sources == source])
        without = vendi.vendi_score(matrix[sources != source])
        assert own["y"][i] == pytest.approx(run.result["per_source"][source]["value"], abs=1e-4)
        assert own["y"][i] == pytest.approx(alone, rel=1e-4)
        assert added["y"][i] == pytest.approx(whole - without, abs=1e-3)
        assert own["label"][i].startswith(f"{counts[source]:,} records")
    table = viewdata.source_table(project, "pool")
    assert table["contribution_basis"] == "gvendi" and table["whole"] == pytest.approx(whole)
    assert sum(r["records"] for r in table["sources"]) == N_ROWS
    assert all(r["vendi"] is not None for r in table["sources"])
    chart = build(project, "composition", metric="vendi", records=True, max_sources=2)
    assert [s["name"] for s in chart["series"]][-1] == "records"
    assert chart["series"][-1]["y"] == sorted(counts.values(), reverse=True)[:2]


# ----------------------------------------------------------------------------- coverage
def test_coverage_of_a_target_matches_brute_force(project: Project) -> None:
    train = vectors.load(project, "pool", "emb")
    target = vectors.load(project, "bench", "emb")
    unit = lambda m: m / np.linalg.norm(m, axis=1, keepdims=True)  # noqa: E731
    nearest = (unit(target) @ unit(train).T).max(axis=1)
    expected = float((nearest >= 0.8).mean())
    assert expected == BENCH_COVERED / (BENCH_COVERED + BENCH_RANDOM)

    data = {"project": project, "dataset": "pool", "target": "bench"}
    chart = build(project, "coverage", data)
    covered, marker = chart["series"]
    at = covered["x"].index(0.8) if 0.8 in covered["x"] else None
    assert marker["name"] == "(radius 0.8)" and marker["y"] == [0.0, pytest.approx(expected)]
    assert at is not None and covered["y"][at] == pytest.approx(expected)
    assert covered["y"][-1] <= covered["y"][0] and f"{expected:.1%} of 40 records" in chart["title"]
    for r, c in zip(covered["x"], covered["y"], strict=True):
        assert c == pytest.approx(float((nearest >= r - 1e-9).mean()), abs=1 / 40)

    chart = build(project, "coverage", data, show="uncovered", max_items=5)
    (bars,) = chart["series"]
    worst = np.argsort(nearest)[:5]
    assert [int(x.split()[0][1:]) for x in bars["x"]] == worst.tolist()
    assert bars["y"] == pytest.approx(nearest[worst].tolist(), abs=1e-4)
    assert "5 of the 10 with no record" in chart["title"]
    with pytest.raises(ValueError, match="needs a target dataset"):
        build(project, "coverage")


def test_near_duplicate_groups(project: Project) -> None:
    chart = build(project, "near-duplicates")
    (series,) = chart["series"]
    assert series["x"] == ["2", "3", "4"] and series["y"] == [1, 0, 1]
    assert "2 groups, 4 redundant records" in chart["title"]
    chart = build(project, "near-duplicates", show="largest")
    (series,) = chart["series"]
    assert series["y"] == [4, 2]
    assert series["x"][0].startswith("#10 question 10") and series["x"][1].startswith("#20 ")


# ----------------------------------------------------------------------------- missing
def test_views_name_the_command_for_what_is_missing(tmp_path: Path) -> None:
    with Project.create(tmp_path / "bare.vscope") as bare:
        planted_dataset(bare, tmp_path)
        expected = {
            "map": "vendiscope map", "cluster-coverage": "vendiscope clusters",
            "selection-curves": "vendiscope select", "spectrum": "vendiscope score",
            "composition": "vendiscope score", "near-duplicates": "vendiscope near-dups",
        }  # fmt: skip
        for name, command in expected.items():
            with pytest.raises(viewdata.NotComputed, match=command) as caught:
                build(bare, name)
            assert str(bare.location) in caught.value.command
        with pytest.raises(viewdata.NotComputed, match="vendiscope embed"):
            build(bare, "coverage", {"project": bare, "dataset": "pool", "target": "pool"})
        with pytest.raises(viewdata.NotComputed, match=r"vendiscope score .* --metric vendi"):
            viewdata.score_summary(bare, "pool", "vendi")  # no embeddings: embed first
        with pytest.raises(ValueError, match="data\\['project'\\] must be an open Project"):
            build(bare, "map", {"dataset": "pool"})


# ----------------------------------------------------------------------------- view data
class ScoreHistogram(View):
    """A third-party view written against the generic keys only."""

    def __init__(self, bins: int = 10) -> None:
        self.bins = bins

    def build(self, data: dict[str, Any]) -> dict[str, Any]:
        scores = np.asarray(data["scores"], dtype=np.float64)
        return {"kind": "histogram", "title": data["title"], "bins": self.bins,
                "series": [{"name": "score", "values": scores.tolist()}]}  # fmt: skip


def test_view_data_loads_the_generic_keys_only_when_read(project: Project) -> None:
    data = viewdata.ViewData(project, "pool")
    assert {"project", "dataset", "vectors", "scores", "labels", "positions", "title"} <= set(data)
    assert dict.__getitem__(data, "vectors") is viewdata.ViewData._LAZY  # not loaded yet
    assert data["vectors"].shape == (N_ROWS, 16)  # the set every job uses: gradients first
    assert data.get("positions").tolist() == list(range(N_ROWS))
    assert data["labels"] == viewdata.record_sources(project, "pool")
    chart = ScoreHistogram().build(data)
    validate_chart(chart)
    score = viewdata.score_set(project, "pool")
    assert chart["series"][0]["values"] == pytest.approx(
        vectors.load(project, "pool", score.name)[:, 0].tolist()
    )
    copied = {**data}
    assert copied["title"] == "pool" and not any(v is viewdata.ViewData._LAZY
                                                 for v in copied.values())  # fmt: skip
    picked = viewdata.ViewData(project, "pool", vector_set="gradients/planted")
    assert picked["vectors"].shape == (N_ROWS, 16)


# ----------------------------------------------------------------------------- renderer
def chart_of(kind: str, **series: Any) -> dict[str, Any]:
    return {"kind": kind, "title": "t", "series": [{"name": "s", **series}]}


@pytest.mark.slow
def test_renderer_draws_every_kind_and_hostile_text_literally() -> None:
    rng = np.random.default_rng(0)
    charts = [
        chart_of("scatter", x=[0.0, 1.0, 2.0], y=[1.0, 0.0, 1.0], category=["a", "b", "(c)"]),
        chart_of("scatter", x=[0.0, 1.0], y=[1.0, 0.0], color=[0.5, 2.0]),
        chart_of("line", x=[1, 2, 3], y=[1.0, 2.0, 2.5]),
        chart_of("bar", x=["$x^2$", "a_b", "<script>alert(1)</script>"], y=[1.0, 2.0, -1.0]),
        {**chart_of("histogram", values=rng.normal(size=100).tolist()), "bins": 7},
        chart_of("heatmap", z=[[1.0, 2.0], [3.0, 4.0]], x=["a", "b"], y=["c", "d"]),
        chart_of("bar", x=[], y=[]),  # nothing to draw: "no data"
        {"kind": "line", "title": "$\\frac{1}{0}$ $ unbalanced", "x_label": "a $ b",
         "series": [{"name": "$$", "x": [], "y": []}]},
    ]  # fmt: skip
    for chart in charts:
        assert render_chart(chart, "png", width=320, height=240).startswith(b"\x89PNG")
        assert b"<svg" in render_chart(chart, "svg", width=320, height=240)[:600]
    svg = render_chart(charts[3], "svg")
    assert b"<script" not in svg  # SVG text is drawn as paths; nothing executable
    assert render_chart(charts[2], "svg") == render_chart(charts[2], "svg")  # deterministic
    with pytest.raises(ValueError, match=r"chart\.kind"):
        render_chart({"kind": "pie", "title": "t", "series": [{}]})
    with pytest.raises(ValueError, match="format must be one of png, svg"):
        render_chart(charts[2], "gif")


def test_many_points_and_categories_are_rasterised() -> None:
    # how long this takes depends on the machine: timed in tests/benchmarks/bench_render.py
    rng = np.random.default_rng(1)
    n = 50_000
    chart = chart_of("scatter", x=rng.normal(size=n).tolist(), y=rng.normal(size=n).tolist(),
                     category=[f"cluster {i % 5000}" for i in range(n)])  # fmt: skip
    svg = render_chart(chart, "svg")
    assert b"<image" in svg and len(svg) < 2_000_000  # points embedded as one image


@pytest.mark.slow
def test_rendering_leaves_pyplot_and_the_backend_alone() -> None:
    code = (
        "import sys, matplotlib; raw = lambda: dict.__getitem__(matplotlib.rcParams, 'backend');"
        "before = raw(); from vendiscope.core.view_data.render import render_chart;"
        "c = {'kind': 'line', 'title': 't', 'series': [{'name': 's', 'x': [1, 2], 'y': [3, 4]}]};"
        "render_chart(c, 'png'); render_chart(c, 'svg');"
        "assert 'matplotlib.pyplot' not in sys.modules, 'pyplot imported';"
        "assert raw() is before, 'backend changed';"
        "matplotlib.use('Agg'); render_chart(c, 'png'); print('ok')"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr
