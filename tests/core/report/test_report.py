"""The audit report: the numbers of the project's runs, self-contained HTML, hostile text
escaped, missing pieces named, written atomically."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.conftest import write_jsonl
from tests.core._planted import N_ROWS, planted_dataset, write_set
from tests.core.view_data.test_views import BENCH_COVERED, BENCH_RANDOM, build_audited
from vendiscope.core.base.errors import ExportError, ProjectError
from vendiscope.core.io.importing import import_dataset
from vendiscope.core.metrics.scoring import score_dataset
from vendiscope.core.neighbors.search import clear_index_cache, find_near_duplicates
from vendiscope.core.plugin_host.params import ParamError
from vendiscope.core.report.build import audit_numbers, write_report
from vendiscope.core.store.project import Project

HOSTILE = '<script>alert("pwned")</script>'
HOSTILE_ATTR = '"><img src=x onerror=alert(1)>'


class Page(HTMLParser):
    """Every tag and attribute of a page, for checking what a browser would do with it."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attributes: list[tuple[str, str, str]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes += [(tag, name, value or "") for name, value in attrs]

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def parse(html: str) -> Page:
    page = Page()
    page.feed(html)
    return page


def assert_self_contained_and_inert(html: str) -> Page:
    page = parse(html)
    assert "script" not in page.tags and "iframe" not in page.tags and "object" not in page.tags
    assert not [a for a in page.attributes if a[1].startswith("on")]  # no event handlers
    for tag, name, value in page.attributes:
        if name in ("src", "href"):
            assert tag == "img" and value.startswith("data:image/"), (tag, name, value[:40])
    assert not re.search(r"https?://", " ".join(v for _, n, v in page.attributes if n != "alt"))
    return page


