"""Stratified samples of a dataset (``core/io/sampling.py``), on real project files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.conftest import table_counts, write_jsonl
from vendiscope.core.base.errors import ProjectError
from vendiscope.core.base.jobs import Cancelled, CancelToken, NullProgress
from vendiscope.core.io.importing import import_dataset
from vendiscope.core.io.sampling import allocate, sample_dataset, sample_origin
from vendiscope.core.store import samples, subsets
from vendiscope.core.store.record_lookup import records_at


def mixed_rows(n: int = 100) -> list[dict[str, Any]]:
    """60% source a, 30% b, 9% c, 1% without a source; nested fields a copy must keep."""
    rows = []
    for i in range(n):
        source = "a" if i % 10 < 6 else "b" if i % 10 < 9 else ("c" if i < n - 10 else None)
        rows.append({"id": f"r{i}", "prompt": f"question {i}", "response": f"answer {i}",
                     "source": source, "meta": {"rating": i % 5, "tags": ["x", i]}})  # fmt: skip
    return rows


@pytest.fixture
def pool(project: Any, tmp_path: Path) -> Any:
    import_dataset(project, write_jsonl(tmp_path / "pool.jsonl", mixed_rows()), name="pool")
    return project


# ----------------------------------------------------------------------------- allocation
def test_allocation_is_proportional_exact_and_gives_every_stratum_a_row() -> None:
    assert allocate([500, 300, 200], 10) == [5, 3, 2]
    assert allocate([60, 30, 9, 1], 20) == [12, 6, 1, 1]  # (none) takes one from c (1.8 -> 2)
    assert allocate([1000, 1, 1], 3) == [1, 1, 1]
    assert allocate([1000, 1, 1], 10) == [8, 1, 1]
    assert sum(allocate([5, 1, 1, 1], 2)) == 2  # fewer rows than strata: no minimum
    assert allocate([7, 3], 10) == [7, 3]
    assert allocate([7, 0, 3], 5) == [4, 0, 1]  # a tie of remainders: the larger stratum
    rng = np.random.default_rng(1)
    for _ in range(300):
        sizes = rng.integers(1, 400, size=int(rng.integers(1, 12))).tolist()
        rows = int(rng.integers(1, sum(sizes) + 1))
        counts = allocate(sizes, rows)
        assert sum(counts) == rows
        assert all(0 <= c <= s for c, s in zip(counts, sizes, strict=True))
        if rows >= len(sizes):
            assert min(counts) >= 1
        else:  # plain largest remainder: within one row of the exact share
            shares = [rows * s / sum(sizes) for s in sizes]
            assert all(abs(c - share) < 1 for c, share in zip(counts, shares, strict=True))
    with pytest.raises(ValueError):
        allocate([3, 4], 8)


# ----------------------------------------------------------------------------- the sample
def test_a_sample_copies_its_records_field_by_field_in_the_datasets_order(pool: Any) -> None:
    result = sample_dataset(pool, "pool", 20)
    assert result.dataset.name == "pool-sample-20" and result.dataset.row_count == 20
    assert result.dataset.format == "sample"
    assert result.dataset.source_uri == "sample of pool (20 of 100 rows, by source, seed 0)"
    assert [(s.name, s.sampled, s.rows) for s in result.strata] == [
        ("a", 12, 60), ("b", 6, 30), ("c", 1, 9), ("(none)", 1, 1),
    ]  # fmt: skip
    assert result.positions == sorted(result.positions) and len(set(result.positions)) == 20
    copied = pool.records("pool-sample-20", 0, 100)
    originals = records_at(pool, "pool", result.positions)
    for seq, (record, position) in enumerate(zip(copied, result.positions, strict=True)):
        original = originals[position]
        assert record.seq == seq and record.id != original.id
        for field in ("row_index", "prompt", "response", "text", "label", "source", "ext_id",
                      "content_hash", "raw"):  # fmt: skip
            assert getattr(record, field) == getattr(original, field), field
        assert record.original() == original.original()
    stats = pool.stats("pool-sample-20")["sources"]
    assert stats == {"a": 12, "b": 6, "c": 1, "(none)": 1}
    info = pool.dataset("pool-sample-20")
    parent = pool.dataset("pool")
    assert (info.field_mapping, info.source_schema) == (parent.field_mapping, parent.source_schema)


def test_the_run_the_parents_subset_and_the_origin_record_where_it_came_from(pool: Any) -> None:
    result = sample_dataset(pool, "pool", 20, seed=3, name="small")
    (run,) = pool.runs("small")
    assert (run.id, run.kind, run.status, run.seed) == (result.run_id, "sample", "complete", 3)
    assert run.params == {"dataset": "pool", "rows": 20, "seed": 3, "by": "source"}
    assert run.result["strata"]["(none)"] == {"sample": 1, "dataset": 1}
    assert run.result["strata"]["a"] == {"sample": 12, "dataset": 60}
    subset = pool.subset("pool", "small")
    assert subset.run_id == run.id and subset.size == 20
    assert subsets.members(pool, "pool", "small").positions == result.positions
    origin = sample_origin(pool, "small")
    assert origin is not None
    assert origin["describe"] == "a stratified sample of 20 of pool's 100 rows"
    assert (origin["parent"], origin["rows"], origin["parent_rows"], origin["seed"]) == (
        "pool", 20, 100, 3,
    )  # fmt: skip
    assert sample_origin(pool, "pool") is None


def test_a_seed_gives_the_same_sample_and_another_seed_another(pool: Any) -> None:
    first = sample_dataset(pool, "pool", 30, name="one")
    again = sample_dataset(pool, "pool", 30, name="two")
    other = sample_dataset(pool, "pool", 30, name="three", seed=1)
    assert first.positions == again.positions != other.positions
    assert pool.dataset("one").fingerprint == pool.dataset("two").fingerprint
    assert pool.dataset("one").fingerprint != pool.dataset("three").fingerprint
    assert [s.sampled for s in first.strata] == [s.sampled for s in other.strata]


def test_every_row_and_a_single_row(pool: Any) -> None:
    whole = sample_dataset(pool, "pool", 100)
    assert whole.positions == list(range(100))
    assert [r.content_hash for r in pool.iter_records("pool-sample-100")] == [
        r.content_hash for r in pool.iter_records("pool")
    ]
    one = sample_dataset(pool, "pool", 1)
    assert one.rows == 1 and sum(s.sampled for s in one.strata) == 1


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"rows": 0}, "rows must be between 1 and 100 (the rows of dataset 'pool'); got 0"),
        ({"rows": 101}, "rows must be between 1 and 100 (the rows of dataset 'pool'); got 101"),
        ({"rows": 5, "name": "pool"}, "already has a dataset named 'pool'"),
        ({"rows": 5, "name": "taken"}, "dataset 'pool' already has a subset named 'taken'"),
        ({"rows": 5, "by": "label"}, "stratified by source; got 'label'"),
        ({"rows": 5, "name": "bad\nname"}, "dataset name"),
    ],
)
def test_refused_requests_change_nothing(
    pool: Any, project_path: Path, arguments: dict[str, Any], message: str
) -> None:
    subsets.from_positions(pool, "pool", "taken", [1, 2])
    before, runs = table_counts(project_path), len(pool.runs())
    with pytest.raises(ProjectError) as raised:
        sample_dataset(pool, "pool", **arguments)
    assert message in str(raised.value)
    assert table_counts(project_path) == before and len(pool.runs()) == runs
    assert [d.name for d in pool.datasets()] == ["pool"]


def test_a_cancel_mid_way_leaves_no_dataset_run_or_subset(
    pool: Any, project_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(samples, "IN_BATCH", 5)  # four batches for 20 rows
    token = CancelToken()

    class CancelAfterFirstBatch(NullProgress):
        def update(self, completed: float, total: float | None = None) -> None:
            token.cancel()

    before = table_counts(project_path)
    with pytest.raises(Cancelled):
        sample_dataset(pool, "pool", 20, progress=CancelAfterFirstBatch(), cancel=token)
    assert table_counts(project_path) == before
    assert [d.name for d in pool.datasets()] == ["pool"] and pool.subsets("pool") == []
    assert sample_dataset(pool, "pool", 20).rows == 20  # nothing left in the way


def test_the_report_and_the_python_api_say_it_is_a_sample(pool: Any) -> None:
    from vendiscope.core.report.html import _headline_html
    from vendiscope.core.report.numbers import audit_numbers
    from vendiscope.scripting import Project as ApiProject

    made = ApiProject(pool, progress=False).sample("pool", 10, seed=2)
    assert made.dataset.name == "pool-sample-10" and made.seed == 2
    numbers = audit_numbers(pool, "pool-sample-10", contributions=False)
    assert numbers["headline"]["sample"]["describe"] == (
        "a stratified sample of 10 of pool's 100 rows"
    )
    page = "".join(_headline_html(numbers, numbers["headline"], {}))
    assert "(a stratified sample of 10 of pool&#x27;s 100 rows: its scores estimate" in page
    assert audit_numbers(pool, "pool", contributions=False)["headline"]["sample"] is None
