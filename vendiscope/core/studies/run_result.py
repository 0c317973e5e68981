"""What a study run records as its result, read back typed: :class:`StudyResult`.

A study commits its result step by step (the plan, the cost, the baseline, then each
training run), so a reader sees a study part-way. :meth:`StudyResult.from_json` says in one
place which fields exist from the start (``name``, ``pool``, ``target``, ``runs``) and which
arrive with a later step (``None`` or empty until then), and refuses a malformed one by
name. The app's study monitor and the report read a study through it, never with
``.get(key) or default``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from vendiscope.core.base.errors import ProjectError
from vendiscope.core.base.stored import required as _required


@dataclass(frozen=True)
class TrainingRun:
    """One finished training run of a study."""

    number: int
    """Its place in the study's order (1-based)."""
    subset: str
    seed: int
    """0-based, as the plan counts seeds."""
    entry: Mapping[str, Any]
    """Everything the run recorded (outcomes, scores, timings)."""


@dataclass(frozen=True)
class StudyResult:
    """A study's result as stored so far."""

    name: str
    pool: str
    target: str
    runs: tuple[TrainingRun, ...]
    """The finished training runs, in order."""
    runs_total: int | None = None
    """Training runs the plan holds (None before the plan is made)."""
    metrics: dict[str, str] = field(default_factory=dict)
    """Metric -> its label, in the study's order (empty before the subsets are scored)."""
    notes: tuple[str, ...] = ()
    """What the plan left out and why (skipped metrics, rows shared with the target)."""
    checkable: int = 0
    """Target rows with a checkable final answer (accuracy is measured when there are any)."""
    stopped: str | None = None
    """How it stopped: ``refused`` (after its pilot), ``cancelled``, ``failed``, or None."""
    pilot_detail: str = ""
    """Why the pilot stopped the study (empty when it did not, or said nothing)."""
    data: Mapping[str, Any] = field(default_factory=dict, repr=False)
    """The whole stored result (the chart and the analysis read their parts of it)."""

    @property
    def done(self) -> int:
        return len(self.runs)

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None, *, run_id: int | None = None) -> StudyResult:
        """The stored result of a study run (raises ``ProjectError`` naming a bad field)."""
        what = f"study run #{run_id}" if run_id is not None else "a study run"
        if not isinstance(data, Mapping):
            raise ProjectError(f"{what}: its result is not a JSON object: {data!r:.80}")
        runs = tuple(
            _training_run(entry, index, what)
            for index, entry in enumerate(_required(data, "runs", list, what), 1)
        )
        total = data.get("runs_total")  # arrives with the plan
        metrics = data.get("metrics")  # arrives with the scored subsets
        pilot = data.get("pilot")  # arrives when the pilot has been read
        return cls(
            name=_required(data, "name", str, what),
            pool=_required(data, "pool", str, what),
            target=_required(data, "target", str, what),
            runs=runs,
            runs_total=None if total is None else int(total),
            metrics={}
            if metrics is None
            else {str(m): str(e.get("label") or m) for m, e in dict(metrics).items()},
            notes=tuple(str(note) for note in data.get("notes", ())),
            checkable=int(data.get("checkable", 0)),
            stopped=None if data.get("stopped") is None else str(data["stopped"]),
            pilot_detail="" if pilot is None else str(pilot.get("detail", "")).strip(),
            data=data,
        )


def _training_run(entry: Any, index: int, what: str) -> TrainingRun:
    if not isinstance(entry, Mapping):
        raise ProjectError(f"{what}: training run {index} is not a JSON object")
    where = f"{what}, training run {index}"
    number = entry.get("run", index)  # runs recorded before the number was kept: their order
    return TrainingRun(
        number=int(number),
        subset=_required(entry, "subset", str, where),
        seed=_required(entry, "seed", int, where),
        entry=entry,
    )


__all__ = ["StudyResult", "TrainingRun"]
