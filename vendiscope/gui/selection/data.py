"""Qt-free reads behind the selection workbench: what can be selected on, and the runs so far.

Besides vector sets, quality columns and subsets, the state holds the dataset's signal flags
(each with the records it raises, so the form counts the candidates left as flags are
ticked) and its signal number columns (offered as quality). :func:`tradeoff_task` is the
job behind the "Quality vs diversity" chart, and :func:`matching_strength` says which of its
points a selection run is.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vendiscope.core.base.errors import VendiscopeError
from vendiscope.core.base.jobs import CancelToken, Progress
from vendiscope.core.selection.choices import KIND_TITLES, curve_sets, selection_sets
from vendiscope.gui.jobs.tasks import TaskResult, opened, scripted

if TYPE_CHECKING:
    import numpy as np

    from vendiscope.core.selection.run_result import SelectionResult
    from vendiscope.core.selection.tradeoff import TradeoffResult
    from vendiscope.core.signals.reading import SignalValues
    from vendiscope.core.store.project import Project

__all__ = [
    "KIND_TITLES",
    "FlagColumn",
    "SelectionRun",
    "WorkbenchState",
    "candidate_count",
    "check_quality_column",
    "matching_strength",
    "parse_strengths",
    "state_of",
    "tradeoff_task",
    "workbench_state",
]
FIELD_SAMPLE = 20
"""Records read to find the numeric fields offered as quality weights."""
SETTINGS = ("quality", "exclude", "drop", "dedupe", "params")
"""A selection run's recorded settings the workbench keeps (to match a trade-off's point)."""


@dataclass(frozen=True)
class SelectionRun:
    """One complete selection run and its diversity-vs-budget curves."""

    run_id: int
    method: str
    k: int
    vector_set: str
    subset: str | None
    subset_exists: bool
    objective_name: str
    objective: float | None
    budgets: list[int]
    vendi: dict[str, list[float]]  # vector set -> Vendi of each prefix
    random: dict[str, list[float]]  # vector set -> same for a random order
    kinds: dict[str, str]  # vector set -> kind (gradient, embedding)
    candidates: int | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    """What the run was asked besides method, k and vector set: ``quality``, ``exclude``,
    ``drop``, ``dedupe`` and the selector's ``params`` (as the run recorded them)."""

    @property
    def label(self) -> str:
        return f"{self.method} k={self.k:,} (#{self.run_id})"


@dataclass(frozen=True)
class FlagColumn:
    """A signal flag the form offers to leave out, and the records it raises."""

    name: str
    """As ``drop`` takes it: the column's own name, ``SIGNAL.COLUMN`` when two signals share it."""
    help: str
    raised: np.ndarray = field(compare=False, repr=False)
    """One bool per record of the dataset."""

    @property
    def count(self) -> int:
        return int(self.raised.sum())


@dataclass(frozen=True)
class SignalNumber:
    """A signal's number column, offered as quality."""

    name: str
    help: str


@dataclass(frozen=True)
class WorkbenchState:
    rows: int
    vector_sets: list[tuple[str, str]] = field(
        default_factory=list
    )  # (name, kind), preferred first
    score_sets: list[str] = field(default_factory=list)
    numeric_fields: list[str] = field(default_factory=list)
    subsets: list[tuple[str, int]] = field(default_factory=list)
    runs: list[SelectionRun] = field(default_factory=list)
    flags: list[FlagColumn] = field(default_factory=list)
    signal_numbers: list[SignalNumber] = field(default_factory=list)
    members: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    """Each subset's member positions (for the candidate count)."""

    def curve_sets(self) -> list[tuple[str, str]]:
        """The vector sets the runs measured their curves on: (name, kind), G-Vendi first
        (:func:`vendiscope.core.selection.choices.curve_sets` decides)."""
        return curve_sets(
            {name: run.kinds.get(name, "") for name in run.vendi} for run in self.runs
        )


def workbench_state(location: str, dataset: str) -> WorkbenchState:
    with opened(location) as project:
        return state_of(project, dataset)


def state_of(project: Project, dataset: str) -> WorkbenchState:
    import numpy as np

    from vendiscope.core.selection.run_result import SelectionResult
    from vendiscope.core.signals.reading import signal_columns
    from vendiscope.core.store import subsets as subset_store
    from vendiscope.core.store import vectors
    from vendiscope.core.view_data.runs import complete_runs

    complete = vectors.complete_sets(project, dataset)
    features = selection_sets(project, dataset)  # the default (the jobs' own) first
    subsets = [(s.name, s.size) for s in project.subsets(dataset)]
    existing = {name for name, _ in subsets}
    columns = _named_once(signal_columns(project, dataset))
    helps = _column_help(complete)
    runs = [  # as view_data.runs.selection_results reads them, with the settings asked
        _run(SelectionResult.from_json(r.result), existing, r.params or {})
        for r in complete_runs(project, dataset, "selection")
    ]
    return WorkbenchState(
        rows=project.dataset(dataset).row_count,
        vector_sets=[(s.name, s.kind) for s in features],
        score_sets=[s.name for s in reversed(complete) if s.kind == "score" and s.dim == 1],
        numeric_fields=numeric_fields(project, dataset),
        subsets=subsets,
        runs=runs,
        flags=[
            FlagColumn(name, helps.get((v.vector_set, v.column), ""), np.asarray(v.values > 0))
            for name, v in columns.items()
            if v.kind == "flag"
        ],
        signal_numbers=[
            SignalNumber(name, helps.get((v.vector_set, v.column), ""))
            for name, v in columns.items()
            if v.kind == "number"
        ],
        members={
            name: np.asarray(subset_store.members(project, dataset, name).positions, dtype=int)
            for name, _size in subsets
        },
    )


