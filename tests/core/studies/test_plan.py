"""The plan of a study: which subsets it trains on, drawn reproducibly from the pool."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

from vendiscope.core.studies.algorithms.plan import (
    PLAN_KINDS,
    PlannedSubset,
    PlanSpec,
    make_plan,
    plan_summary,
)

N_POOL = 400
SOURCES = [f"s{i % 16:02d}" for i in range(N_POOL)]  # 16 sources of 25 rows


def _greedy(name: str, k: int, seed: int) -> list[int]:
    """A deterministic selector: the first k even positions, whatever the seed."""
    return list(range(0, 2 * k, 2))


def _seeded(name: str, k: int, seed: int) -> list[int]:
    return np.random.default_rng(seed).choice(np.arange(1, N_POOL, 2), k, replace=False).tolist()


def _by_name(name: str, k: int, seed: int) -> list[int]:
    return (_greedy if name.startswith("Greedy") else _seeded)(name, k, seed)


def _of(plan: list[PlannedSubset], kind: str) -> list[PlannedSubset]:
    return [subset for subset in plan if subset.kind == kind]


def test_same_spec_same_plan():
    spec = PlanSpec(size=20, random=5, sources=3, duplicates=2, seed=7)
    first = make_plan(spec, n_pool=N_POOL, sources=SOURCES)
    assert first == make_plan(spec, n_pool=N_POOL, sources=SOURCES)
    other = make_plan(PlanSpec(size=20, random=5, seed=8), n_pool=N_POOL)
    assert [s.positions for s in _of(first, "random")] != [s.positions for s in other]


def test_more_random_subsets_keep_the_earlier_ones():
    small = make_plan(PlanSpec(size=30, random=3), n_pool=N_POOL)
    grown = make_plan(PlanSpec(size=30, random=8), n_pool=N_POOL)
    assert grown[:3] == small
    assert [s.name for s in grown] == [f"random-{i:02d}" for i in range(1, 9)]


def test_random_subsets_are_distinct_rows_of_the_right_size():
    plan = make_plan(PlanSpec(size=50, random=4), n_pool=N_POOL)
    for subset in plan:
        assert subset.size == 50 == len(set(subset.positions))
        assert all(0 <= p < N_POOL for p in subset.positions)
        assert list(subset.positions) == sorted(subset.positions)
    assert len({s.positions for s in plan}) == 4


def test_kinds_come_in_plan_order():
    spec = PlanSpec(
        size=20, random=1, selectors=("greedy",), sources=1, duplicates=1, existing=("mine",)
    )
    plan = make_plan(
        spec, n_pool=N_POOL, sources=SOURCES, select=_greedy, existing={"mine": range(20)}
    )
    assert tuple(s.kind for s in plan) == PLAN_KINDS


def test_duplicates_repeat_few_rows_evenly():
    plan = make_plan(PlanSpec(size=80, random=0, duplicates=3), n_pool=N_POOL)
    assert [s.detail["distinct"] for s in plan] == [10, 20, 40]  # size/8 .. size/2
    for subset in plan:
        counts = Counter(subset.positions)
        assert subset.size == 80 and len(counts) == subset.detail["distinct"]
        assert min(counts.values()) == subset.detail["repeats_min"]
        assert max(counts.values()) == subset.detail["repeats_max"]
    uneven = make_plan(PlanSpec(size=10, random=0, duplicates=1), n_pool=N_POOL)[0]
    assert uneven.detail == {**uneven.detail, "distinct": 1, "repeats_min": 10}
    seven = make_plan(PlanSpec(size=7, random=0, duplicates=2), n_pool=N_POOL)[-1]
    assert seven.detail["distinct"] == 4  # 7 / 2 rounded
    assert sorted(Counter(seven.positions).values()) == [1, 2, 2, 2]
    assert (seven.detail["repeats_min"], seven.detail["repeats_max"]) == (1, 2)


def test_source_subsets_use_only_the_recorded_sources():
    plan = make_plan(PlanSpec(size=20, random=0, sources=5), n_pool=N_POOL, sources=SOURCES)
    assert [s.detail["n_sources"] for s in plan] == [1, 2, 4, 8, 16]  # geometric over 1..S
    for subset in plan:
        used = {SOURCES[p] for p in subset.positions}
        assert used <= set(subset.detail["sources"])
        assert len(subset.detail["sources"]) == subset.detail["n_sources"]
        assert subset.detail["of_sources"] == 16
        assert subset.size == len(set(subset.positions)) == 20
    assert {SOURCES[p] for p in plan[0].positions} == set(plan[0].detail["sources"])


def test_source_subsets_add_sources_when_too_few_rows():
    plan = make_plan(PlanSpec(size=60, random=0, sources=2), n_pool=N_POOL, sources=SOURCES)
    first = plan[0]  # one source holds 25 rows: it takes three
    assert first.detail["asked_sources"] == 1 and first.detail["n_sources"] == 3
    assert {SOURCES[p] for p in first.positions} == set(first.detail["sources"])


def test_source_subsets_skip_unknown_sources():
    sources = [None if i % 2 else SOURCES[i] for i in range(N_POOL)]
    plan = make_plan(PlanSpec(size=10, random=0, sources=3), n_pool=N_POOL, sources=sources)
    assert all(sources[p] is not None for s in plan for p in s.positions)
    assert plan[-1].detail["of_sources"] == 8


@pytest.mark.parametrize("sources", [None, ["only"] * N_POOL, [None] * N_POOL])
def test_source_subsets_need_two_known_sources(sources):
    with pytest.raises(ValueError, match="the pool has no source field"):
        make_plan(PlanSpec(size=10, sources=2), n_pool=N_POOL, sources=sources)


def test_exclude_is_honoured_by_every_kind():
    exclude = set(range(0, N_POOL, 3))
    spec = PlanSpec(size=40, random=5, sources=4, duplicates=3, existing=("mine",))
    mine = list(range(100))  # 33 of these are excluded: 67 usable, sampled down to 40
    plan = make_plan(spec, n_pool=N_POOL, sources=SOURCES, existing={"mine": mine}, exclude=exclude)
    assert len(plan) == 13
    assert not any(exclude & set(s.positions) for s in plan)
    assert plan[-1].detail == {
        "subset": "mine",
        "rows": 100,
        "excluded": 34,
        "sampled": True,
        "seed": [0, 4, 0],
    }


def test_selector_must_not_return_excluded_rows():
    with pytest.raises(ValueError, match=r"'greedy'.*excluded positions: \[0\]"):
        make_plan(
            PlanSpec(size=10, random=0, selectors=("greedy",)),
            n_pool=N_POOL,
            select=_greedy,
            exclude=[0, 1],
        )


def test_deterministic_selector_is_kept_once():
    spec = PlanSpec(size=10, random=0, selectors=("Greedy Vendi", "seeded"), selector_draws=3)
    plan = make_plan(spec, n_pool=N_POOL, select=_by_name)
    assert [s.name for s in plan] == ["greedy-vendi-01", "seeded-01", "seeded-02", "seeded-03"]
    assert plan[0].detail == {
        "selector": "Greedy Vendi",
        "seed": 0,
        "seeds": [0, 1, 2],
        "deterministic": True,
    }
    assert [s.detail["seed"] for s in plan[1:]] == [0, 1, 2]
    assert not any(s.detail["deterministic"] for s in plan[1:])
    assert plan_summary(plan) == "4 subsets of 10 rows: 1 Greedy Vendi, 3 seeded"


def test_seeds_that_repeat_a_subset_are_recorded_on_it():
    spec = PlanSpec(size=10, random=0, selectors=("some",), selector_draws=3, seed=4)
    plan = make_plan(spec, n_pool=N_POOL, select=lambda name, k, seed: _seeded(name, k, seed // 2))
    assert [(s.detail["seeds"], s.detail["deterministic"]) for s in plan] == [
        ([4, 5], True),
        ([6], False),
    ]


@pytest.mark.parametrize(
    ("result", "message"),
    [
        (list(range(9)), "returned 9 positions, not the 10"),
        ([0] * 10, r"repeated positions: \[0\]"),
        ([*range(9), N_POOL], "outside the pool"),
        ([float(i) for i in range(10)], "whole-number"),
        (None, "sequence of pool positions"),
    ],
)
def test_bad_selector_results_name_the_selector(result, message):
    spec = PlanSpec(size=10, random=0, selectors=("bad",))
    with pytest.raises(ValueError, match=rf"selector 'bad' \(seed 0\).*{message}"):
        make_plan(spec, n_pool=N_POOL, select=lambda name, k, seed: result)


def test_selectors_need_a_select_function():
    with pytest.raises(ValueError, match="selectors"):
        make_plan(PlanSpec(size=10, selectors=("greedy",)), n_pool=N_POOL)


def test_selector_receives_name_size_and_seeds():
    calls = []

    def record(name, k, seed):
        calls.append((name, k, seed))
        return _seeded(name, k, seed)

    make_plan(
        PlanSpec(size=12, selectors=("x",), selector_draws=2, seed=5), n_pool=N_POOL, select=record
    )
    assert calls == [("x", 12, 5), ("x", 12, 6)]


def test_existing_subsets_exact_larger_and_smaller():
    spec = PlanSpec(size=10, random=0, existing=("exact", "Big one"))
    given = {"exact": list(range(10, 0, -1)), "Big one": range(100, 200)}
    exact, big = make_plan(spec, n_pool=N_POOL, existing=given)
    assert exact.name == "existing-exact" and exact.positions == tuple(range(1, 11))
    assert not exact.detail["sampled"]
    assert big.name == "existing-big-one" and big.detail["sampled"] and big.detail["rows"] == 100
    assert set(big.positions) <= set(range(100, 200)) and big.size == 10
    with pytest.raises(ValueError, match=r"existing subset 'small' has 5 usable rows.*size=10"):
        make_plan(
            PlanSpec(size=10, existing=("small",)), n_pool=N_POOL, existing={"small": range(5)}
        )


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({}, r"existing: no positions were given for \['mine'\]"),
        ({"mine": [*range(10), N_POOL + 3]}, "existing subset 'mine' has positions outside"),
        ({"mine": [*range(10), 3]}, r"existing subset 'mine' has repeated positions: \[3\]"),
    ],
)
def test_bad_existing_subsets(given, message):
    with pytest.raises(ValueError, match=message):
        make_plan(PlanSpec(size=10, existing=("mine",)), n_pool=N_POOL, existing=given)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"size": 1}, "size must be at least 2"),
        ({"size": 10, "random": -1}, "random must not be negative"),
        ({"size": 10, "sources": -2}, "sources must not be negative"),
        ({"size": 10, "duplicates": -1}, "duplicates must not be negative"),
        ({"size": 10, "selector_draws": 0}, "selector_draws must be at least 1"),
        ({"size": 10, "random": 2.5}, "random must be a whole number"),
        ({"size": 10, "random": 0}, "the plan has no subsets: ask for random, selector"),
        ({"size": 10, "selectors": ("a b", "A-B")}, "selectors: 'a b' and 'A-B' would both"),
        ({"size": 10, "selectors": ("Random",)}, "selectors: 'Random' would clash"),
        ({"size": 10, "existing": ("?!",)}, r"existing: '\?!' is not a usable name"),
    ],
)
def test_bad_specs_name_the_field(fields, message):
    with pytest.raises(ValueError, match=message):
        PlanSpec(**fields)


def test_pool_errors_name_the_field():
    with pytest.raises(ValueError, match=r"size: 30 rows asked for.*only 25 usable.*5 excluded"):
        make_plan(PlanSpec(size=30), n_pool=30, exclude=range(5))
    with pytest.raises(ValueError, match="exclude has positions outside"):
        make_plan(PlanSpec(size=3), n_pool=30, exclude=[30])
    with pytest.raises(ValueError, match="sources: 3 values given for a pool of 30"):
        make_plan(PlanSpec(size=3, sources=1), n_pool=30, sources=["a", "b", "c"])


def test_json_round_trips():
    spec = PlanSpec(
        size=20,
        random=2,
        selectors=("greedy",),
        sources=2,
        duplicates=1,
        existing=("mine",),
        seed=3,
    )
    again = PlanSpec.from_json(json.loads(json.dumps(spec.to_json())))
    assert again == spec and spec.to_json()["version"] == 1
    plan = make_plan(
        spec, n_pool=N_POOL, sources=SOURCES, select=_greedy, existing={"mine": range(50)}
    )
    text = json.dumps([subset.to_json() for subset in plan])
    assert [PlannedSubset.from_json(data) for data in json.loads(text)] == plan
    with pytest.raises(ValueError, match=r"unknown fields \['sizes'\]"):
        PlanSpec.from_json({"size": 10, "sizes": 3})
    with pytest.raises(ValueError, match="version"):
        PlanSpec.from_json({"size": 10, "version": 99})


def test_plan_summary():
    spec = PlanSpec(size=40, random=20, selectors=("greedy-vendi",), selector_draws=2, duplicates=4)
    plan = make_plan(spec, n_pool=N_POOL, select=_seeded)
    assert (
        plan_summary(plan) == "26 subsets of 40 rows: 20 random, 2 greedy-vendi, 4 duplicate-heavy"
    )
    assert plan_summary(plan[:1]) == "1 subset of 40 rows: 1 random"
    assert plan_summary([]) == "no subsets"
