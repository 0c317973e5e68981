"""The study scatter on a real project: two real studies (a tiny, randomly initialised LM
trained on subsets of a 40-row pool), their runs as the view data reads them (from the pool
and from each target), and the ``study-scatter`` view."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.conftest import demo_rows, write_jsonl
from vendiscope.api import NotComputed, validate_chart
from vendiscope.core.io.importing import import_dataset
from vendiscope.core.store.project import Project
from vendiscope.core.studies.job import run_study
from vendiscope.core.studies.options import StudyOptions
from vendiscope.core.view_data.build import build_view
from vendiscope.core.view_data.reader import ProjectViewData
from vendiscope.core.view_data.render import render_chart
from vendiscope.plugins.views.study import StudyScatterView

pytestmark = pytest.mark.usefixtures("one_torch_thread")

VIEW = "study-scatter"


def sums(n: int) -> list[dict[str, Any]]:
    """Arithmetic with stated final answers: a target whose accuracy can be checked."""
    return [
        {"prompt": f"What is {i} + {i + 2}?", "response": f"The final answer is {2 * i + 2}."}
        for i in range(n)
    ]


def studied(folder: Path, pool: Path, tiny_lm: Path) -> Path:
    """A copy of the tiny-LM pool project with two real studies: ``study-1`` (pool -> held-out,
    5 subsets x 2 seeds) then ``study-2`` (pool -> sums, checkable answers, 3 subsets); and
    dataset ``other``, of no study."""
    location = folder / "studies.vscope"
    shutil.copy(pool, location)
    trainer = {"model": str(tiny_lm), "steps": 3, "batch_size": 2, "device": "cpu"}
    small = {"size": 6, "trainer_params": trainer, "force": True, "pilot": 2}
    with Project.open(location) as project:
        for name, rows in (("held-out", demo_rows(300, 312)), ("sums", sums(8)),
                           ("other", demo_rows(100, 106))):  # fmt: skip
            import_dataset(project, write_jsonl(folder / f"{name}.jsonl", rows), name=name)
        first = StudyOptions(random=4, duplicates=1, seeds=2, **small)
        run_study(project, "pool", "held-out", first)
        checked = {**small, "trainer_params": {**trainer, "max_new_tokens": 4}}  # short answers
        run_study(project, "pool", "sums", StudyOptions(random=2, duplicates=1, seeds=1, **checked))
    return location


@pytest.fixture(scope="module")
def location(
    tmp_path_factory: pytest.TempPathFactory, synthesis_pool: Path, tiny_lm: Path,
    one_torch_thread: None,
) -> Path:  # fmt: skip
    return studied(tmp_path_factory.mktemp("studies"), synthesis_pool, tiny_lm)


@pytest.fixture
def project(location: Path) -> Iterator[Project]:
    with Project.open(location) as opened:
        yield opened


def means(result: dict[str, Any], outcome: str = "improvement") -> dict[str, float]:
    """Each subset's outcome averaged over its seeds, from the runs themselves."""
    found: dict[str, list[float]] = {}
    for run in result["runs"]:
        found.setdefault(run["subset"], []).append(run[outcome])
    return {name: float(np.mean(values)) for name, values in found.items()}


# ----------------------------------------------------------------------------- view data
@pytest.mark.slow
def test_the_runs_are_found_from_the_pool_and_from_each_target(project: Project) -> None:
    from_pool = ProjectViewData(project, "pool").study_runs()
    first, second = from_pool
    assert first["run_id"] < second["run_id"]  # oldest first
    assert (first["status"], second["status"]) == ("complete", "complete")
    assert first["params"]["target"] == "held-out" and second["params"]["target"] == "sums"
    assert first["params"]["pool"] == "pool" and first["params"]["name"] == "study-1"
    assert first["result"] == project.run(first["run_id"]).result
    assert len(first["result"]["runs"]) == 10 and len(second["result"]["runs"]) == 5
    assert ProjectViewData(project, "held-out").study_runs() == [first]
    assert ProjectViewData(project, "sums").study_runs() == [second]
    json.dumps(from_pool, allow_nan=False)  # plain data
    from_pool[0]["result"]["runs"].clear()  # a copy: the next read is unchanged
    assert len(ProjectViewData(project, "pool").study_runs()[0]["result"]["runs"]) == 10


