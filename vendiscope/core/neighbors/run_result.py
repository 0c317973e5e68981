"""What a near-duplicate run records as its result, typed: :class:`NearDuplicateResult`.

The near-duplicate job builds it, the store keeps its :meth:`~NearDuplicateResult.to_json`
(with a ``"schema"`` version), and every reader (the views, the report, the app) reads it back
with :meth:`~NearDuplicateResult.from_json`, which also reads results stored before the
version key (they migrate). A result missing a field is refused by name, never read as 0.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from vendiscope.core.base.errors import ProjectError
from vendiscope.core.base.stored import number as _number
from vendiscope.core.base.stored import optional as _optional
from vendiscope.core.base.stored import required as _required

SCHEMA = 1
"""The version of :meth:`NearDuplicateResult.to_json`. Results without one are version 0:
the same headline fields, some of the listing fields (``computed_on``, ``index``,
``groups_listed``, ``groups_truncated``, ``group_sizes``, ``group_positions``) added over time."""


@dataclass(frozen=True)
class NearDuplicateResult:
    """One near-duplicate run's result: the groups found and the subset of redundant records."""

    dataset: str
    vector_set: str
    threshold: float
    """The least cosine similarity that links two records."""
    k: int
    """Nearest neighbours examined per record."""
    records: int
    groups: int
    records_in_groups: int
    redundant: int
    """Records that are not their group's representative (what the subset holds)."""
    largest_group: int
    subset: str | None
    """The subset of redundant records (``None`` when the run did not save one)."""
    run_id: int
    seconds: float
    computed_on: str = ""
    index: dict[str, Any] = field(default_factory=dict)
    """The index that searched (kind, exact or calibrated recall...)."""
    group_sizes: list[int] = field(default_factory=list)
    """Sizes of the listed groups, largest first (at most the job's listing limit)."""
    group_positions: list[list[int]] = field(default_factory=list)
    """Record positions of each listed group (each cut to the job's member limit)."""
    groups_truncated: bool = False
    """More groups were found than are listed."""

    def summary(self) -> dict[str, Any]:
        """The headline numbers, as the CLI and the API show them."""
        return {
            "dataset": self.dataset,
            "vector_set": self.vector_set,
            "computed_on": self.computed_on,
            "threshold": self.threshold,
            "k": self.k,
            "records": self.records,
            "groups": self.groups,
            "records_in_groups": self.records_in_groups,
            "redundant": self.redundant,
            "largest_group": self.largest_group,
            "subset": self.subset,
            "run_id": self.run_id,
            "seconds": round(self.seconds, 3),
        }

    def to_json(self) -> dict[str, Any]:
        """What the run stores: the summary and the listed groups, with ``"schema"``."""
        return {
            "schema": SCHEMA,
            **self.summary(),
            "index": self.index,
            "groups_listed": len(self.group_sizes),
            "groups_truncated": self.groups_truncated,
            "group_sizes": list(self.group_sizes),
            "group_positions": [list(g) for g in self.group_positions],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> NearDuplicateResult:
        """A stored result (:meth:`to_json`, or an older one without ``"schema"``).

        Raises :class:`~vendiscope.core.base.errors.ProjectError` naming the field for a
        result that lacks one or holds the wrong type, and for one of a newer schema.
        """
        if not isinstance(data, Mapping):
            raise ProjectError(f"a near-duplicate run's result is not a JSON object: {data!r:.80}")
        data = _migrated(data)
        what = (
            f"near-duplicate run #{data['run_id']}" if "run_id" in data else "a near-duplicate run"
        )
        subset = _optional(data, "subset", what)
        truncated = _optional(data, "groups_truncated", what)
        if not isinstance(truncated, bool):
            raise ProjectError(f"{what}: its result's 'groups_truncated' is {truncated!r:.80}")
        return cls(
            dataset=_required(data, "dataset", str, what),
            vector_set=_required(data, "vector_set", str, what),
            threshold=_number(_required(data, "threshold", (int, float), what)),
            k=_required(data, "k", int, what),
            records=_required(data, "records", int, what),
            groups=_required(data, "groups", int, what),
            records_in_groups=_required(data, "records_in_groups", int, what),
            redundant=_required(data, "redundant", int, what),
            largest_group=_required(data, "largest_group", int, what),
            subset=None if subset is None else str(subset),
            run_id=_required(data, "run_id", int, what),
            seconds=_number(_required(data, "seconds", (int, float), what)),
            computed_on=_required(data, "computed_on", str, what),
            index=dict(_required(data, "index", dict, what)),
            group_sizes=[int(s) for s in _required(data, "group_sizes", list, what)],
            group_positions=[
                [int(p) for p in group] for group in _required(data, "group_positions", list, what)
            ],
            groups_truncated=truncated,
        )


def _migrated(data: Mapping[str, Any]) -> Mapping[str, Any]:
    """``data`` in the current schema; version 0 (no ``"schema"``) gains the listing fields
    it may lack, empty."""
    if "schema" not in data:
        sizes = data.get("group_sizes") or []
        listed: dict[str, Any] = {
            "computed_on": "",
            "index": {},
            "group_sizes": sizes,
            "group_positions": [],
            "groups_truncated": int(data.get("groups", 0) or 0) > len(sizes),
        }
        present = {key: value for key, value in data.items() if value is not None}
        return {**listed, **present, "subset": data.get("subset"), "schema": SCHEMA}
    schema = data["schema"]
    if schema != SCHEMA:
        raise ProjectError(
            f"a near-duplicate run's result has schema {schema!r}; this version of Vendiscope "
            f"reads schema {SCHEMA} (written by a newer version?)"
        )
    return data


__all__ = ["SCHEMA", "NearDuplicateResult"]
