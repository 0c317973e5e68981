"""A map run's result is typed: stored with a schema and the method's details beside it, read
back by name, older results migrate."""

from __future__ import annotations

import pytest

from vendiscope.core.base.errors import ProjectError
from vendiscope.core.maps.run_result import MapResult

RESULT = MapResult(
    dataset="pool", vector_set="gradients/fast", map="map/umap/run-3", method="umap",
    fitted_rows=90, placed_rows=10, trustworthiness=0.93, run_id=3, seconds=2.0,
    computed_on="gradients (run #2)", details={"n_neighbors": 15, "index": {"kind": "flat"}},
)  # fmt: skip


def test_a_result_round_trips_with_its_details() -> None:
    stored = RESULT.to_json()
    assert stored["schema"] == 1 and stored["n_neighbors"] == 15
    assert MapResult.from_json(stored) == RESULT


def test_an_older_result_migrates_and_a_missing_field_is_named() -> None:
    old = {k: v for k, v in RESULT.to_json().items() if k not in ("schema", "computed_on")}
    assert MapResult.from_json({**old, "trustworthiness": None}).trustworthiness is None
    del old["fitted_rows"]
    with pytest.raises(ProjectError, match="map run #3: its result has no 'fitted_rows'"):
        MapResult.from_json(old)
