"""One rule picks the vector set: every job and the app's workbench agree, and say which."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import qa_rows, write_jsonl
from tests.core._planted import write_set
from vendiscope.core.base.errors import ProjectError
from vendiscope.core.clusters.jobs import cluster_dataset
from vendiscope.core.io.importing import import_dataset
from vendiscope.core.maps.jobs import map_dataset, map_source
from vendiscope.core.metrics.scoring import score_dataset
from vendiscope.core.neighbors.search import find_near_duplicates, resolve_vector_set
from vendiscope.core.selection.choices import selection_sets
from vendiscope.core.selection.job import resolve_selection_set, select_dataset
from vendiscope.core.vectors import resolve

ROWS = 60


@pytest.fixture
def mixed(project, tmp_path: Path):
    """A dataset holding, in this order: an embedding set, a gradient set, a newer embedding
    set, a feature set and a newer gradient set (and a score set, which is never chosen)."""
    import_dataset(project, write_jsonl(tmp_path / "d.jsonl", qa_rows(ROWS)), name="d")
    rng = np.random.default_rng(0)
    for name, kind, dim in [
        ("embeddings/old", "embedding", 8),
        ("gradients/old", "gradient", 12),
        ("embeddings/new", "embedding", 8),
        ("lengths/lengths", "feature", 3),
        ("gradients/new", "gradient", 12),
        ("scores/run-0", "score", 1),
    ]:
        write_set(project, "d", name, rng.normal(size=(ROWS, dim)).astype(np.float32), kind=kind)
    return project


def test_every_job_and_the_workbench_choose_the_same_set(mixed) -> None:
    from vendiscope.gui.map.data import choices_of
    from vendiscope.gui.selection.data import state_of

    project = mixed
    chosen = resolve.resolve(project, "d")
    assert (chosen.name, chosen.kind) == ("gradients/new", "gradient")
    assert [s.name for s in resolve.feature_sets(project, "d")] == [
        "gradients/new", "gradients/old", "embeddings/new", "embeddings/old", "lengths/lengths",
    ]  # fmt: skip

    # the defaults, asked directly
    assert resolve_selection_set(project, "d", None).name == chosen.name
    assert map_source(project, "d", None).name == chosen.name
    assert selection_sets(project, "d")[0].name == chosen.name
    # the app's workbench and map view offer it first
    assert state_of(project, "d").vector_sets[0] == (chosen.name, "gradient")
    assert choices_of(project, "d").feature_sets[0] == chosen.name

    # the jobs run on it, and say so
    described = re.escape(f"{chosen.name} (gradient, {ROWS} x 12), run ")
    selection = select_dataset(project, "d", method="random", k=5)
    mapped = map_dataset(project, "d", method="pca")
    clusters = cluster_dataset(project, "d", n_clusters=3)
    scored = score_dataset(project, "d", metric="gvendi", per_source=False)
    for report in (selection, mapped, clusters):
        summary = report.summary()
        assert summary["vector_set"] == chosen.name
        assert re.fullmatch(described + str(report.run_id), summary["computed_on"])
        assert project.run(report.run_id).result["computed_on"] == summary["computed_on"]
    assert scored.vector_set.name == chosen.name
    assert project.run(scored.run_id).result["computed_on"] == scored.computed_on
    assert re.fullmatch(described + str(scored.run_id), scored.computed_on)
    # the curves are drawn on the selection's set and the best embedding set, G-Vendi first
    assert list(selection.curve["vendi"]) == ["gradients/new", "embeddings/new"]
    assert state_of(project, "d").curve_sets() == [
        ("gradients/new", "gradient"), ("embeddings/new", "embedding"),
    ]  # fmt: skip


def test_purpose_specific_kinds(mixed) -> None:
    project = mixed
    # embedding-Vendi and neighbour search need embeddings: the newest embedding set
    assert score_dataset(project, "d", metric="vendi", per_source=False).vector_set.name == (
        "embeddings/new"
    )
    assert resolve_vector_set(project, "d", None).name == "embeddings/new"
    found = find_near_duplicates(project, "d", threshold=0.99, save=False)
    assert found.vector_set == "embeddings/new"
    assert found.summary()["computed_on"] == (
        f"embeddings/new (embedding, {ROWS} x 8), run {found.run_id}"
    )
    # a named set is taken when it may be; a score set is no feature set
    assert resolve_selection_set(project, "d", "embeddings/old").name == "embeddings/old"
    with pytest.raises(ProjectError, match="holds scores; this needs a gradient, embedding or"):
        resolve_selection_set(project, "d", "scores/run-0")
    # a map needs two columns: a narrower named set is refused
    with pytest.raises(ProjectError, match="a map needs >= 2"):
        map_source(project, "d", "scores/run-0")


def test_missing_sets_say_which_command_makes_them(project, tmp_path: Path) -> None:
    import_dataset(project, write_jsonl(tmp_path / "d.jsonl", qa_rows(10)), name="d")
    with pytest.raises(ProjectError, match=r"no complete gradient or embedding vector set; run "
                       r"`vendiscope gradients` or `vendiscope embed` first"):  # fmt: skip
        resolve_selection_set(project, "d", None)
    with pytest.raises(ProjectError, match=r"no complete embedding vector set; run `vendiscope em"):
        resolve_vector_set(project, "d", None)
