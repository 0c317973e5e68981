"""The report's charts come from the registry's views through the one view builder; the
view data it can hand them answers from the numbers the report already gathered."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.core.view_data._readable import cut_texts, drawn, hidden_entries
from tests.core.view_data.test_views import build_audited
from vendiscope.core.base.errors import PluginRuntimeError
from vendiscope.core.plugin_host import default_registry
from vendiscope.core.report.build import audit_charts, audit_numbers
from vendiscope.core.report.charts import GatheredViewData
from vendiscope.core.report.html import CHART_SIZE
from vendiscope.core.store.project import Project
from vendiscope.core.view_data import build as views_build
from vendiscope.core.view_data.data import ViewInput

SECTIONS = {"sources", "spectrum", "map", "clusters", "near-duplicates", "coverage",
            "selections", "selection-map"}  # fmt: skip


@pytest.fixture(scope="module")
def audited(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_audited(tmp_path_factory.mktemp("charts"))


@pytest.fixture
def project(audited: Path) -> Any:
    with Project.open(audited) as opened:
        yield opened


def test_every_chart_goes_through_the_view_builder(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    numbers = audit_numbers(project, "pool", target="bench")
    built: list[tuple[str, dict[str, Any], str | None]] = []
    real = views_build.build_view

    def spy(project: Project, view: str, dataset: str, params: Any = None, **kw: Any) -> Any:
        built.append((view, dict(params or {}), kw.get("target")))
        if view == "spectrum":
            raise PluginRuntimeError("view 'spectrum' (plugin 'acme') failed in build: boom",
                                     kind="view", name="spectrum", plugin="acme")  # fmt: skip
        return real(project, view, dataset, params, **kw)

    monkeypatch.setattr(views_build, "build_view", spy)
    charts = audit_charts(project, "pool", numbers)
    assert set(charts) == SECTIONS - {"spectrum"}
    views = [v for v, _, _ in built]
    assert views == ["composition", "spectrum", "map", "cluster-coverage", "near-duplicates",
                     "coverage", "selection-curves", "map"]  # fmt: skip
    coverage = next((p, t) for v, p, t in built if v == "coverage")
    assert coverage[1] == "bench" and coverage[0]["radius"] == numbers["coverage"]["radius"]
    failed = [m for m in numbers["missing"] if m["section"] == "spectrum"]
    message = "view 'spectrum' (plugin 'acme') failed in build: boom"
    assert failed == [
        {"section": "spectrum", "what": "the spectrum chart", "command": None, "message": message}
    ]


def build(project: Project, view: str, data: GatheredViewData, **params: Any) -> dict[str, Any]:
    given = ViewInput(project, "pool", target=data.target)
    given["view_data"] = data
    registry = default_registry()
    chart = registry.create("view", view, **params).build(given)
    return registry.check_result("view", view, chart)


def test_gathered_view_data_reuses_the_coverage_run(project: Project) -> None:
    numbers = audit_numbers(project, "pool", target="bench")
    runs = len(project.runs("pool"))
    cov = numbers["coverage"]
    gathered = GatheredViewData(project, "pool", numbers, target="bench")
    chart = build(project, "coverage", gathered, radius=cov["radius"],
                  vector_set=cov["train_vector_set"])  # fmt: skip
    assert len(project.runs("pool")) == runs  # no second coverage run
    fresh = views_build.build_view(project, "coverage", "pool", target="bench").chart
    assert chart == fresh
    assert len(project.runs("pool")) == runs + 1
    other = build(project, "coverage", gathered, radius=0.5)  # not what was gathered: computed
    assert other["title"] != chart["title"] and len(project.runs("pool")) == runs + 2


def test_gathered_view_data_keeps_the_reports_contributions(project: Project) -> None:
    quick = audit_numbers(project, "pool", contributions=False)
    chart = build(project, "composition", GatheredViewData(project, "pool", quick, target=None),
                  metric="gvendi")  # fmt: skip
    assert [s["name"] for s in chart["series"]] == ["G-Vendi of the source alone"]
    full = audit_numbers(project, "pool")
    both = build(project, "composition", GatheredViewData(project, "pool", full, target=None),
                 metric="gvendi")  # fmt: skip
    fresh = views_build.build_view(project, "composition", "pool", {"metric": "gvendi"}).chart
    assert both == fresh and len(both["series"]) == 2


@pytest.mark.slow
def test_the_reports_charts_show_every_label_and_legend_entry(project: Project) -> None:
    """Drawn as the report draws them (900 x 520 at 150 dpi): no text cut at the image's
    edge, every legend entry's line or bar on the plot (a reference that a run follows
    included)."""
    numbers = audit_numbers(project, "pool", target="bench")
    charts = audit_charts(project, "pool", numbers)
    assert "selections" in charts
    for section, chart in charts.items():
        figure, renderer, pixels = drawn(chart, *CHART_SIZE, 150)
        assert cut_texts(figure, renderer) == [], section
        if chart["kind"] in ("line", "bar"):
            assert hidden_entries(figure, pixels) == [], section
