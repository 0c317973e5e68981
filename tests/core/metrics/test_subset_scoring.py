"""Scoring a subset of a dataset, and its random baseline, on real projects."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import qa_rows, table_counts, write_jsonl
from tests.core._planted import planted_dataset
from vendiscope.core.base.errors import ProjectError
from vendiscope.core.io.exporting import export_dataset
from vendiscope.core.io.importing import import_dataset
from vendiscope.core.metrics.algorithms import vendi
from vendiscope.core.metrics.scoring import score_dataset
from vendiscope.core.metrics.subset_baseline import random_baseline
from vendiscope.core.metrics.subset_scoring import SUBSET_KIND
from vendiscope.core.store import subsets, vectors
from vendiscope.core.vectors.embedding import embed_dataset


def test_a_subset_scores_as_the_same_rows_imported_as_their_own_dataset(
    project, tmp_path: Path
) -> None:
    import_dataset(project, write_jsonl(tmp_path / "d.jsonl", qa_rows(40)), name="d")
    embed_dataset(project, "d", name="minilm")  # the real bundled MiniLM embedder
    picked = [3, 31, 7, 12, 20, 25, 0, 38, 15, 9, 33, 18]  # rank order, not dataset order
    subsets.from_positions(project, "d", "picked", picked)
    export_dataset(project, "d", tmp_path / "picked.jsonl", subset="picked")
    import_dataset(project, tmp_path / "picked.jsonl", name="alone")
    embed_dataset(project, "alone", name="minilm", reuse=False)  # embedded afresh

    part = score_dataset(project, "d", metric="vendi", subset="picked", params={"q": 1.0})
    alone = score_dataset(project, "alone", metric="vendi")
    assert part.subset == "picked" and part.n == alone.n == len(picked)
    assert part.value == pytest.approx(alone.value, rel=1e-6)
    assert part.value < score_dataset(project, "d", metric="vendi").value
    # per source: only the subset's records, scored as the imported subset scores them
    assert set(part.per_source) == set(alone.per_source) == {"s0", "s1", "s2"}
    for source, row in alone.per_source.items():
        assert part.per_source[source]["n"] == row["n"]
        assert part.per_source[source]["value"] == pytest.approx(row["value"], rel=1e-6)
    assert sum(row["n"] for row in part.per_source.values()) == len(picked)
    # recorded as a subset run, apart from the dataset's headline scores
    run = project.run(part.run_id)
    assert run.kind == SUBSET_KIND and run.status == "complete"
    assert run.params["subset"] == "picked" and run.result["subset"] == "picked"
    assert run.result["n"] == len(picked) and run.result["value"] == part.value
    assert part.per_record_set is None and run.result["per_record_set"] is None
    assert part.fraction == pytest.approx(part.value / len(picked))


def test_an_unknown_subset_is_named_with_the_dataset_subsets_and_nothing_changes(
    project, project_path: Path, tmp_path: Path
) -> None:
    planted_dataset(project, tmp_path)
    subsets.from_positions(project, "pool", "first", range(50))
    before = table_counts(project_path)
    with pytest.raises(ProjectError) as raised:
        score_dataset(project, "pool", metric="gvendi", subset="nope")
    assert str(raised.value) == "dataset 'pool' has no subset named 'nope' (subsets: first)"
    with pytest.raises(ProjectError, match="name a subset"):
        score_dataset(project, "pool", metric="gvendi", vs_random=True)
    assert table_counts(project_path) == before


def test_the_random_baseline_of_a_subset(project, tmp_path: Path) -> None:
    labels = planted_dataset(project, tmp_path)  # 20 clusters of very different sizes
    rows = vectors.load(project, "pool", "gradients/planted")
    one_per_cluster = [int(np.flatnonzero(labels == c)[0]) for c in range(20)]
    biggest = [int(p) for p in np.flatnonzero(labels == 0)[:20]]
    subsets.from_positions(project, "pool", "spread", one_per_cluster)
    subsets.from_positions(project, "pool", "lump", biggest)

    spread = score_dataset(project, "pool", subset="spread", vs_random=True, random_draws=30,
                           random_seed=4)  # fmt: skip
    lump = score_dataset(project, "pool", subset="lump", vs_random=True, random_draws=30,
                         random_seed=4)  # fmt: skip
    base = spread.vs_random
    assert base is not None and base["draws"] == 30 and base["seed"] == 4 and base["size"] == 20
    assert spread.value == pytest.approx(vendi.vendi_score(rows[sorted(one_per_cluster)]))
    # every draw is a uniformly drawn subset of 20 rows, reproduced from the seed
    rng = np.random.default_rng(4)
    first = np.sort(rng.choice(len(rows), size=20, replace=False))
    assert base["values"][0] == pytest.approx(vendi.vendi_score(rows[first]), rel=1e-5)
    assert base["mean"] == pytest.approx(np.mean(base["values"]))
    assert base["sd"] == pytest.approx(np.std(base["values"], ddof=1))
    assert base["low"] == pytest.approx(np.percentile(base["values"], 2.5))
    assert base["high"] == pytest.approx(np.percentile(base["values"], 97.5))
    assert base["low"] <= base["mean"] <= base["high"]
    # one record of each cluster beats random; twenty of the largest cluster does not
    assert base["z"] > 2 and base["share_below"] == 1.0
    assert lump.vs_random["z"] < -2 and lump.vs_random["share_below"] == 0.0
    assert lump.vs_random["values"] == base["values"]  # same seed, same size: same draws
    stored = project.run(spread.run_id)
    assert stored.params["random_seed"] == 4 and stored.params["random_draws"] == 30
    assert stored.result["vs_random"] == base


def test_a_subset_gets_its_own_bootstrap_interval_and_quality_weights(
    project, tmp_path: Path
) -> None:
    planted_dataset(project, tmp_path)
    rows = vectors.load(project, "pool", "gradients/planted")
    subsets.from_positions(project, "pool", "half", range(0, 978, 2))
    result = score_dataset(
        project,
        "pool",
        subset="half",
        params={"bootstrap": 20},
        quality="rating",
        vs_random=True,
        random_draws=3,
    )
    ratings = np.asarray([1 + i % 5 for i in range(0, 978, 2)], dtype=float)
    expected = vendi.vendi_score(rows[::2], quality=ratings)
    assert result.value == pytest.approx(expected, rel=1e-6)
    low, high = result.details["ci"]
    assert low < result.value < high
    assert result.vs_random["draws"] == 3 and math.isfinite(result.vs_random["mean"])


def test_random_baseline_edge_cases() -> None:
    rows = np.random.default_rng(0).normal(size=(30, 8))
    whole = random_baseline(rows, 30, 5.0, draws=4)
    assert whole["sd"] == pytest.approx(0.0, abs=1e-9) and whole["z"] is None
    one = random_baseline(rows, 10, 5.0, draws=1)
    assert one["sd"] == 0.0 and one["z"] is None and one["low"] == one["high"]
    with pytest.raises(ValueError, match="size must be between 1 and the 30 rows"):
        random_baseline(rows, 31, 5.0)
    with pytest.raises(ValueError, match="draws must be a positive whole number"):
        random_baseline(rows, 3, 5.0, draws=0)


def test_a_subset_of_a_set_too_large_for_memory_reads_only_its_rows(
    project, tmp_path: Path
) -> None:
    planted_dataset(project, tmp_path)
    rows = vectors.load(project, "pool", "gradients/planted")
    subsets.from_positions(project, "pool", "some", range(100, 400, 3))
    budget = rows.nbytes // 2  # the whole set would be streamed; the subset fits
    part = score_dataset(project, "pool", subset="some", memory_budget=budget)
    assert part.value == pytest.approx(vendi.vendi_score(rows[100:400:3]), rel=1e-6)
    runs = len(project.runs("pool"))
    with pytest.raises(ProjectError, match="the random baseline needs the whole vector set"):
        score_dataset(project, "pool", subset="some", vs_random=True, memory_budget=budget)
    assert len(project.runs("pool")) == runs  # refused before a run started


def test_a_baseline_needs_the_vendi_metric_and_a_whole_number_of_draws() -> None:
    from vendiscope.core.metrics.subset_scoring import check_request

    assert check_request("vendi", "some", True) == 20  # the default number of draws
    assert check_request("vendi", "some", True, 7) == 7
    assert check_request("count", "some", False) == 0
    with pytest.raises(ProjectError, match="metric 'count' has none"):
        check_request("count", "some", True, 3)
    with pytest.raises(ProjectError, match="random_draws must be a number of random draws"):
        check_request("vendi", "some", True, 0)
    with pytest.raises(ProjectError, match=r"vs_random is a yes/no flag .* random_draws=N"):
        check_request("vendi", "some", 20)  # type: ignore[arg-type] # the old count
