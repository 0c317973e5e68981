"""The study job end to end: real project files, a real (tiny, randomly initialised) causal LM
trained by the built-in trainer, real gradients; the pilot's refusal, resume and determinism."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.conftest import demo_rows, table_counts, write_jsonl
from vendiscope.core.base.errors import ProjectError
from vendiscope.core.io.importing import import_dataset
from vendiscope.core.plugin_host.charts import validate_chart
from vendiscope.core.store import subsets
from vendiscope.core.store.project import Project
from vendiscope.core.studies.algorithms.chart import outcome_table, study_chart, subset_rows
from vendiscope.core.studies.job import StudyRefused, estimate_study, run_study
from vendiscope.core.studies.options import StudyOptions
from vendiscope.core.studies.reading import study_runs

pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture
def location(study_project: Path) -> Path:
    """The 40-row pool with tiny-LM gradients, and a 12-row held-out target."""
    return study_project


def trainer(tiny_lm: Path, **changes: Any) -> dict[str, Any]:
    return {"model": str(tiny_lm), "steps": 3, "batch_size": 2, "device": "cpu", **changes}


def options(tiny_lm: Path, **changes: Any) -> StudyOptions:
    settings: dict[str, Any] = {
        "size": 6,
        "random": 4,
        "duplicates": 1,
        "seeds": 2,
        "trainer_params": trainer(tiny_lm),
        "force": True,
        "pilot": 2,
    }
    return StudyOptions(**{**settings, **changes})


@pytest.mark.slow
def test_a_study_trains_every_run_and_reads_which_metric_predicts(
    location: Path, tiny_lm: Path
) -> None:
    seen: list[dict[str, Any]] = []
    with Project.open(location) as project:
        report = run_study(project, "pool", "held-out", options(tiny_lm), on_run=seen.append)
        assert report.stopped == "done" and report.name == "study-1"
        assert report.runs_done == report.runs_total == 10 == len(seen)  # 5 subsets x 2 seeds
        assert report.plan == "5 subsets of 6 rows: 4 random, 1 duplicate-heavy"
        run = project.run(report.run_id)
        assert run.status == "complete" and run.kind == "study"
        result = run.result
        # the baseline and each run's outcome, as the trainer measured them
        base = result["baseline"]["loss"]
        for entry in result["runs"]:
            assert entry["improvement"] == pytest.approx(base - entry["loss"], abs=1e-9)
            assert entry["steps"] == 3
        assert {(r["subset"], r["seed"]) for r in result["runs"]} == {
            (s["name"], seed) for s in result["plan"]["subsets"] for seed in (0, 1)
        }
        # the pilot's two subsets ran first, both seeds each
        first = [(r["subset"], r["seed"]) for r in result["runs"][:4]]
        assert [seed for _, seed in first] == [0, 1, 0, 1]
        assert result["pilot"]["subsets"] == 2 and result["pilot"]["planned_seeds"] == 2
        # the pool has no embeddings: that metric is skipped and says how to compute it
        assert set(result["metrics"]) == {"g-vendi", "ngram"}
        assert any("embedding-Vendi skipped" in note for note in result["notes"])
        assert "vendiscope embed" in " ".join(result["notes"])
        # duplicate-heavy subsets are less diverse by construction, by both metrics
        names = [s["name"] for s in result["plan"]["subsets"]]
        duplicated = names.index("duplicates-01")
        for metric in ("g-vendi", "ngram"):
            values = result["metrics"][metric]["values"]
            assert values[duplicated] < min(v for i, v in enumerate(values) if i != duplicated)
        analysis = result["analysis"]["improvement"]
        assert analysis["n_subsets"] == 5
        # read again without the duplicate-heavy control, which lifts every metric
        assert result["analysis_ordinary"]["improvement"]["n_subsets"] == 4
        assert report.analysis_ordinary == result["analysis_ordinary"]
        assert {e["metric"] for e in analysis["evidence"]} == {"g-vendi", "ngram"}
        assert analysis["noise"]["n_seeds"] == 2
        table = outcome_table(result["runs"], names)
        assert table.shape == (5, 2) and np.isfinite(table).all()
        assert result["cost"]["runs"] == 10 and result["cost"]["total_seconds"] > 0
        assert [r.id for r in study_runs(project, "held-out")] == [report.run_id]
        # what the view, report and app draw: a valid scatter per metric, a row per subset
        for metric in ("g-vendi", "ngram"):
            chart = study_chart(result, metric)
            validate_chart(chart)
            assert sum(len(s["x"]) for s in chart["series"]) == 5
            assert "Spearman" in chart["title"]
        rows = subset_rows(result)
        assert [r["runs"] for r in rows] == [2] * 5
        assert rows[duplicated]["distinct"] < rows[duplicated]["rows"] == 6
        assert project.integrity_check() == "ok"


@pytest.mark.slow
def test_the_same_study_gives_the_same_outcomes(location: Path, tiny_lm: Path) -> None:
    with Project.open(location) as project:
        chosen = options(tiny_lm, random=2, duplicates=0, seeds=1, metrics=("g-vendi", "vendi"))
        first = run_study(project, "pool", "held-out", replace_name(chosen, "a"))
        second = run_study(project, "pool", "held-out", replace_name(chosen, "b"))
        results = [project.run(report.run_id).result for report in (first, second)]
    losses = [[r["loss"] for r in result["runs"]] for result in results]
    assert losses[0] == pytest.approx(losses[1], abs=1e-6)
    # a metric plugin is computed on the gradient rows: the built-in Vendi plugin is G-Vendi
    metrics = results[0]["metrics"]
    assert metrics["vendi"]["values"] == pytest.approx(metrics["g-vendi"]["values"], rel=1e-6)
    assert metrics["vendi"]["vector_set"] == metrics["g-vendi"]["vector_set"]


def replace_name(chosen: StudyOptions, name: str) -> StudyOptions:
    from dataclasses import replace

    return replace(chosen, name=name)


@pytest.mark.slow
def test_a_pilot_that_cannot_beat_seed_noise_stops_the_study_until_forced(
    location: Path, tiny_lm: Path
) -> None:
    """Two subsets of the very same rows differ only by seed noise: the pilot says so."""
    with Project.open(location) as project:
        for name in ("same-a", "same-b"):
            subsets.from_positions(project, "pool", name, list(range(6)))
        chosen = options(
            tiny_lm, random=0, duplicates=0, existing=("same-a", "same-b"), force=False
        )
        with pytest.raises(StudyRefused, match=r"reliability .* below 0.5") as refused:
            run_study(project, "pool", "held-out", chosen)
        assert "force it to go on" in str(refused.value)
        run = study_runs(project)[-1]
        assert run.status == "failed" and run.result["stopped"] == "refused"
        assert len(run.result["runs"]) == 4 and run.result["pilot"]["separable"] is False
        # again without --force: refused at once, nothing retrained
        with pytest.raises(StudyRefused):
            run_study(project, "pool", "held-out", chosen)
        assert len(project.run(run.id).result["runs"]) == 4
        from dataclasses import replace

        report = run_study(project, "pool", "held-out", replace(chosen, force=True))
        assert report.run_id == run.id and report.resumed_from == 4
        assert report.stopped == "done" and report.pilot is not None and report.pilot["forced"]
        assert len(project.run(run.id).result["runs"]) == 4  # 2 subsets x 2 seeds: all done


@pytest.mark.slow
def test_more_seeds_grow_a_finished_study_and_keep_its_runs(location: Path, tiny_lm: Path) -> None:
    from dataclasses import replace

    with Project.open(location) as project:
        chosen = options(tiny_lm, random=3, duplicates=0, seeds=1, name="grow")
        first = run_study(project, "pool", "held-out", chosen)
        kept = project.run(first.run_id).result["runs"]
        assert first.runs_done == 3 + 2  # one seed each, and the pilot's second seeds
        grown = run_study(project, "pool", "held-out", replace(chosen, seeds=2))
        runs = project.run(grown.run_id).result["runs"]
        assert grown.run_id == first.run_id and len(runs) == 6
        assert runs[:5] == kept
        # other settings are a new study, not this one
        with pytest.raises(ProjectError, match="other settings"):
            run_study(project, "pool", "held-out", replace(chosen, size=5))


def test_an_estimate_writes_nothing(location: Path, tiny_lm: Path) -> None:
    before = table_counts(location)
    with Project.open(location) as project:
        found = estimate_study(project, "pool", "held-out", options(tiny_lm))
    assert found.runs == 10 and found.subsets == 5
    assert found.cost.total_seconds > found.cost.seconds_per_run > 0
    assert "runs of" in found.cost.text
    assert table_counts(location) == before


def test_bad_studies_are_refused_naming_what_is_wrong(
    location: Path, tiny_lm: Path, tmp_path: Path
) -> None:
    bad = write_jsonl(tmp_path / "bad.jsonl", [{"prompt": "a question"}, {"prompt": "b"}])
    with Project.open(location) as project:
        import_dataset(project, bad, name="no-answers")
        before = table_counts(location)
        with pytest.raises(ProjectError, match="held out"):
            run_study(project, "pool", "pool", options(tiny_lm))
        with pytest.raises(ProjectError, match=r"record 0 of 'no-answers'.*no response"):
            run_study(project, "pool", "no-answers", options(tiny_lm))
        with pytest.raises(ProjectError, match="size: 60 rows asked for"):
            run_study(project, "pool", "held-out", options(tiny_lm, size=60))
        with pytest.raises(ProjectError, match="missing"):
            run_study(project, "pool", "missing", options(tiny_lm))
        assert table_counts(location) == before
    with pytest.raises(ValueError, match="seeds must be a whole number"):
        options(tiny_lm, seeds=0)


@pytest.mark.slow
def test_selector_subsets_come_from_the_gradients_and_never_hold_target_rows(
    synthesis_project: Path, tiny_lm: Path, tmp_path: Path
) -> None:
    """Pool rows 0-2 are also in the target: neither a random nor a selector subset has them."""
    target = write_jsonl(tmp_path / "target.jsonl", demo_rows(0, 3) + demo_rows(300, 309))
    with Project.open(synthesis_project) as project:
        import_dataset(project, target, name="held-out")
        chosen = options(tiny_lm, random=1, duplicates=0, seeds=1, selectors=("greedy-vendi",))
        report = run_study(project, "pool", "held-out", chosen)
        result = project.run(report.run_id).result
    assert report.plan == "2 subsets of 6 rows: 1 random, 1 greedy-vendi"
    assert "3 pool rows are also in the target and never enter a subset" in result["notes"]
    for subset in result["plan"]["subsets"]:
        assert not set(subset["positions"]) & {0, 1, 2}, subset["name"]
    picked = next(s for s in result["plan"]["subsets"] if s["kind"] == "selector")
    assert picked["detail"]["selector"] == "greedy-vendi" and len(set(picked["positions"])) == 6
    assert report.runs_done == 4  # both subsets are the pilot: two seeds each