@pytest.fixture(scope="module")
def audited(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_audited(tmp_path_factory.mktemp("report"))


@pytest.fixture
def project(audited: Path) -> Any:
    with Project.open(audited) as opened:
        yield opened


def test_numbers_come_from_the_runs(project: Project) -> None:
    numbers = audit_numbers(project, "pool", target="bench")
    runs = {r.id: r for r in project.runs("pool")}
    head = numbers["headline"]
    gvendi_run = runs[head["gvendi"]["run_id"]]
    assert head["gvendi"]["value"] == gvendi_run.result["value"]
    assert head["gvendi"]["vector_set"] == "gradients/planted"
    assert head["embedding_vendi"]["vector_set"] == "emb"
    assert head["effective_number"] == head["gvendi"]["value"]
    assert head["effective_fraction"] == pytest.approx(head["gvendi"]["value"] / N_ROWS)
    assert head["records"] == N_ROWS and head["exact_duplicates"] == 0
    assert head["near_duplicates"]["redundant"] == 4 and head["near_duplicates"]["groups"] == 2
    assert [g["size"] for g in numbers["near_duplicates"]["largest_groups"]] == [4, 2]
    sources = {r["source"]: r for r in numbers["sources"]["sources"]}
    assert {s: r["records"] for s, r in sources.items()} == project.stats("pool")["sources"]
    for name, row in sources.items():
        assert row["gvendi"] == pytest.approx(gvendi_run.result["per_source"][name]["value"])
    clusters = numbers["clusters"]
    cluster_run = runs[clusters["run_id"]]
    assert clusters["n_clusters"] == 20 and clusters["sparse_clusters"] == len(
        cluster_run.result["sparse"])  # fmt: skip
    assert clusters["records_in_sparse"] == cluster_run.result["records_in_sparse_clusters"]
    assert all(e["records"] for e in clusters["smallest_sparse"])
    coverage = numbers["coverage"]
    assert coverage["fraction"] == pytest.approx(BENCH_COVERED / (BENCH_COVERED + BENCH_RANDOM))
    assert coverage["uncovered_count"] == BENCH_RANDOM == len(coverage["least_covered"])
    assert {i["target"]["position"] for i in coverage["least_covered"]} == set(
        range(BENCH_COVERED, BENCH_COVERED + BENCH_RANDOM))  # fmt: skip
    selections = {s["method"]: s for s in numbers["selections"]}
    assert set(selections) == {"random", "greedy-vendi"}
    greedy = selections["greedy-vendi"]
    ratio = greedy["vendi"]["gradients/planted"] / greedy["random_vendi"]["gradients/planted"]
    assert greedy["vs_random"]["gradients/planted"] == pytest.approx(ratio)
    assert numbers["map"]["method"] == "pca" and numbers["missing"] == []
    assert set(numbers["runs"]) >= {gvendi_run.id, clusters["run_id"], coverage["run_id"]}
    json.dumps(numbers, allow_nan=False)


@pytest.mark.slow
def test_html_report_holds_the_numbers_and_charts(project: Project, tmp_path: Path) -> None:
    result = write_report(project, "pool", tmp_path / "audit.html", target="bench")
    html = result.destination.read_text(encoding="utf-8")
    page = assert_self_contained_and_inert(html)
    text = " ".join(page.text)
    head = result.numbers["headline"]
    assert f"{head['gvendi']['value']:,.1f}" in text
    assert f"{head['embedding_vendi']['value']:,.1f}" in text
    assert "978 records" in text and "exact duplicates" in text
    assert "2 groups at cosine ≥ 0.99" in text and "75.0%" in text  # 30 of 40 covered
    assert "greedy-vendi" in text and "random" in text and "bench question 39" in text
    sections = {"sources", "spectrum", "map", "clusters", "near-duplicates", "coverage",
                "selections", "selection-map"}  # fmt: skip
    assert set(result.charts) == sections
    images = [v for t, n, v in page.attributes if t == "img" and n == "src"]
    assert len(images) == len(sections)
    assert all(v.startswith("data:image/png;base64,iVBORw0KGgo") for v in images)
    assert "not computed" not in text
    stamp = result.numbers["generated_at"]  # ISO 8601 in the numbers; for people on the page
    flat = " ".join(text.split())
    assert re.search(r"generated \d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d UTC by", flat)
    assert not re.search(r"\d{4}-\d\d-\d\dT\d\d:\d\d", text)
    assert ("time", "datetime", stamp) in page.attributes

    svg = write_report(project, "pool", tmp_path / "audit-svg.html", images="svg")
    images = [v for t, n, v in parse(svg.destination.read_text()).attributes if n == "src"]
    assert images and all(v.startswith("data:image/svg+xml;base64,") for v in images)


@pytest.mark.slow
def test_json_report_has_the_same_numbers(project: Project, tmp_path: Path) -> None:
    result = write_report(project, "pool", tmp_path / "audit.json")
    assert result.format == "json" and result.charts == []
    loaded = json.loads(result.destination.read_text())
    again = audit_numbers(project, "pool")
    for key in ("headline", "sources", "clusters", "near_duplicates", "selections", "map"):
        assert loaded[key] == json.loads(json.dumps(again[key])), key
    forced = write_report(project, "pool", tmp_path / "audit.txt", format="json")
    assert json.loads(forced.destination.read_text())["dataset"] == "pool"
    quick = write_report(project, "pool", tmp_path / "quick.html", contributions=False)
    table = quick.numbers["sources"]
    assert table["contribution_basis"] is None and table["sources"][0]["gvendi"] is not None
    assert all(r["contribution"] is None for r in table["sources"])
    assert "sources" in quick.charts  # own scores still drawn, without contributions


@pytest.mark.slow
def test_hostile_text_is_escaped(tmp_path: Path) -> None:
    rows = [
        {"prompt": f"{HOSTILE} question {i}", "response": f"answer {HOSTILE_ATTR}",
         "source": "<b>bold source</b>" if i % 2 else "plain & simple"}
        for i in range(40)
    ]  # fmt: skip
    location = tmp_path / "hostile.vscope"
    with Project.create(location) as project:
        import_dataset(project, write_jsonl(tmp_path / "h.jsonl", rows), name="h")
        rng = np.random.default_rng(0)
        emb = rng.standard_normal((40, 8)).astype(np.float32)
        emb[1:4] = emb[0]  # a near-duplicate group of hostile records, listed in the report
        write_set(project, "h", "emb", emb, kind="embedding")
        score_dataset(project, "h", metric="vendi")
        find_near_duplicates(project, "h", "emb", threshold=0.99)
        result = write_report(project, "h", tmp_path / "h.html")
    clear_index_cache()
    html = result.destination.read_text(encoding="utf-8")
    page = assert_self_contained_and_inert(html)
    assert "<script" not in html.lower() and "<b>" not in html and "<img src=x" not in html
    text = " ".join(page.text)
    assert HOSTILE in text and "<b>bold source</b>" in text and "plain & simple" in text
    assert "&lt;script&gt;" in html and "&quot;&gt;&lt;img src=x onerror=alert(1)&gt;" in html
    assert "default-src 'none'" in html  # and a policy that would block scripts anyway


def test_missing_pieces_are_named_not_fatal(tmp_path: Path) -> None:
    with Project.create(tmp_path / "bare.vscope") as project:
        planted_dataset(project, tmp_path)  # gradients only: no score, clusters, map, ...
        result = write_report(project, "pool", tmp_path / "bare.html")
        numbers = result.numbers
    missing = {m["section"]: m for m in numbers["missing"]}
    assert {"headline", "near-duplicates", "clusters", "map", "selections"} <= set(missing)
    commands = " ".join(m["command"] for m in numbers["missing"])
    for command in ("vendiscope score", "vendiscope embed", "vendiscope near-dups",
                    "vendiscope clusters", "vendiscope map", "vendiscope select"):  # fmt: skip
        assert command in commands, command
    head = numbers["headline"]
    assert head["gvendi"] is None and head["effective_number"] is None
    assert head["records"] == N_ROWS and numbers["sources"]["sources"][0]["gvendi"] is None
    html = result.destination.read_text()
    text = " ".join(parse(html).text)
    assert text.count("not computed — run") >= 5
    assert "vendiscope clusters" in text and str(tmp_path / "bare.vscope") in text
    assert result.charts == []


def test_compute_runs_the_missing_cheap_steps(tmp_path: Path) -> None:
    with Project.create(tmp_path / "c.vscope") as project:
        planted_dataset(project, tmp_path)
        rng = np.random.default_rng(1)
        write_set(project, "pool", "emb", rng.standard_normal((N_ROWS, 8)).astype(np.float32),
                  kind="embedding")  # fmt: skip
        result = write_report(project, "pool", tmp_path / "c.json",
                              compute=("scores", "near-duplicates", "clusters"))  # fmt: skip
        kinds = [r.kind for r in project.runs("pool")]
        again = write_report(project, "pool", tmp_path / "c2.json", compute=("scores",))
    clear_index_cache()
    assert result.computed == ["score (G-Vendi)", "score (embedding-Vendi)", "near-duplicates",
                               "clusters"]  # fmt: skip
    assert kinds.count("metric") == 2 and "clusters" in kinds and "near-duplicates" in kinds
    assert result.numbers["headline"]["gvendi"] is not None
    assert result.numbers["clusters"] is not None
    assert again.computed == []  # nothing missing any more
    with pytest.raises(ProjectError, match="unknown step 'embed'"):
        write_report(project, "pool", tmp_path / "x.json", compute=("embed",))


@pytest.mark.slow
def test_written_atomically_and_never_over_an_existing_file(
    project: Project, tmp_path: Path
) -> None:
    destination = tmp_path / "a.html"
    destination.write_text("old")
    with pytest.raises(ExportError, match="already exists"):
        write_report(project, "pool", destination)
    assert destination.read_text() == "old"
    with pytest.raises(ParamError, match="images: expected one of 'png', 'svg', got 'gif'"):
        write_report(project, "pool", destination, force=True, images="gif")
    with pytest.raises(ProjectError, match="no dataset named 'nope'"):
        write_report(project, "pool", tmp_path / "b.html", target="nope")
    assert destination.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == [
        "a.html"]  # fmt: skip
    write_report(project, "pool", destination, force=True)
    assert destination.read_text().startswith("<!DOCTYPE html>")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.html"]  # no temporary left
