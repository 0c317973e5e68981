"""A clustering run's result is typed: stored with a schema, read back by name, older results
migrate, a missing field is refused by name (never read as 0)."""

from __future__ import annotations

import pytest

from vendiscope.core.base.errors import ProjectError
from vendiscope.core.clusters.run_result import SCHEMA, ClusterResult

RESULT = ClusterResult(
    dataset="pool", vector_set="gradients/fast", labels="clusters/run-4", sizes=[5, 1, 3, 1],
    sparse=[1, 3], median_size=2.0, run_id=4, seconds=0.5, computed_on="gradients (run #2)",
    examples={1: [7], 3: [9]},
)  # fmt: skip


def test_a_result_round_trips_through_its_json() -> None:
    stored = RESULT.to_json()
    assert stored["schema"] == SCHEMA and stored["examples"] == {"1": [7], "3": [9]}
    read = ClusterResult.from_json(stored)
    assert read == RESULT and read.n_clusters == 4 and read.records_in_sparse == 2


def test_a_result_from_before_the_schema_migrates() -> None:
    old = {k: v for k, v in RESULT.to_json().items()
           if k not in ("schema", "computed_on", "median_size", "examples")}  # fmt: skip
    read = ClusterResult.from_json(old)
    assert read.median_size == pytest.approx(2.0) and read.examples == {}
    assert read.computed_on == "" and read.sparse == [1, 3]


def test_a_missing_field_is_refused_by_name() -> None:
    stored = RESULT.to_json()
    del stored["sizes"]
    with pytest.raises(ProjectError, match="clustering run #4: its result has no 'sizes'"):
        ClusterResult.from_json(stored)
