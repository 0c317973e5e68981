"""The selection job on a real project with planted clusters: subsets, runs, curves, errors."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.conftest import table_counts
from tests.core._planted import N_ROWS, planted_dataset, planted_vectors, write_set
from vendiscope.core.base.errors import PluginError, ProjectError
from vendiscope.core.io.exporting import export_dataset
from vendiscope.core.selection.budget import BudgetError
from vendiscope.core.selection.job import select_dataset
from vendiscope.core.store import subsets


@pytest.fixture
def labels(project, tmp_path) -> np.ndarray:
    return planted_dataset(project, tmp_path)


BUDGET = r"k \(the budget\) must be a whole number"
CANDIDATES = "the number of candidate rows"


def covered(labels: np.ndarray, positions: list[int]) -> int:
    return len(set(labels[positions].tolist()))


def test_greedy_vendi_saves_a_subset_with_its_run_and_curves(project, labels) -> None:
    report = select_dataset(project, "pool", method="greedy-vendi", k=40)
    assert report.subset.name == "greedy-vendi-40" and report.subset.size == 40
    assert len(set(report.positions)) == 40
    members = subsets.members(project, "pool", report.subset.name)
    assert members.positions == report.positions
    assert all(g is not None and np.isfinite(g) for g in members.gains)
    run = project.run(report.run_id)
    assert run.kind == "selection" and run.status == "complete"
    assert run.params["k"] == 40 and run.params["vector_set"] == "gradients/planted"
    curve = run.result["curve"]
    assert curve["budgets"][0] == 1 and curve["budgets"][-1] == 40
    chosen = curve["vendi"]["gradients/planted"]
    baseline = curve["random"]["gradients/planted"]
    assert len(chosen) == len(curve["budgets"]) == len(baseline)
    assert chosen[-1] > baseline[-1]  # diverse beats random at the full budget
    assert chosen == sorted(chosen)  # greedy Vendi's prefix curve only grows
    assert covered(labels, report.positions) == 20  # every planted cluster is reached
    json.dumps(run.result)  # the run result is plain JSON


def test_diverse_methods_cover_more_clusters_than_random(project, labels) -> None:
    k = 25
    random_cover = np.mean([
        covered(labels, select_dataset(project, "pool", method="random", k=k,
                                       params={"seed": s}, name=f"random-{s}").positions)
        for s in range(3)
    ])  # fmt: skip
    for method in ("greedy-vendi", "k-center", "facility-location", "dpp"):
        report = select_dataset(project, "pool", method=method, k=k)
        assert covered(labels, report.positions) > random_cover, method
    names = [s.name for s in project.subsets("pool")]
    assert {"random-0", "random-1", "random-2", "greedy-vendi-25", "dpp-25"} <= set(names)
    with pytest.raises(ProjectError, match="subset 'dpp-25' of dataset 'pool' exists"):
        select_dataset(project, "pool", method="dpp", k=k)  # the default name, taken: refused


def test_exclusions_dedupe_and_quality(project, labels) -> None:
    subsets.from_positions(project, "pool", "held-out", list(range(0, N_ROWS, 2)))
    report = select_dataset(project, "pool", method="k-center", k=30, exclude=["held-out"],
                            quality="rating", dedupe=0.999)  # fmt: skip
    assert all(p % 2 == 1 for p in report.positions)
    assert report.excluded >= N_ROWS // 2
    run = project.run(report.run_id)
    assert run.params["quality"] == "rating" and run.params["exclude"] == ["held-out"]


def test_bad_input_is_refused_before_any_work(project, project_path, labels, tmp_path) -> None:
    other, _ = planted_vectors(seed=5)
    planted_dataset(project, tmp_path, "other", seed=5)
    write_set(project, "other", "only-in-other", other)
    nan_rows = planted_vectors()[0]
    nan_rows[17, 3] = np.nan
    write_set(project, "pool", "gradients/broken", nan_rows)
    before = table_counts(project_path)
    cases = [
        ({"k": 0}, BudgetError, rf"^{BUDGET} between 1 and {N_ROWS}, {CANDIDATES}; got 0$"),
        ({"k": N_ROWS + 1}, BudgetError, rf"between 1 and {N_ROWS}, .*; got {N_ROWS + 1}"),
        ({"k": 2.5}, BudgetError, rf"^{BUDGET} .*; got 2\.5$"),
        ({"k": 5, "vector_set": "only-in-other"}, ProjectError, "belongs to dataset 'other'"),
        ({"k": 5, "quality": "stars"}, ProjectError, "no vector set or record field"),
        ({"k": 5, "vector_set": "gradients/broken"}, ProjectError, "row 17 .* NaN"),
        ({"k": 5, "method": "nope"}, PluginError, "nope"),
        ({"k": 5, "params": {"colour": 1}}, PluginError, "colour"),
        ({"k": 5, "exclude": ["missing"]}, ProjectError, "no subset named 'missing'"),
    ]
    for kwargs, error, message in cases:
        kwargs = {"method": "greedy-vendi", **kwargs}
        with pytest.raises(error, match=message):
            select_dataset(project, "pool", **kwargs)
    assert table_counts(project_path) == before


def test_explicit_name_is_protected_and_export_carries_provenance(project, labels,
                                                                   tmp_path) -> None:  # fmt: skip
    select_dataset(project, "pool", method="facility-location", k=12, name="fl")
    with pytest.raises(ProjectError, match="already has a subset named 'fl'"):
        select_dataset(project, "pool", method="random", k=12, name="fl")
    replaced = select_dataset(project, "pool", method="random", k=12, name="fl", overwrite=True)
    assert project.subset("pool", "fl").run_id == replaced.run_id
    result = export_dataset(project, "pool", tmp_path / "fl.jsonl", subset="fl")
    manifest = json.loads(result.manifest.read_text())
    selection = manifest["selection_run"]
    assert selection["params"]["method"] == "random" and selection["params"]["k"] == 12
    assert selection["result"]["objective"]["name"]
    assert selection["result"]["curve"]["budgets"][-1] == 12
    assert len(manifest["content_hash"]["per_row"]) == 12


def test_sets_larger_than_memory_stream(project, labels, monkeypatch) -> None:
    """Selectors that can read the set chunk by chunk give the same picks; others refuse."""
    in_memory = {m: select_dataset(project, "pool", method=m, k=20, name=f"{m}-mem")
                 for m in ("k-center", "random")}  # fmt: skip
    monkeypatch.setenv("VENDISCOPE_MEMORY_BUDGET", "4096")  # bytes: far below the set's size
    for method, expected in in_memory.items():
        streamed = select_dataset(project, "pool", method=method, k=20, name=f"{method}-stream")
        assert streamed.positions == expected.positions  # the same picks, chunk by chunk
        assert project.run(streamed.run_id).params["streamed"] is True
        assert (
            streamed.curve["vendi"]["gradients/planted"]
            == expected.curve["vendi"]["gradients/planted"]
        )
    runs = len(project.runs("pool"))
    with pytest.raises(ProjectError, match="needs it in memory; selectors that read it chunk by"):
        select_dataset(project, "pool", method="greedy-vendi", k=20)
    with pytest.raises(ProjectError, match="--exclude and --dedupe need it in memory"):
        select_dataset(project, "pool", method="k-center", k=20, exclude=["random-mem"])
    assert len(project.runs("pool")) == runs