def test_no_study_names_the_study_command(project: Project) -> None:
    with pytest.raises(NotComputed, match="vendiscope study") as caught:
        ProjectViewData(project, "other").study_runs()
    assert caught.value.what == "study runs"
    assert caught.value.command == f"vendiscope study {project.location} other --target TARGET"


# ----------------------------------------------------------------------------- the view
def test_the_view_draws_the_strongest_metric_of_the_latest_study(project: Project) -> None:
    runs = ProjectViewData(project, "pool").study_runs()
    latest = runs[-1]
    chart = build_view(project, VIEW, "pool").chart
    validate_chart(chart)
    json.dumps(chart, allow_nan=False)
    strongest = latest["result"]["analysis"]["improvement"]["evidence"][0]
    label = latest["result"]["metrics"][strongest["metric"]]["label"]
    assert chart["kind"] == "scatter" and chart["x_label"] == f"{label} of the subset"
    assert chart["title"].startswith(f"study-2 (run {latest['run_id']}): {label} vs ")
    assert f"Spearman {strongest['spearman']:.2f}" in chart["title"]
    assert sum(len(s["x"]) for s in chart["series"]) == 3  # one point per subset with a run
    render_chart(chart, "svg", width=600, height=400, dpi=100)  # draws


def test_the_view_draws_the_study_metric_and_outcome_asked(project: Project) -> None:
    first, second = ProjectViewData(project, "pool").study_runs()
    result = first["result"]
    chart = build_view(
        project, VIEW, "held-out", {"run": str(first["run_id"]), "metric": "ngram"}
    ).chart
    validate_chart(chart)
    assert chart["title"].startswith(f"study-1 (run {first['run_id']}): n-gram diversity vs")
    evidence = {e["metric"]: e for e in result["analysis"]["improvement"]["evidence"]}
    low, high = evidence["ngram"]["spearman_ci"]
    assert f"Spearman {evidence['ngram']['spearman']:.2f} [{low:.2f}, {high:.2f}]" in chart["title"]
    names = [s["name"] for s in result["plan"]["subsets"]]
    values = dict(zip(names, result["metrics"]["ngram"]["values"], strict=True))
    outcome = means(result)
    points = [
        (label.split(":")[0], x, y)
        for s in chart["series"]
        for label, x, y in zip(s["label"], s["x"], s["y"], strict=True)
    ]
    assert sorted(p[0] for p in points) == sorted(names)  # 5 subsets, each with its runs
    for name, x, y in points:
        assert x == pytest.approx(values[name]) and y == pytest.approx(outcome[name])
    assert {s["name"] for s in chart["series"]} == {"random", "duplicate-heavy"}

    gained = StudyScatterView(run=second["run_id"], metric="g-vendi", outcome="accuracy_gain")
    chart = gained.build({"view_data": ProjectViewData(project, "sums")})
    validate_chart(chart)
    assert chart["y_label"] == "Target accuracy gain"
    accuracy = means(second["result"], "accuracy_gain")
    assert sorted(y for s in chart["series"] for y in s["y"]) == sorted(accuracy.values())


def test_the_view_names_what_is_wrong(project: Project) -> None:
    first, second = ProjectViewData(project, "pool").study_runs()
    pool = {"view_data": ProjectViewData(project, "pool")}
    with pytest.raises(ValueError, match=r"its metrics: g-vendi, ngram"):
        StudyScatterView(metric="embedding-vendi").build(pool)
    ids = f"{first['run_id']}, {second['run_id']}"
    with pytest.raises(
        ValueError, match=rf"run 9999 is not a study run of pool \(its runs: {ids}\)"
    ):
        StudyScatterView(run=9999).build(pool)
    with pytest.raises(ValueError, match="no checkable answers"):
        StudyScatterView(run=first["run_id"], outcome="accuracy_gain").build(pool)
    with pytest.raises(ValueError, match="outcome must be one of improvement, accuracy_gain"):
        StudyScatterView(outcome="loss").build(pool)
    with pytest.raises(ValueError, match="run must be a run id"):
        StudyScatterView(run=-1).build(pool)
    with pytest.raises(NotComputed, match="vendiscope study"):
        build_view(project, VIEW, "other")
    with pytest.raises(ValueError):
        StudyScatterView().build({})
