"""What a clustering run records as its result, typed: :class:`ClusterResult`.

The clustering job builds it, the store keeps its :meth:`~ClusterResult.to_json` (with a
``"schema"`` version), and every reader (the views, the map, the report, the app, the
Prismatic filter) reads it back with :meth:`~ClusterResult.from_json`; results stored before
the version key migrate. A result missing a field is refused by name, never read as 0.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from vendiscope.core.base.errors import ProjectError
from vendiscope.core.base.stored import number as _number
from vendiscope.core.base.stored import required as _required

SCHEMA = 1
"""The version of :meth:`ClusterResult.to_json`. Results without one are version 0 (the same
fields; ``computed_on`` and ``median_size`` added over time)."""


@dataclass(frozen=True)
class ClusterResult:
    """One clustering run's result: the cluster sizes and which clusters are sparse."""

    dataset: str
    vector_set: str
    labels: str
    """The one-column vector set holding each record's cluster."""
    sizes: list[int]
    """Records per cluster, by cluster number."""
    sparse: list[int]
    """The sparse clusters (smaller than the median), ascending."""
    median_size: float
    run_id: int
    seconds: float
    computed_on: str = ""
    examples: dict[int, list[int]] = field(default_factory=dict)
    """A few record positions of each of the smallest sparse clusters."""

    @property
    def n_clusters(self) -> int:
        return len(self.sizes)

    @property
    def records_in_sparse(self) -> int:
        return sum(self.sizes[c] for c in self.sparse)

    def summary(self) -> dict[str, Any]:
        """The headline numbers, as the CLI and the API show them."""
        return {
            "dataset": self.dataset,
            "vector_set": self.vector_set,
            "computed_on": self.computed_on,
            "clusters": self.n_clusters,
            "median_size": self.median_size,
            "sparse_clusters": len(self.sparse),
            "records_in_sparse_clusters": self.records_in_sparse,
            "labels": self.labels,
            "run_id": self.run_id,
            "seconds": round(self.seconds, 3),
        }

    def to_json(self) -> dict[str, Any]:
        """What the run stores: the summary, the sizes, the sparse clusters and examples."""
        return {
            "schema": SCHEMA,
            **self.summary(),
            "sizes": list(self.sizes),
            "sparse": list(self.sparse),
            "examples": {str(c): list(p) for c, p in self.examples.items()},
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> ClusterResult:
        """A stored result (:meth:`to_json`, or an older one without ``"schema"``)."""
        if not isinstance(data, Mapping):
            raise ProjectError(f"a clustering run's result is not a JSON object: {data!r:.80}")
        data = _migrated(data)
        what = f"clustering run #{data['run_id']}" if "run_id" in data else "a clustering run"
        sizes = [int(s) for s in _required(data, "sizes", list, what)]
        sparse = sorted(int(c) for c in _required(data, "sparse", list, what))
        examples = _required(data, "examples", dict, what)
        return cls(
            dataset=_required(data, "dataset", str, what),
            vector_set=_required(data, "vector_set", str, what),
            labels=_required(data, "labels", str, what),
            sizes=sizes,
            sparse=sparse,
            median_size=_number(_required(data, "median_size", (int, float), what)),
            run_id=_required(data, "run_id", int, what),
            seconds=_number(_required(data, "seconds", (int, float), what)),
            computed_on=_required(data, "computed_on", str, what),
            examples={int(c): [int(p) for p in ps] for c, ps in examples.items()},
        )


def _migrated(data: Mapping[str, Any]) -> Mapping[str, Any]:
    """``data`` in the current schema; version 0 (no ``"schema"``) may lack ``computed_on``,
    ``median_size`` (the median of the sizes) and ``examples``."""
    if "schema" not in data:
        sizes = data.get("sizes")
        median = statistics.median(sizes) if isinstance(sizes, list) and sizes else 0.0
        return {"computed_on": "", "median_size": median, "examples": {}, **data,
                "schema": SCHEMA}  # fmt: skip
    if data["schema"] != SCHEMA:
        raise ProjectError(
            f"a clustering run's result has schema {data['schema']!r}; this version of "
            f"Vendiscope reads schema {SCHEMA} (written by a newer version?)"
        )
    return data


__all__ = ["SCHEMA", "ClusterResult"]
