"""``score_dataset(at_n=...)``: a dataset's score at a smaller size, for equal-n comparisons."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.core._planted import N_ROWS, planted_dataset
from vendiscope.core.base.errors import ProjectError
from vendiscope.core.metrics.algorithms.vendi import vendi_score
from vendiscope.core.metrics.scoring import DRAWS_AT_N, score_dataset
from vendiscope.core.store import vectors
from vendiscope.core.store.project import Project


@pytest.fixture()
def path(tmp_path: Path) -> Path:
    location = tmp_path / "p.vscope"
    with Project.create(location) as project:
        planted_dataset(project, tmp_path)
    return location


def test_the_score_at_a_smaller_size_is_the_mean_of_seeded_draws(path: Path) -> None:
    with Project.open(path) as project:
        found = score_dataset(project, "pool", metric="gvendi", at_n=100).details["at_n"]
        matrix = vectors.load(project, "pool", "gradients/planted")
        run = project.runs("pool")[-1]
    assert found["n"] == 100 and found["of"] == N_ROWS and found["draws"] == DRAWS_AT_N
    rng = np.random.default_rng(0)
    expected = [
        vendi_score(matrix[np.sort(rng.choice(N_ROWS, 100, replace=False))], q=1.0)
        for _ in range(DRAWS_AT_N)
    ]
    assert found["mean"] == pytest.approx(np.mean(expected), rel=1e-5)
    assert found["low"] <= found["mean"] <= found["high"] and found["sd"] > 0
    assert run.params["at_n"] == 100


def test_streaming_gives_the_same_draws(path: Path) -> None:
    with Project.open(path) as project:
        whole = score_dataset(project, "pool", metric="gvendi", at_n=64).details["at_n"]
        streamed = score_dataset(project, "pool", metric="gvendi", at_n=64, memory_budget=1)
    assert streamed.details["streamed"] is True
    assert streamed.details["at_n"]["mean"] == pytest.approx(whole["mean"], rel=1e-4)


def test_at_the_full_size_it_is_the_score_itself(path: Path) -> None:
    with Project.open(path) as project:
        result = score_dataset(project, "pool", metric="gvendi", at_n=N_ROWS)
    assert result.details["at_n"]["draws"] == 1
    assert result.details["at_n"]["mean"] == pytest.approx(result.value, rel=1e-5)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"at_n": N_ROWS + 1}, f"more than the {N_ROWS:,} rows of 'pool'"),
        ({"at_n": 1}, "at least 2"),
        ({"at_n": 10, "quality": "rating"}, "unweighted"),
    ],
)
def test_bad_sizes_are_refused_and_record_nothing(path: Path, kwargs, message) -> None:
    with Project.open(path) as project:
        before = len(project.runs("pool"))
        with pytest.raises(ProjectError, match=message):
            score_dataset(project, "pool", metric="gvendi", **kwargs)
        assert len(project.runs("pool")) == before
