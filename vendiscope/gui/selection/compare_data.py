"""Qt-free reads behind "Subsets compared": the dataset and its scored subsets side by side.

Subset scores are runs of kind ``subset-score`` (:mod:`vendiscope.core.metrics.subset_scoring`).
They are grouped by what was measured — metric, vector set, order ``q`` and quality weights —
since only scores of one measure compare; each group holds the latest score of every subset
and, first, the latest score of the whole dataset with the same measure (when there is one).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vendiscope.core.metrics.run_result import ScoreRunResult
from vendiscope.core.metrics.subset_scoring import SUBSET_KIND
from vendiscope.gui.jobs.tasks import opened

__all__ = ["SUBSET_KIND", "CompareRow", "SubsetComparison", "comparisons_of", "subset_comparisons"]

if TYPE_CHECKING:
    from vendiscope.core.store.models import RunInfo
    from vendiscope.core.store.project import Project

METRIC_LABELS = {"gvendi": "G-Vendi", "vendi": "Embedding-Vendi"}


@dataclass(frozen=True)
class CompareRow:
    """One scored set: the whole dataset (``subset`` is None) or one subset."""

    subset: str | None
    n: int
    value: float
    run_id: int
    ci: tuple[float, float] | None = None
    ci_level: float | None = None
    random: dict[str, Any] | None = None  # the random baseline, as the run recorded it
    exists: bool = True  # False: the subset was deleted after it was scored

    @property
    def fraction(self) -> float:
        """The score per record: the effective fraction of distinct examples."""
        return self.value / self.n if self.n else 0.0

    @property
    def label(self) -> str:
        if self.subset is None:
            return "Whole dataset"
        return self.subset if self.exists else f"{self.subset} (deleted)"


@dataclass(frozen=True)
class SubsetComparison:
    """The dataset and its subsets, scored with one measure."""

    metric: str
    vector_set: str
    q: Any
    quality: str | None
    rows: list[CompareRow] = field(default_factory=list)

    @property
    def title(self) -> str:
        label = METRIC_LABELS.get(self.metric, self.metric)
        order = f", q = {self.q}" if self.q not in (None, 1, 1.0) else ""
        weighted = f", weighted by {self.quality}" if self.quality else ""
        return f"{label} on {self.vector_set}{order}{weighted}"

    @property
    def dataset_row(self) -> CompareRow | None:
        return next((r for r in self.rows if r.subset is None), None)


def subset_comparisons(location: str, dataset: str) -> list[SubsetComparison]:
    """:func:`comparisons_of` the project at ``location`` (opened in the calling thread)."""
    with opened(location) as project:
        return comparisons_of(project, dataset)


def comparisons_of(project: Project, dataset: str) -> list[SubsetComparison]:
    """One comparison per measure a subset was scored with, the most recent first."""
    runs = [r for r in project.runs(dataset) if r.status == "complete" and r.result]
    existing = {s.name for s in project.subsets(dataset)}
    groups: dict[tuple[Any, ...], dict[str, RunInfo]] = {}
    for run in runs:  # oldest first: a later score of a subset replaces an earlier one
        if run.kind == SUBSET_KIND and run.params.get("subset"):
            groups.setdefault(_measure(run), {})[str(run.params["subset"])] = run
    found = []
    for measure, latest in groups.items():
        whole = [r for r in runs if r.kind == "metric" and _measure(r) == measure]
        rows = [_row(whole[-1], None, True)] if whole else []
        ordered = sorted(latest.items(), key=lambda item: item[1].id)
        rows += [_row(run, name, name in existing) for name, run in ordered]
        metric, vector_set, q, quality, _plugin = measure
        newest = max(run.id for run in latest.values())
        found.append((newest, SubsetComparison(metric, vector_set, q, quality, rows)))
    return [comparison for _, comparison in sorted(found, key=lambda item: -item[0])]


def _measure(run: RunInfo) -> tuple[Any, ...]:
    params = run.params or {}
    q = (params.get("params") or {}).get("q", 1.0)
    return (
        params.get("metric"),
        params.get("vector_set"),
        float(q) if isinstance(q, (int, float)) else q,
        params.get("quality"),
        run.plugin,
    )


def _row(run: RunInfo, subset: str | None, exists: bool) -> CompareRow:
    stored = ScoreRunResult.from_json(run.result, run_id=run.id)
    ci = stored.details.get("ci")
    return CompareRow(
        subset=subset,
        n=stored.n,
        value=stored.value,
        run_id=run.id,
        ci=(float(ci[0]), float(ci[1])) if ci else None,
        ci_level=stored.details.get("ci_level"),
        random=stored.vs_random,
        exists=exists,
    )
