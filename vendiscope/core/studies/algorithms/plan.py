"""The plan of a study: which subsets of the pool it trains on (pure numpy).

Every subset has ``size`` rows of the pool, never one of the rows to exclude. Five kinds:

* ``random``: uniform draws, the control every diversity score must beat;
* ``selector``: what a selection method picks (the job supplies ``select``);
* ``sources``: rows of only m of the pool's S sources, m spread geometrically over 1..S;
* ``duplicates``: few distinct rows, each repeated, so low diversity by construction;
* ``existing``: subsets the user already has.

Each draw has its own generator, ``np.random.default_rng([seed, kind, i])``, so a spec always
gives the same plan, and asking for more random subsets keeps the earlier ones: a study can grow.
Positions are 0-based and ascending; the trainer shuffles.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from vendiscope.core.studies.algorithms.spec import SPEC_VERSION as SPEC_VERSION
from vendiscope.core.studies.algorithms.spec import PlanSpec as PlanSpec
from vendiscope.core.studies.algorithms.spec import is_int, slug

PLAN_KINDS = ("random", "selector", "sources", "duplicates", "existing")

Select = Callable[[str, int, int], Sequence[int]]
"""``(selector, k, seed) -> positions``: the ``k`` pool positions a selector picks."""

_LABELS = {
    "random": "random",
    "sources": "source-restricted",
    "duplicates": "duplicate-heavy",
    "existing": "existing",
}


@dataclass(frozen=True)
class PlannedSubset:
    """One subset of the plan: its name, kind, pool positions, and how it was drawn."""

    name: str
    kind: str
    positions: tuple[int, ...]
    detail: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.kind not in PLAN_KINDS:
            raise ValueError(f"kind must be one of {PLAN_KINDS}, not {self.kind!r}")
        object.__setattr__(self, "positions", tuple(int(p) for p in self.positions))

    @property
    def size(self) -> int:
        """How many rows the subset has, repeats included."""
        return len(self.positions)

    def to_json(self) -> dict[str, Any]:
        """The subset as JSON-friendly values."""
        return {
            "name": self.name,
            "kind": self.kind,
            "positions": list(self.positions),
            "detail": dict(self.detail),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PlannedSubset:
        """The subset :meth:`to_json` wrote."""
        return cls(
            name=str(data["name"]),
            kind=str(data["kind"]),
            positions=tuple(data["positions"]),
            detail=dict(data.get("detail", {})),
        )


def make_plan(
    spec: PlanSpec,
    *,
    n_pool: int,
    sources: Sequence[str | None] | None = None,
    select: Select | None = None,
    existing: Mapping[str, Sequence[int]] | None = None,
    exclude: Collection[int] = (),
) -> list[PlannedSubset]:
    """The subsets ``spec`` asks for, in :data:`PLAN_KINDS` order, from a pool of ``n_pool`` rows.

    ``sources`` gives each pool row's source (``None`` or ``""``: unknown), needed for
    ``sources`` subsets; ``select`` runs a selector, needed for ``selector`` subsets;
    ``existing`` maps each name in ``spec.existing`` to its pool positions. No subset uses a
    position in ``exclude``. Raises ``ValueError`` naming the field when the plan can't be made.
    """
    allowed = _allowed(n_pool, exclude)
    usable = np.flatnonzero(allowed)
    if spec.size > usable.size:
        raise ValueError(
            f"size: {spec.size} rows asked for, but the pool has only {usable.size} usable rows "
            f"({n_pool} less {n_pool - usable.size} excluded)"
        )
    # cheap checks first: a selector may take minutes
    randoms = _random_subsets(spec, usable)
    by_source = _source_subsets(spec, usable, sources, n_pool)
    duplicated = _duplicate_subsets(spec, usable)
    given = _existing_subsets(spec, allowed, existing)
    selected = _selector_subsets(spec, allowed, select)
    return [*randoms, *selected, *by_source, *duplicated, *given]


def plan_summary(plan: Sequence[PlannedSubset]) -> str:
    """One line: "26 subsets of 500 rows: 20 random, 2 greedy-vendi, 4 duplicate-heavy"."""
    if not plan:
        return "no subsets"
    groups: dict[str, int] = {}
    for subset in plan:
        label = _LABELS.get(subset.kind) or str(subset.detail.get("selector", subset.kind))
        groups[label] = groups.get(label, 0) + 1
    sizes = sorted({subset.size for subset in plan})
    rows = f"{sizes[0]}" if len(sizes) == 1 else f"{sizes[0]}-{sizes[-1]}"
    noun = "subset" if len(plan) == 1 else "subsets"
    parts = ", ".join(f"{count} {label}" for label, count in groups.items())
    return f"{len(plan)} {noun} of {rows} rows: {parts}"


def _random_subsets(spec: PlanSpec, usable: np.ndarray) -> list[PlannedSubset]:
    subsets = []
    for i in range(spec.random):
        rng, key = _rng(spec, "random", i)
        rows = rng.choice(usable, spec.size, replace=False)
        subsets.append(PlannedSubset(f"random-{i + 1:02d}", "random", _sorted(rows), {"seed": key}))
    return subsets


def _selector_subsets(
    spec: PlanSpec, allowed: np.ndarray, select: Select | None
) -> list[PlannedSubset]:
    if not spec.selectors:
        return []
    if select is None:
        raise ValueError(f"selectors: the plan names {list(spec.selectors)} but no select is given")
    subsets = []
    for name in spec.selectors:
        found: dict[tuple[int, ...], list[int]] = {}  # a subset -> the seeds that gave it
        for draw in range(spec.selector_draws):
            seed = spec.seed + draw
            rows = _checked_selection(name, seed, select(name, spec.size, seed), spec.size, allowed)
            found.setdefault(rows, []).append(seed)
        for number, (rows, seeds) in enumerate(found.items(), 1):
            detail = {"selector": name, "seed": seeds[0], "seeds": seeds}
            detail["deterministic"] = len(seeds) > 1  # several seeds gave this same subset
            subsets.append(PlannedSubset(f"{slug(name)}-{number:02d}", "selector", rows, detail))
    return subsets


def _checked_selection(
    name: str, seed: int, result: Any, size: int, allowed: np.ndarray
) -> tuple[int, ...]:
    what = f"selector {name!r} (seed {seed})"
    rows = _as_positions(result, allowed.size, what)
    if rows.size != size:
        raise ValueError(f"{what} returned {rows.size} positions, not the {size} asked for")
    if np.unique(rows).size != rows.size:
        raise ValueError(f"{what} returned repeated positions: {_few(_repeated(rows))}")
    if not allowed[rows].all():
        raise ValueError(f"{what} returned excluded positions: {_few(rows[~allowed[rows]])}")
    return _sorted(rows)


def _source_subsets(
    spec: PlanSpec, usable: np.ndarray, sources: Sequence[str | None] | None, n_pool: int
) -> list[PlannedSubset]:
    if not spec.sources:
        return []
    rows_of = _rows_by_source(sources, usable, n_pool)
    if len(rows_of) < 2:
        raise ValueError(
            f"the pool has no source field: {spec.sources} sources subsets need usable rows from "
            f"at least 2 known sources, and the pool has {len(rows_of)}"
        )
    known = sum(rows.size for rows in rows_of.values())
    if known < spec.size:
        raise ValueError(
            f"sources: only {known} usable rows have a known source, fewer than size={spec.size}"
        )
    names = list(rows_of)
    subsets = []
    for i, asked in enumerate(_spread(1, len(names), spec.sources)):
        rng, key = _rng(spec, "sources", i)
        order = [names[k] for k in rng.permutation(len(names))]
        used = max(1, asked)
        while sum(rows_of[source].size for source in order[:used]) < spec.size:
            used += 1  # too few rows: add sources until they hold enough
        chosen = sorted(order[:used], key=str)
        rows = rng.choice(np.concatenate([rows_of[c] for c in chosen]), spec.size, replace=False)
        detail = {
            "seed": key,
            "sources": chosen,
            "n_sources": used,
            "asked_sources": asked,
            "of_sources": len(names),
        }
        subsets.append(PlannedSubset(f"sources-{i + 1:02d}", "sources", _sorted(rows), detail))
    return subsets


def _rows_by_source(
    sources: Sequence[str | None] | None, usable: np.ndarray, n_pool: int
) -> dict[str, np.ndarray]:
    """The usable rows of each known source, the sources sorted by name."""
    if sources is None:
        return {}
    if len(sources) != n_pool:
        raise ValueError(f"sources: {len(sources)} values given for a pool of {n_pool} rows")
    rows: dict[str, list[int]] = {}
    for position in usable.tolist():
        source = sources[position]
        if source is not None and source != "":
            rows.setdefault(source, []).append(position)
    return {name: np.array(rows[name], dtype=np.int64) for name in sorted(rows, key=str)}


def _duplicate_subsets(spec: PlanSpec, usable: np.ndarray) -> list[PlannedSubset]:
    subsets = []
    for i, wanted in enumerate(_spread(spec.size / 8, spec.size / 2, spec.duplicates)):
        distinct = max(1, wanted)
        rng, key = _rng(spec, "duplicates", i)
        chosen = rng.choice(usable, distinct, replace=False)
        repeats, extra = divmod(spec.size, distinct)
        counts = np.full(distinct, repeats)
        counts[:extra] += 1  # as even as possible
        detail = {
            "seed": key,
            "distinct": distinct,
            "repeats_min": repeats,
            "repeats_max": repeats + (1 if extra else 0),
        }
        rows = _sorted(np.repeat(chosen, counts))
        subsets.append(PlannedSubset(f"duplicates-{i + 1:02d}", "duplicates", rows, detail))
    return subsets


def _existing_subsets(
    spec: PlanSpec, allowed: np.ndarray, existing: Mapping[str, Sequence[int]] | None
) -> list[PlannedSubset]:
    given = existing or {}
    missing = [name for name in spec.existing if name not in given]
    if missing:
        raise ValueError(f"existing: no positions were given for {missing}")
    subsets = []
    for i, name in enumerate(spec.existing):
        what = f"existing subset {name!r}"
        rows = _as_positions(given[name], allowed.size, what)
        if np.unique(rows).size != rows.size:
            raise ValueError(f"{what} has repeated positions: {_few(_repeated(rows))}")
        kept = np.sort(rows[allowed[rows]])
        excluded = int(rows.size - kept.size)
        if kept.size < spec.size:
            raise ValueError(
                f"{what} has {kept.size} usable rows ({excluded} excluded), "
                f"fewer than size={spec.size}"
            )
        detail: dict[str, Any] = {"subset": name, "rows": int(rows.size), "excluded": excluded}
        detail["sampled"] = bool(kept.size > spec.size)  # larger: `size` of its rows at random
        if detail["sampled"]:
            rng, detail["seed"] = _rng(spec, "existing", i)
            kept = rng.choice(kept, spec.size, replace=False)
        subsets.append(PlannedSubset(f"existing-{slug(name)}", "existing", _sorted(kept), detail))
    return subsets


def _allowed(n_pool: int, exclude: Collection[int]) -> np.ndarray:
    """A mask of the pool: True where a position may be used."""
    if not is_int(n_pool) or n_pool < 0:
        raise ValueError(f"n_pool must be a whole number of rows, not {n_pool!r}")
    allowed = np.ones(n_pool, dtype=bool)
    allowed[_as_positions(exclude, n_pool, "exclude")] = False
    return allowed


def _as_positions(values: Any, n_pool: int, what: str) -> np.ndarray:
    """``values`` as an int64 array of positions in ``0..n_pool - 1``, else ``ValueError``."""
    try:
        array = values if isinstance(values, np.ndarray) else np.asarray(list(values))
    except TypeError:
        raise ValueError(f"{what} must be a sequence of pool positions, not {values!r}") from None
    if array.size == 0:
        return np.empty(0, dtype=np.int64)
    if array.ndim != 1 or not np.issubdtype(array.dtype, np.integer):
        raise ValueError(f"{what} must be whole-number pool positions")
    outside = array[(array < 0) | (array >= n_pool)]
    if outside.size:
        raise ValueError(f"{what} has positions outside the pool of {n_pool} rows: {_few(outside)}")
    return array.astype(np.int64)


def _spread(low: float, high: float, count: int) -> list[int]:
    """``count`` whole numbers from ``low`` to ``high``, spaced geometrically."""
    if count <= 0:
        return []
    return [int(v) for v in np.rint(np.geomspace(low, high, count))]


def _rng(spec: PlanSpec, kind: str, index: int) -> tuple[np.random.Generator, list[int]]:
    """The generator of one draw, and its seed as JSON-friendly values."""
    key = [spec.seed, PLAN_KINDS.index(kind), index]
    return np.random.default_rng(key), key


def _sorted(rows: np.ndarray) -> tuple[int, ...]:
    return tuple(int(r) for r in np.sort(rows))


def _repeated(rows: np.ndarray) -> np.ndarray:
    values, counts = np.unique(rows, return_counts=True)
    return values[counts > 1]


def _few(values: np.ndarray, limit: int = 5) -> str:
    """Up to ``limit`` of ``values``, for an error message."""
    shown = [int(v) for v in np.unique(values)[:limit]]
    return f"{shown}" + (" ..." if np.unique(values).size > limit else "")
