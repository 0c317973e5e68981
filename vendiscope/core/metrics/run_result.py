"""What a scoring run records as its result, typed: :class:`ScoreRunResult`.

The scoring job (:mod:`.scoring`) builds it, the store keeps its :meth:`~ScoreRunResult.to_json`
(a dict with a ``"schema"`` version), and the readers (the views' score summary, the app's
subset comparison) read it back with :meth:`~ScoreRunResult.from_json`, which also reads the
results stored before the version key. A result missing a field is refused by name.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from vendiscope.core.base.errors import ProjectError
from vendiscope.core.base.stored import number, optional, required

SCHEMA = 1
"""The version of :meth:`ScoreRunResult.to_json`. Results without one are version 0: the
same fields, some added over time (``computed_on``, ``per_record_set``, ``n`` once kept in
``details``), read by :meth:`ScoreRunResult.from_json`."""
_ADDED_SINCE_0: dict[str, Any] = {
    "computed_on": "",
    "details": {},
    "per_source": {},
    "per_record_set": None,
    "subset": None,
    "vs_random": None,
}


@dataclass(frozen=True)
class ScoreRunResult:
    """One scoring run's stored result: the score of a dataset (or subset) on a vector set."""

    value: float
    """The metric's value (e.g. the Vendi score)."""
    n: int
    """Records scored."""
    computed_on: str = ""
    """The vectors scored, as :func:`vendiscope.core.vectors.resolve.describe` says (empty for
    runs recorded before it was kept)."""
    details: dict[str, Any] = field(default_factory=dict)
    """What the metric reported (interval, verdict, spectrum...): JSON values only."""
    per_source: dict[str, dict[str, float]] = field(default_factory=dict)
    per_record_set: str | None = None
    """The one-column vector set of per-record scores, if stored."""
    subset: str | None = None
    """The subset scored (``None``: the whole dataset)."""
    vs_random: dict[str, Any] | None = None
    """The random baseline of a subset's size, if drawn."""

    def to_json(self) -> dict[str, Any]:
        """What the run stores, with ``"schema"``."""
        return {
            "schema": SCHEMA,
            "value": self.value,
            "n": self.n,
            "computed_on": self.computed_on,
            "details": self.details,
            "per_source": self.per_source,
            "per_record_set": self.per_record_set,
            "subset": self.subset,
            "vs_random": self.vs_random,
        }

    @classmethod
    def from_json(
        cls, data: Mapping[str, Any] | None, *, run_id: int | None = None
    ) -> ScoreRunResult:
        """A stored result (:meth:`to_json`, or an older one without ``"schema"``).

        Raises :class:`~vendiscope.core.base.errors.ProjectError` naming the field for a
        result that lacks one or holds the wrong type, and for one of a newer schema.
        """
        what = "a scoring run" if run_id is None else f"scoring run #{run_id}"
        if not isinstance(data, Mapping):
            raise ProjectError(f"{what}: its result is not a JSON object: {data!r:.80}")
        data = _migrated(data, what)
        subset = optional(data, "subset", what)
        per_record_set = optional(data, "per_record_set", what)
        vs_random = optional(data, "vs_random", what)
        return cls(
            value=number(required(data, "value", (int, float), what)),
            n=required(data, "n", int, what),
            computed_on=required(data, "computed_on", str, what),
            details=dict(required(data, "details", dict, what)),
            per_source=dict(required(data, "per_source", dict, what)),
            per_record_set=None if per_record_set is None else str(per_record_set),
            subset=None if subset is None else str(subset),
            vs_random=dict(vs_random) if vs_random else None,
        )


def _migrated(data: Mapping[str, Any], what: str) -> Mapping[str, Any]:
    """``data`` in the current schema: version 0 (no ``"schema"``) may lack the later fields,
    and the oldest kept ``n`` in ``details``."""
    if "schema" not in data:
        migrated = {**_ADDED_SINCE_0, **data, "schema": SCHEMA}
        for key in ("details", "per_source"):  # once written as null when empty
            migrated[key] = migrated[key] or {}
        details = migrated.get("details")
        if migrated.get("n") is None and isinstance(details, Mapping) and "n" in details:
            migrated["n"] = details["n"]
        return migrated
    schema = data["schema"]
    if schema != SCHEMA:
        raise ProjectError(
            f"{what}: its result has schema {schema!r}; this version of Vendiscope reads "
            f"schema {SCHEMA} (written by a newer version?)"
        )
    return data
