"""What a map run records as its result, typed: :class:`MapResult`.

The map job stores :meth:`MapResult.to_json` (with a ``"schema"`` version; the method's own
details, such as UMAP's settings or PCA's explained variance, sit beside the fields), and the
app's map reads it back with :meth:`MapResult.from_json`; results from before the version key
migrate. A result missing a field is refused by name.
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
"""The version of :meth:`MapResult.to_json`; results without one are version 0 (the same
fields, ``computed_on`` added later)."""
FIELDS = ("dataset", "vector_set", "computed_on", "map", "method", "fitted_rows", "placed_rows",
          "trustworthiness", "run_id", "seconds", "schema")  # fmt: skip


@dataclass(frozen=True)
class MapResult:
    """One map run's result."""

    dataset: str
    vector_set: str
    """The vectors mapped."""
    map: str
    """The two-column vector set holding the map."""
    method: str
    fitted_rows: int
    placed_rows: int
    trustworthiness: float | None
    """How well the map keeps neighbourhoods (0-1, on a sample); None when not measured."""
    run_id: int
    seconds: float
    computed_on: str = ""
    details: dict[str, Any] = field(default_factory=dict)
    """What the method reported (UMAP's settings, PCA's explained variance, the index)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "dataset": self.dataset,
            "vector_set": self.vector_set,
            "computed_on": self.computed_on,
            "map": self.map,
            "method": self.method,
            "fitted_rows": self.fitted_rows,
            "placed_rows": self.placed_rows,
            "trustworthiness": self.trustworthiness,
            "run_id": self.run_id,
            "seconds": round(self.seconds, 3),
            **{k: v for k, v in self.details.items() if k not in FIELDS},
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> MapResult:
        """A stored result (:meth:`to_json`, or an older one without ``"schema"``)."""
        if not isinstance(data, Mapping):
            raise ProjectError(f"a map run's result is not a JSON object: {data!r:.80}")
        if "schema" not in data:
            data = {"computed_on": "", **data, "schema": SCHEMA}
        elif data["schema"] != SCHEMA:
            raise ProjectError(
                f"a map run's result has schema {data['schema']!r}; this version of Vendiscope "
                f"reads schema {SCHEMA} (written by a newer version?)"
            )
        what = f"map run #{data['run_id']}" if "run_id" in data else "a map run"
        trust = _optional(data, "trustworthiness", what)
        return cls(
            dataset=_required(data, "dataset", str, what),
            vector_set=_required(data, "vector_set", str, what),
            map=_required(data, "map", str, what),
            method=_required(data, "method", str, what),
            fitted_rows=_required(data, "fitted_rows", int, what),
            placed_rows=_required(data, "placed_rows", int, what),
            trustworthiness=None if trust is None else _number(trust),
            run_id=_required(data, "run_id", int, what),
            seconds=_number(_required(data, "seconds", (int, float), what)),
            computed_on=_required(data, "computed_on", str, what),
            details={k: v for k, v in data.items() if k not in FIELDS},
        )


__all__ = ["SCHEMA", "MapResult"]
