"""The report's Studies section on a real project with two real studies (see
:func:`tests.core.view_data.test_study_view.studied`): the note, the verdict, the evidence per
metric as the analysis has it, the pilot, a scatter per metric (HTML and JSON); how to run a
study when the dataset has none."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.core.report.test_report import assert_self_contained_and_inert, parse
from tests.core.view_data.test_study_view import studied
from vendiscope.api import validate_chart
from vendiscope.core.plugin_host import PluginRegistry
from vendiscope.core.report.build import write_report
from vendiscope.core.store.project import Project
from vendiscope.core.studies.algorithms.chart import study_note, subset_rows
from vendiscope.core.view_data.reader import ProjectViewData

pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture(scope="module")
def location(
    tmp_path_factory: pytest.TempPathFactory, synthesis_pool: Path, tiny_lm: Path,
    one_torch_thread: None,
) -> Path:  # fmt: skip
    return studied(tmp_path_factory.mktemp("study-report"), synthesis_pool, tiny_lm)


@pytest.fixture
def project(location: Path) -> Iterator[Project]:
    with Project.open(location) as opened:
        yield opened


def words(page: Any) -> str:
    """The page's text, one space between words (tags split it into pieces)."""
    return " ".join(" ".join(page.text).split())


def spearman_text(found: dict[str, Any]) -> str:
    low, high = found["spearman_ci"]
    return f"{found['spearman']:.2f} [{low:.2f}, {high:.2f}]"


@pytest.mark.slow
def test_the_html_report_shows_each_study_with_its_evidence(
    project: Project, tmp_path: Path
) -> None:
    page = write_report(project, "pool", tmp_path / "pool.html", contributions=False)
    first, second = ProjectViewData(project, "pool").study_runs()
    expected = [f"study-{r['run_id']}-{m}" for r in (first, second) for m in ("g-vendi", "ngram")]
    assert [c for c in page.charts if c.startswith("study-")] == expected
    html = page.destination.read_text(encoding="utf-8")
    text = words(assert_self_contained_and_inert(html))
    assert "<h2>Studies</h2>" in html
    for run in (first, second):
        result, name = run["result"], run["params"]["name"]
        assert (
            f"Study {name} (run {run['run_id']}): pool → target {run['params']['target']}" in text
        )
        assert study_note(result, "complete") in text
        analysis = result["analysis"]["improvement"]
        assert analysis["verdict"] in text
        for found in analysis["evidence"]:  # the evidence table's numbers, as analysed
            assert spearman_text(found) in text and f"{found['kendall']:.2f}" in text
    assert "Spearman [95% CI]" in text and "Kendall" in text
    assert f"Pilot: {first['result']['pilot']['detail']}" in text
    ordinary = first["result"]["analysis_ordinary"]["improvement"]  # without the control
    lead = "Without the duplicate-heavy controls (low diversity by construction, they lift"
    assert f"{lead} every metric): {ordinary['verdict']}" in text
    assert "Target accuracy:" in text  # the second target has checkable answers
    assert second["result"]["analysis"]["accuracy_gain"]["verdict"] in text
    alts = [v for t, n, v in parse(html).attributes if t == "img" and n == "alt"]
    assert sum("Spearman" in a for a in alts) == 4  # a scatter per study and metric
    assert all(m["section"] != "studies" for m in page.missing)
    assert {first["run_id"], second["run_id"]} <= set(page.numbers["runs"])


def test_the_json_report_holds_the_same_numbers(project: Project, tmp_path: Path) -> None:
    out = write_report(project, "held-out", tmp_path / "held-out.json")
    numbers = json.loads(out.destination.read_text(encoding="utf-8"))
    (run,) = ProjectViewData(project, "held-out").study_runs()
    result = run["result"]
    (study,) = numbers["studies"]
    assert (study["run_id"], study["name"], study["pool"], study["target"]) == (
        run["run_id"], "study-1", "pool", "held-out")  # fmt: skip
    assert (study["runs_done"], study["runs_total"], study["stopped"]) == (10, 10, "done")
    analysis = result["analysis"]["improvement"]
    assert study["verdict"] == analysis["verdict"] and study["best"] == analysis["best"]
    assert [e["metric"] for e in study["evidence"]] == [e["metric"] for e in analysis["evidence"]]
    for row, found in zip(study["evidence"], analysis["evidence"], strict=True):
        for key in ("n", "spearman", "spearman_ci", "spearman_p", "kendall", "kendall_p"):
            assert row[key] == found[key], key
    assert study["pilot"]["detail"] == result["pilot"]["detail"] and study["pilot"]["forced"]
    ordinary = result["analysis_ordinary"]["improvement"]
    assert study["ordinary"]["verdict"] == ordinary["verdict"]
    assert [e["spearman"] for e in study["ordinary"]["evidence"]] == [
        e["spearman"] for e in ordinary["evidence"]
    ]
    assert study["accuracy"] is None  # no checkable answers in this target
    assert study["metrics"] == {"g-vendi": "G-Vendi", "ngram": "n-gram diversity"}
    assert study["subsets"] == json.loads(json.dumps(subset_rows(result)))
    assert study["note"] == study_note(result, "complete")
    for metric, chart in study["charts"].items():
        validate_chart(chart)
        assert sum(len(s["x"]) for s in chart["series"]) == 5, metric
    assert not [m for m in numbers["missing"] if m["section"] == "studies"]


def test_a_dataset_without_a_study_has_no_studies_section(project: Project, tmp_path: Path) -> None:
    """As with synthesis: a study is hours of training, not a step every audit misses."""
    out = write_report(project, "other", tmp_path / "other.json")
    numbers = json.loads(out.destination.read_text(encoding="utf-8"))
    assert numbers["studies"] == []
    assert not [m for m in numbers["missing"] if m["section"] == "studies"]
    page = write_report(project, "other", tmp_path / "other.html")
    text = words(parse(page.destination.read_text(encoding="utf-8")))
    assert "Studies" not in text
    assert not [c for c in page.charts if c.startswith("study-")]


def test_the_report_draws_the_scatters_without_the_view(project: Project, tmp_path: Path) -> None:
    bare = PluginRegistry()  # no views at all: the same charts, from the same function
    page = write_report(project, "sums", tmp_path / "bare.html", registry=bare, images="svg")
    (run,) = ProjectViewData(project, "sums").study_runs()
    assert page.charts == [f"study-{run['run_id']}-{m}" for m in ("g-vendi", "ngram")]
    html = page.destination.read_text(encoding="utf-8")
    assert html.count('<img src="data:image/svg+xml;base64,') == 2
