"""What a selection run records as its result, typed: :class:`SelectionResult`.

The selection job builds it, the store keeps its :meth:`~SelectionResult.to_json` (a dict
with a ``"schema"`` version), and every reader (the views, the app's workbench) reads it back
with :meth:`~SelectionResult.from_json`, which also reads the results stored before the
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
"""The version of :meth:`SelectionResult.to_json`. Results without one are version 0 (the
same fields, ``computed_on`` added later), read by :meth:`SelectionResult.from_json`."""


@dataclass(frozen=True)
class SelectionCurve:
    """Diversity vs budget: the Vendi score of each prefix of the picks, per vector set."""

    budgets: list[int]
    """The prefix sizes measured (the last is ``k``)."""
    vendi: dict[str, list[float]]
    """Vector set -> Vendi score of the first ``b`` picks, for each budget ``b``."""
    random: dict[str, list[float]]
    """The same for a random order of the candidates (the baseline)."""
    kinds: dict[str, str]
    """Vector set -> its kind (``gradient``, ``embedding``)."""
    objective: list[float] | None = None
    """The selector's objective at each budget, when it reported one per pick."""
    objective_name: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "budgets": list(self.budgets),
            "objective": self.objective,
            "objective_name": self.objective_name,
            "vendi": self.vendi,
            "random": self.random,
            "kinds": self.kinds,
        }

    @classmethod
    def from_json(
        cls, data: Mapping[str, Any], *, what: str = "a selection curve"
    ) -> SelectionCurve:
        objective = _optional(data, "objective", what)
        name = _optional(data, "objective_name", what)
        return cls(
            budgets=[int(b) for b in _required(data, "budgets", list, what)],
            vendi=_series(_required(data, "vendi", dict, what)),
            random=_series(_required(data, "random", dict, what)),
            kinds={str(k): str(v) for k, v in _required(data, "kinds", dict, what).items()},
            objective=None if objective is None else [_number(v) for v in objective],
            objective_name=None if name is None else str(name),
        )


@dataclass(frozen=True)
class SelectionResult:
    """One selection run's result: what it chose from, how much, and how diverse it is."""

    dataset: str
    method: str
    """The selector plugin."""
    k: int
    """The budget: how many records were chosen."""
    vector_set: str
    """The vector set it selected on."""
    n_candidates: int
    """Records it could choose from (the dataset less ``excluded``)."""
    excluded: int
    """Records left out (excluded subsets, near-duplicates)."""
    objective_name: str
    objective: float
    """The selector's objective of the whole selection (NaN when it reported none)."""
    subset: str
    """The subset the picks were saved as."""
    run_id: int
    seconds: float
    curve: SelectionCurve
    details: dict[str, Any] = field(default_factory=dict)
    """What the selector reported (scalars and short lists)."""
    computed_on: str = ""
    """The vectors it chose on, as :func:`vendiscope.core.vectors.resolve.describe` says
    (empty for runs recorded before it was kept)."""

    @property
    def vendi(self) -> dict[str, float]:
        """Vector set -> Vendi score of the whole selection."""
        return {name: values[-1] for name, values in self.curve.vendi.items()}

    @property
    def random_vendi(self) -> dict[str, float]:
        """Vector set -> Vendi score of as many random candidates (the baseline)."""
        return {name: values[-1] for name, values in self.curve.random.items()}

    def summary(self) -> dict[str, Any]:
        """The headline numbers (no curve, no details), as the CLI and the API show them."""
        return {
            "dataset": self.dataset,
            "method": self.method,
            "k": self.k,
            "vector_set": self.vector_set,
            "computed_on": self.computed_on,
            "candidates": self.n_candidates,
            "excluded": self.excluded,
            "objective": {"name": self.objective_name, "value": self.objective},
            "vendi": self.vendi,
            "random_vendi": self.random_vendi,
            "subset": self.subset,
            "run_id": self.run_id,
            "seconds": round(self.seconds, 3),
        }

    def to_json(self) -> dict[str, Any]:
        """What the run stores: the summary, the curve and the details, with ``"schema"``."""
        return {
            "schema": SCHEMA,
            **self.summary(),
            "curve": self.curve.to_json(),
            "details": self.details,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> SelectionResult:
        """A stored result (:meth:`to_json`, or an older one without ``"schema"``).

        Raises :class:`~vendiscope.core.base.errors.ProjectError` naming the field for a
        result that lacks one or holds the wrong type, and for one of a newer schema.
        """
        if not isinstance(data, Mapping):
            raise ProjectError(f"a selection run's result is not a JSON object: {data!r:.80}")
        data = _migrated(data)
        what = f"selection run #{data['run_id']}" if "run_id" in data else "a selection run"
        objective = _required(data, "objective", dict, what)
        return cls(
            dataset=_required(data, "dataset", str, what),
            method=_required(data, "method", str, what),
            k=_required(data, "k", int, what),
            vector_set=_required(data, "vector_set", str, what),
            n_candidates=_required(data, "candidates", int, what),
            excluded=_required(data, "excluded", int, what),
            objective_name=str(_required(objective, "name", str, f"{what}'s objective")),
            objective=_number(_optional(objective, "value", f"{what}'s objective")),
            subset=_required(data, "subset", str, what),
            run_id=_required(data, "run_id", int, what),
            seconds=_number(_required(data, "seconds", (int, float), what)),
            curve=SelectionCurve.from_json(
                _required(data, "curve", dict, what), what=f"{what}'s curve"
            ),
            details=dict(_required(data, "details", dict, what)),
            computed_on=_required(data, "computed_on", str, what),
        )


def _migrated(data: Mapping[str, Any]) -> Mapping[str, Any]:
    """``data`` in the current schema: version 0 (no ``"schema"``) lacked ``computed_on``."""
    if "schema" not in data:
        return {"computed_on": "", **data, "schema": SCHEMA}
    schema = data["schema"]
    if schema != SCHEMA:
        raise ProjectError(
            f"a selection run's result has schema {schema!r}; this version of Vendiscope reads "
            f"schema {SCHEMA} (written by a newer version?)"
        )
    return data


def _series(data: Mapping[str, Any]) -> dict[str, list[float]]:
    return {str(name): [_number(v) for v in values] for name, values in data.items()}
