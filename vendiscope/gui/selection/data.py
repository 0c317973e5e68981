"""Qt-free reads behind the selection workbench: what can be selected on, and the runs so far."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vendiscope.core.selection.choices import KIND_TITLES, curve_sets, selection_sets
from vendiscope.gui.jobs.tasks import opened

if TYPE_CHECKING:
    from vendiscope.core.selection.run_result import SelectionResult
    from vendiscope.core.store.project import Project

__all__ = ["KIND_TITLES", "SelectionRun", "WorkbenchState", "state_of", "workbench_state"]
FIELD_SAMPLE = 20
"""Records read to find the numeric fields offered as quality weights."""


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

    @property
    def label(self) -> str:
        return f"{self.method} k={self.k:,} (#{self.run_id})"


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
    from vendiscope.core.store import vectors
    from vendiscope.core.view_data.runs import selection_results

    complete = vectors.complete_sets(project, dataset)
    features = selection_sets(project, dataset)  # the default (the jobs' own) first
    subsets = [(s.name, s.size) for s in project.subsets(dataset)]
    existing = {name for name, _ in subsets}
    return WorkbenchState(
        rows=project.dataset(dataset).row_count,
        vector_sets=[(s.name, s.kind) for s in features],
        score_sets=[s.name for s in reversed(complete) if s.kind == "score" and s.dim == 1],
        numeric_fields=numeric_fields(project, dataset),
        subsets=subsets,
        runs=[_run(r, r.subset in existing) for r in selection_results(project, dataset)],
    )


def _run(result: SelectionResult, subset_exists: bool) -> SelectionRun:
    """A stored run's typed result (:meth:`SelectionResult.from_json`) as the workbench shows it."""
    return SelectionRun(
        run_id=result.run_id,
        method=result.method,
        k=result.k,
        vector_set=result.vector_set,
        subset=result.subset,
        subset_exists=subset_exists,
        objective_name=result.objective_name,
        objective=result.objective,
        budgets=list(result.curve.budgets),
        vendi=result.curve.vendi,
        random=result.curve.random,
        kinds=result.curve.kinds,
        candidates=result.n_candidates,
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