def _named_once(columns: dict[str, SignalValues]) -> dict[str, SignalValues]:
    """Each signal column once, under the name filters and ``--quality`` take: its own name,
    or ``SIGNAL.COLUMN`` when two signals share it."""
    return {
        name: values
        for name, values in columns.items()
        if name == values.column or columns.get(values.column) is not values
    }


def _column_help(sets: Sequence[Any]) -> dict[tuple[str, str], str]:
    """What each signal column means, as its plugin describes it: (vector set, column) -> help."""
    found: dict[tuple[str, str], str] = {}
    for info in sets:
        for column in (info.params or {}).get("columns") or ():
            if isinstance(column, dict) and "name" in column:
                found[(info.name, str(column["name"]))] = str(column.get("help") or "")
    return found


def candidate_count(state: WorkbenchState, exclude: Sequence[str], drop: Sequence[str]) -> int:
    """The records left as candidates when the subsets ``exclude`` and the flags ``drop``
    are left out (what the selection job's own count will be, before near-duplicates)."""
    import numpy as np

    left_out = np.zeros(state.rows, dtype=bool)
    for name in exclude:
        found = state.members.get(name)
        if found is not None:
            left_out[found[found < state.rows]] = True
    for flag in state.flags:
        if flag.name in drop and len(flag.raised) == state.rows:
            left_out |= flag.raised
    return state.rows - int(left_out.sum())


def check_quality_column(location: str, dataset: str, column: str) -> tuple[str, str | None]:
    """``column`` and why the core would refuse it as quality (its own words), or None."""
    from vendiscope.core.metrics.quality import quality_weights

    with opened(location) as project:
        try:
            quality_weights(project, dataset, column)
        except VendiscopeError as exc:
            return column, str(exc)
    return column, None


def parse_strengths(text: str) -> tuple[float, ...]:
    """The strengths typed as ``0, 0.5, 1, 2``: sorted, distinct, each a number >= 0.

    Raises ValueError with a message for the form's problem line.
    """
    from vendiscope.core.selection.tradeoff import check_strengths

    parts = [p for p in text.replace(";", ",").replace(" ", ",").split(",") if p]
    values = []
    for part in parts:
        try:
            values.append(float(part))
        except ValueError:
            raise ValueError(f"Strengths: '{part}' is not a number (write e.g. 0, 1, 2)") from None
    try:
        return check_strengths(values)
    except VendiscopeError as exc:
        raise ValueError(f"Strengths: {str(exc).removeprefix('strengths: ')}") from None


def tradeoff_task(
    location: str,
    dataset: str,
    *,
    k: int,
    quality: str,
    vector_set: str | None = None,
    strengths: Sequence[float] | None = None,
    exclude: Sequence[str] = (),
    drop: Sequence[str] = (),
    progress: Progress,
    cancel: CancelToken,
) -> TaskResult:
    """The job behind the "Quality vs diversity" chart (:meth:`vendiscope.scripting.Project.
    tradeoff`); writes nothing. ``data["tradeoff"]`` is the :class:`TradeoffResult`."""
    with scripted(location) as project:
        result = project.tradeoff(
            dataset, k, quality=quality, vectors=vector_set, strengths=strengths,
            exclude=exclude, drop=drop, progress=progress, cancel=cancel,
        )  # fmt: skip
    return TaskResult(
        f"Quality vs diversity of {result.k:,} records of '{dataset}' at "
        f"{len(result.points)} strengths of '{quality}'",
        {"tradeoff": result},
    )


def matching_strength(result: TradeoffResult, run: SelectionRun) -> float | None:
    """The strength whose point is what ``run`` selected, judged by its settings: the same
    method, budget, vector set, leave-outs and seed, and no quality (strength 0) or the
    trade-off's quality column (strength 1); None when no point is."""
    from vendiscope.core.selection.options import selector_params
    from vendiscope.core.selection.tradeoff import METHOD

    settings = run.settings
    same = (
        run.method == METHOD
        and run.k == result.k
        and run.vector_set == result.vector_set
        and settings.get("dedupe") is None
        and set(settings.get("exclude") or ()) == set(result.exclude)
        and set(settings.get("drop") or ()) == set(result.drop)
        and dict(settings.get("params") or {}) == selector_params(None, result.seed)
    )
    if not same:
        return None
    quality = settings.get("quality")
    wanted = 0.0 if quality is None else 1.0 if quality == result.quality else None
    if wanted is None:
        return None
    return next((s for s in result.strengths if math.isclose(s, wanted)), None)


def _run(result: SelectionResult, existing: set[str], params: dict[str, Any]) -> SelectionRun:
    """A stored run's typed result (:meth:`SelectionResult.from_json`) as the workbench shows it."""
    return SelectionRun(
        run_id=result.run_id,
        method=result.method,
        k=result.k,
        vector_set=result.vector_set,
        subset=result.subset,
        subset_exists=result.subset in existing,
        objective_name=result.objective_name,
        objective=result.objective,
        budgets=list(result.curve.budgets),
        vendi=result.curve.vendi,
        random=result.curve.random,
        kinds=result.curve.kinds,
        candidates=result.n_candidates,
        settings={key: params.get(key) for key in SETTINGS},
    )


def numeric_fields(project: Project, dataset: str) -> list[str]:
    """Numeric fields of the original rows (one level of nesting as ``a.b``), for quality."""
    found: dict[str, None] = {}
    for record in project.records(dataset, 0, FIELD_SAMPLE):
        try:
            row = record.original()
        except Exception:  # a damaged raw row: skip it
            continue
        for key, value in row.items():
            if _number(value):
                found.setdefault(str(key))
            elif isinstance(value, dict):
                for sub, inner in value.items():
                    if _number(inner):
                        found.setdefault(f"{key}.{sub}")
    return list(found)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
