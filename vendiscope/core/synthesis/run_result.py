"""What a synthesis run records as its result, read back typed: :class:`SynthesisResult`.

A synthesis run commits its result round by round, so a reader may see it part-way.
:meth:`SynthesisResult.from_json` says in one place which fields exist from the start (the
pool, the new dataset's names) and which arrive with the first round (totals, G-Vendi),
and refuses a malformed one by name. The app's monitor reads runs through it, never with
``.get(key) or default``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from vendiscope.core.base.errors import ProjectError
from vendiscope.core.base.stored import number as _number
from vendiscope.core.base.stored import required as _required


@dataclass(frozen=True)
class SynthesisRound:
    """One round: what was generated, kept and why the rest was rejected."""

    number: int
    """0-based."""
    generated: int
    duplicates: int
    accepted: int
    rejected: int
    reasons: dict[str, int]
    gvendi: float | None
    baseline: float | None
    """G-Vendi with as many unfiltered generations (None until there are enough)."""

    @property
    def usable(self) -> int:
        return self.generated - self.duplicates


@dataclass(frozen=True)
class SynthesisResult:
    """A synthesis run's result as stored so far."""

    dataset: str
    """The pool."""
    name: str
    """The dataset of accepted examples."""
    all_name: str
    """The unfiltered stream."""
    rounds: tuple[SynthesisRound, ...] = ()
    accepted: int = 0
    generated: int = 0
    budget: int | None = None
    stopped: str | None = None
    """``budget``, ``rounds``, ``target``, ``patience``, ``cancelled``, ``failed`` or None."""
    pool_gvendi: float | None = None
    gvendi: float | None = None
    baseline: float | None = None
    rejects: tuple[Mapping[str, Any], ...] = ()
    data: Mapping[str, Any] = field(default_factory=dict, repr=False)
    """The whole stored result (the curve reads its parts of it)."""

    @classmethod
    def from_json(
        cls, data: Mapping[str, Any] | None, *, run_id: int | None = None
    ) -> SynthesisResult:
        """The stored result of a synthesis run (raises ``ProjectError`` naming a bad field)."""
        what = f"synthesis run #{run_id}" if run_id is not None else "a synthesis run"
        if not isinstance(data, Mapping):
            raise ProjectError(f"{what}: its result is not a JSON object: {data!r:.80}")
        name = _required(data, "name", str, what)
        rounds = tuple(
            _round(entry, index, what)
            for index, entry in enumerate(data.get("rounds", ()))  # arrive round by round
        )
        budget = data.get("budget")
        return cls(
            dataset=_required(data, "dataset", str, what),
            name=name,
            all_name=str(data.get("all", f"{name}-all")),  # runs before it was kept
            rounds=rounds,
            accepted=int(data.get("accepted", 0)),  # from the first round on
            generated=int(data.get("generated", 0)),
            budget=None if budget is None else int(budget),
            stopped=None if data.get("stopped") is None else str(data["stopped"]),
            pool_gvendi=_optional_number(data, "pool_gvendi"),
            gvendi=_optional_number(data, "gvendi"),
            baseline=_optional_number(data, "baseline"),
            rejects=tuple(r for r in data.get("rejects", ()) if isinstance(r, Mapping)),
            data=data,
        )


def _round(entry: Any, index: int, what: str) -> SynthesisRound:
    where = f"{what}, round {index + 1}"
    if not isinstance(entry, Mapping):
        raise ProjectError(f"{where}: not a JSON object")
    reasons = entry.get("reasons", {})
    return SynthesisRound(
        number=int(entry.get("round", index)),
        generated=_required(entry, "generated", int, where),
        duplicates=int(entry.get("duplicates", 0)),
        accepted=_required(entry, "accepted", int, where),
        rejected=_required(entry, "rejected", int, where),
        reasons={str(k): int(v) for k, v in dict(reasons).items()},
        gvendi=_optional_number(entry, "gvendi"),
        baseline=_optional_number(entry, "baseline"),
    )


def _optional_number(data: Mapping[str, Any], key: str) -> float | None:
    value = data.get(key)
    return None if value is None else _number(value)


__all__ = ["SynthesisResult", "SynthesisRound"]
