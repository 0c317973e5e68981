"""A near-duplicate run's result is typed: stored with a schema, read back by name, old ones
migrate, a missing field is refused by name (never read as 0)."""

from __future__ import annotations

import pytest

from vendiscope.core.base.errors import ProjectError
from vendiscope.core.neighbors.run_result import SCHEMA, NearDuplicateResult

RESULT = NearDuplicateResult(
    dataset="pool", vector_set="sentence-transformers/auto", threshold=0.9, k=20, records=100,
    groups=2, records_in_groups=5, redundant=3, largest_group=3,
    subset="near-duplicates@0.9", run_id=7, seconds=1.25, computed_on="embeddings (run #6)",
    index={"kind": "flat"}, group_sizes=[3, 2], group_positions=[[1, 4, 9], [2, 3]],
)  # fmt: skip


def test_a_result_round_trips_through_its_json() -> None:
    stored = RESULT.to_json()
    assert stored["schema"] == SCHEMA and stored["groups_listed"] == 2
    assert NearDuplicateResult.from_json(stored) == RESULT


def test_a_result_from_before_the_schema_migrates() -> None:
    later = ("schema", "computed_on", "group_positions", "groups_truncated", "index")
    old = {key: value for key, value in RESULT.to_json().items() if key not in later}
    read = NearDuplicateResult.from_json(old)
    assert read.computed_on == "" and read.group_positions == [] and read.index == {}
    assert read.group_sizes == [3, 2] and read.redundant == 3 and not read.groups_truncated


def test_a_missing_or_mistyped_field_is_refused_by_name() -> None:
    stored = RESULT.to_json()
    del stored["redundant"]
    with pytest.raises(ProjectError, match="near-duplicate run #7: its result has no 'redundant'"):
        NearDuplicateResult.from_json(stored)
    with pytest.raises(ProjectError, match="'k' is 'twenty'"):
        NearDuplicateResult.from_json({**RESULT.to_json(), "k": "twenty"})
    with pytest.raises(ProjectError, match="schema 2"):
        NearDuplicateResult.from_json({**RESULT.to_json(), "schema": 2})
