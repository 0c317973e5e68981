"""The synthesis curve on a real project: the pure chart and table of a run's result, the
runs as the view data reads them (from the pool and from the dataset a run wrote), the
``synthesis-curve`` view, and the report's Synthesis section (HTML and JSON)."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import qa_rows, write_jsonl
from vendiscope.api import API_VERSION, Contribution, NotComputed, PluginManifest, validate_chart
from vendiscope.core.io.importing import import_dataset
from vendiscope.core.plugin_host import PluginRegistry
from vendiscope.core.report.build import write_report
from vendiscope.core.store.project import Project
from vendiscope.core.store.runs import finish_run, start_run
from vendiscope.core.synthesis.algorithms.curve import (
    BASELINE,
    POOL,
    TITLE,
    X_LABEL,
    Y_LABEL,
    curve_note,
    curve_rows,
    synthesis_chart,
)
from vendiscope.core.synthesis.options import RUN_KIND, SynthesisOptions
from vendiscope.core.view_data.build import build_view
from vendiscope.core.view_data.reader import ProjectViewData
from vendiscope.plugins.views.synthesis import SynthesisCurveView

VIEW = "synthesis-curve"


def result(**changes: Any) -> dict[str, Any]:
    """A synthesis run's result as the job writes it after three rounds (the contract's
    shape); round 2 has no baseline (null)."""
    rounds = [
        {"round": 0, "prompts": 8, "generated": 8, "parsed": 7, "duplicates": 1, "accepted": 3,
         "rejected": 5, "reasons": {"dense cluster": 3, "no JSON object": 1, "near duplicate": 1},
         "accepted_total": 3, "generated_total": 6, "gvendi": 41.9, "baseline": 41.5,
         "reclustered": True, "seconds": 12.3},
        {"round": 1, "prompts": 8, "generated": 8, "parsed": 8, "duplicates": 0, "accepted": 4,
         "rejected": 4, "reasons": {"dense cluster": 4}, "accepted_total": 7,
         "generated_total": 14, "gvendi": 42.6, "baseline": 41.8, "reclustered": False,
         "seconds": 11.0},
        {"round": 2, "prompts": 8, "generated": 8, "parsed": 8, "duplicates": 0, "accepted": 8,
         "rejected": 0, "reasons": {}, "accepted_total": 15, "generated_total": 22,
         "gvendi": 43.4, "baseline": None, "reclustered": False, "seconds": 10.5},
    ]  # fmt: skip
    base = {
        "dataset": "pool", "name": "synth-1", "all": "synth-1-all", "filter": "sparse-cluster",
        "generator": "openai", "model": "gpt-4o-mini", "pool_rows": 12, "pool_gvendi": 41.2,
        "budget": 15, "rounds": rounds,
        "rejects": [{"round": 0, "reason": "no JSON object", "text": "Sure! Here is"}],
        "accepted": 15, "generated": 22, "gvendi": 43.4, "baseline": None, "stopped": "budget",
    }  # fmt: skip
    return {**base, **changes}


def record_run(project: Project, found: dict[str, Any], *, status: str = "complete") -> int:
    """A synthesis run recorded through the store, as the job records it."""
    pool, name = found["dataset"], found["name"]
    options = SynthesisOptions(generator="openai", budget=found["budget"], name=name)
    run_id = start_run(
        project, key=f"{RUN_KIND}:{pool}:{name}", kind=RUN_KIND, plugin="generator:openai",
        dataset_id=project.dataset(pool).id, packages=(),
        params={"dataset": pool, "name": name, "all": found["all"],
                "options": options.to_json()},
    )  # fmt: skip
    if status == "running":  # the job rewrites the result after every round
        finish_run(project, run_id, status="running", result=found)
    else:
        finish_run(project, run_id, status=status, result=found, seconds=1.0)
    return run_id


@pytest.fixture(scope="module")
def location(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("synthesis")
    where = folder / "audit.vscope"
    with Project.create(where) as project:
        for name, n in (("pool", 12), ("synth-1", 15), ("other", 5)):
            import_dataset(project, write_jsonl(folder / f"{name}.jsonl", qa_rows(n)), name=name)
        record_run(project, result(filter="gain", stopped=None), status="running")
        record_run(project, result())
    return where


@pytest.fixture
def project(location: Path) -> Iterator[Project]:
    with Project.open(location) as opened:
        yield opened


@pytest.fixture(scope="module")
def registry() -> PluginRegistry:
    """The installed plugins, with the synthesis view added where it is not registered yet."""
    found = PluginRegistry.discover(plugin_dir=None)
    if VIEW not in {c.name for c in found.contributions("view")}:
        target = f"{SynthesisCurveView.__module__}:{SynthesisCurveView.__name__}"
        found.add_manifest(PluginManifest(
            name="synthesis-test", api_version=API_VERSION,
            contributions=(Contribution("view", VIEW, target, "Synthesis curve"),),
        ))  # fmt: skip
    return found


# ----------------------------------------------------------------------------- the pure curve
def test_the_chart_draws_filtered_baseline_and_pool_lines() -> None:
    found = result()
    before = copy.deepcopy(found)
    chart = synthesis_chart(found)
    validate_chart(chart)
    json.dumps(chart, allow_nan=False)
    assert found == before  # the result is left unchanged
    filtered, baseline, pool = chart["series"]
    assert filtered["name"] == "with the filter (sparse-cluster)"
    assert filtered["x"] == [0, 3, 7, 15] and filtered["y"] == [41.2, 41.9, 42.6, 43.4]
    assert baseline["name"] == BASELINE
    assert baseline["x"] == [0, 3, 7] and baseline["y"] == [41.2, 41.5, 41.8]  # null skipped
    assert pool["name"] == POOL and pool["x"] == [0, 15] and pool["y"] == [41.2, 41.2]
    assert (chart["kind"], chart["x_label"], chart["y_label"]) == ("line", X_LABEL, Y_LABEL)
    assert chart["title"].startswith(TITLE)
    for words in ("15 of 22", "openai", "gpt-4o-mini", "stopped at the budget"):
        assert words in chart["title"]
    assert synthesis_chart(found, title="Mine")["title"].startswith("Mine — 15 of 22")


def test_the_chart_without_baseline_or_pool_value() -> None:
    rounds = [{**r, "baseline": None} for r in result()["rounds"]]
    chart = synthesis_chart(result(rounds=rounds, pool_gvendi=None, filter="none", stopped=None))
    validate_chart(chart)
    (only,) = chart["series"]
    assert only["name"] == "accepted generations (no filter)" and only["x"] == [3, 7, 15]
    assert chart["title"].endswith("; not finished")
    assert curve_note(result(stopped=None), status="running").endswith("; still running")


def test_a_result_without_rounds_is_a_clear_error() -> None:
    for bad in (result(rounds=[]), {"pool_gvendi": 41.2}):
        with pytest.raises(ValueError, match="no rounds yet"):
            synthesis_chart(bad)
        with pytest.raises(ValueError, match="no rounds yet"):
            curve_rows(bad)
    broken = result(rounds=[{"round": 0, "accepted_total": 3, "gvendi": "high"}])
    with pytest.raises(ValueError, match=r"rounds\[0\]\.gvendi"):
        synthesis_chart(broken)
    with pytest.raises(ValueError, match=r"rounds\[0\]\.accepted_total"):
        curve_rows(result(rounds=[{"gvendi": 1.0}]))
    with pytest.raises(ValueError, match="must be a synthesis run's result"):
        synthesis_chart(None)  # type: ignore[arg-type]


def test_the_rows_give_each_round_with_its_gain_and_reasons() -> None:
    rows = curve_rows(result())
    assert [r["round"] for r in rows] == [0, 1, 2]
    first = rows[0]
    assert (first["accepted"], first["accepted_total"], first["generated"]) == (3, 3, 8)
    assert first["generated_total"] == 6
    assert (first["gvendi"], first["baseline"]) == (41.9, 41.5)
    assert first["gain"] == pytest.approx(0.4)
    assert first["reasons"] == [
        {"reason": "dense cluster", "count": 3},
        {"reason": "near duplicate", "count": 1},
        {"reason": "no JSON object", "count": 1},
    ]
    assert rows[2]["baseline"] is None and rows[2]["gain"] is None and rows[2]["reasons"] == []
    json.dumps(rows, allow_nan=False)


# ----------------------------------------------------------------------------- view data
def test_the_runs_are_found_from_the_pool_and_from_the_dataset_they_wrote(
    project: Project,
) -> None:
    from_pool = ProjectViewData(project, "pool").synthesis_runs()
    from_synth = ProjectViewData(project, "synth-1").synthesis_runs()
    assert from_pool == from_synth
    running, complete = from_pool
    assert running["run_id"] < complete["run_id"]  # oldest first
    assert (running["status"], complete["status"]) == ("running", "complete")
    assert complete["params"]["name"] == "synth-1" and complete["params"]["dataset"] == "pool"
    assert complete["result"] == result() and running["result"]["filter"] == "gain"
    json.dumps(from_pool, allow_nan=False)  # plain data


def test_no_runs_names_the_synthesize_command(project: Project) -> None:
    with pytest.raises(NotComputed, match="vendiscope synthesize") as caught:
        ProjectViewData(project, "other").synthesis_runs()
    assert str(project.location) in caught.value.command and "other" in caught.value.command


# ----------------------------------------------------------------------------- the view
def test_the_view_draws_the_latest_run_or_the_one_asked(
    project: Project, registry: PluginRegistry
) -> None:
    runs = ProjectViewData(project, "pool").synthesis_runs()
    latest = build_view(project, VIEW, "synth-1", registry=registry).chart
    validate_chart(latest)
    assert latest["title"].startswith(f"{TITLE} (run {runs[-1]['run_id']})")
    assert latest["series"][0]["name"] == "with the filter (sparse-cluster)"
    first = build_view(project, VIEW, "pool", {"run": str(runs[0]["run_id"])},
                       registry=registry).chart  # fmt: skip
    assert first["series"][0]["name"] == "with the filter (gain)"
    assert first["title"].endswith("still running")
    with pytest.raises(ValueError, match="not a synthesis run of pool"):
        SynthesisCurveView(run=9999).build({"view_data": ProjectViewData(project, "pool")})
    with pytest.raises(NotComputed, match="vendiscope synthesize"):
        build_view(project, VIEW, "other", registry=registry)
    with pytest.raises(ValueError):
        SynthesisCurveView().build({})


# ----------------------------------------------------------------------------- the report
def test_the_report_has_a_synthesis_section_when_there_are_runs(
    project: Project, registry: PluginRegistry, tmp_path: Path
) -> None:
    page = write_report(project, "pool", tmp_path / "pool.html", registry=registry,
                        contributions=False)  # fmt: skip
    runs = ProjectViewData(project, "pool").synthesis_runs()
    assert page.charts[-2:] == [f"synthesis-{r['run_id']}" for r in runs]
    html = page.destination.read_text(encoding="utf-8")
    assert "<h2>Synthesis</h2>" in html
    assert "<th>top reject reasons</th>" in html and "dense cluster (3)" in html
    assert "+0.40" in html and "stopped at the budget" in html
    assert html.count('<img src="data:image/png;base64,') >= 2
    assert all(m["section"] != "synthesis" for m in page.missing)

    out = write_report(project, "synth-1", tmp_path / "synth.json", registry=registry)
    numbers = json.loads(out.destination.read_text(encoding="utf-8"))
    latest = numbers["synthesis"][-1]
    assert (latest["pool"], latest["name"], latest["stopped"]) == ("pool", "synth-1", "budget")
    assert latest["rounds"] == json.loads(json.dumps(curve_rows(result())))
    validate_chart(latest["chart"])
    assert {r["run_id"] for r in runs} <= set(numbers["runs"])


def test_the_report_has_no_synthesis_section_without_runs(
    project: Project, registry: PluginRegistry, tmp_path: Path
) -> None:
    page = write_report(project, "other", tmp_path / "other.html", registry=registry)
    html = page.destination.read_text(encoding="utf-8")
    assert "Synthesis</h2>" not in html and not [c for c in page.charts if "synthesis" in c]
    assert all(m["section"] != "synthesis" for m in page.missing)
    out = write_report(project, "other", tmp_path / "other.json", registry=registry)
    assert json.loads(out.destination.read_text(encoding="utf-8"))["synthesis"] == []


def test_the_report_draws_the_curve_without_the_view(project: Project, tmp_path: Path) -> None:
    bare = PluginRegistry()  # no views at all: the same chart, from the same function
    page = write_report(project, "pool", tmp_path / "bare.html", registry=bare,
                        contributions=False)  # fmt: skip
    assert [c for c in page.charts if c.startswith("synthesis-")] == [
        f"synthesis-{r['run_id']}" for r in ProjectViewData(project, "pool").synthesis_runs()
    ]
