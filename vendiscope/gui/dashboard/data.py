"""The numbers of the diversity dashboard, gathered from the project's runs (no Qt).

G-Vendi and embedding-Vendi come from the latest complete score runs (``kind="metric"``,
``params.metric`` ``gvendi`` or ``vendi``), with the bootstrap interval and the top of the
eigenvalue spectrum the Vendi metric keeps in the run's details; near-duplicates from the
latest complete ``near-duplicates`` run; sparse clusters (with example records) from the
latest clustering run; counts and sources from ``Project.stats``; the curation signals'
summaries from :func:`vendiscope.core.signals.summary.summarize_signals`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from vendiscope.core.metrics.algorithms.resolution import projection_sd
from vendiscope.core.metrics.run_result import ScoreRunResult
from vendiscope.core.signals.summary import (
    ColumnSummary,
    FlagSummary,
    LabelSummary,
    NumberSummary,
)
from vendiscope.core.store.models import RunInfo
from vendiscope.gui.jobs.tasks import opened

if TYPE_CHECKING:
    from vendiscope.core.store.project import Project

METRICS = {"gvendi": "G-Vendi", "vendi": "Embedding-Vendi"}


@dataclass(frozen=True)
class ScoreSummary:
    metric: str
    label: str
    value: float
    n: int
    q: Any
    ci: tuple[float, float] | None
    ci_level: float | None
    spectrum: list[float]
    per_source: dict[str, dict[str, float]]
    run_id: int
    vector_set: str
    finished_at: datetime | None
    effective_fraction: float | None = None
    """Effective number / n, as the run recorded it (``None`` for runs before it was)."""
    mean_cosine: float | None = None
    """Mean cosine similarity between different records (``None`` for older runs)."""
    verdict: dict[str, str] | None = None
    """``{"level", "text"}``: whether the score can separate datasets at this size."""
    projection_sd: float | None = None
    """Spread of the score over random projection seeds, when the run measured it."""

    @property
    def share(self) -> float:
        """Effective distinct examples as a share of all records."""
        if self.effective_fraction is not None:
            return self.effective_fraction
        return self.value / self.n if self.n else 0.0


@dataclass(frozen=True)
class NearDuplicateSummary:
    threshold: float
    groups: int
    redundant: int
    records_in_groups: int
    largest_group: int
    run_id: int
    vector_set: str


@dataclass(frozen=True)
class SparseCluster:
    cluster: int
    size: int
    examples: list[tuple[int, str]]  # (position, shortened text)


@dataclass(frozen=True)
class ClusterSummary:
    """The latest clustering: how many clusters are sparse (smaller than the median)."""

    run_id: int
    vector_set: str
    n_clusters: int
    median_size: float
    sparse: int
    records_in_sparse: int
    records: int
    smallest: list[SparseCluster]


@dataclass(frozen=True)
class DashboardSummary:
    dataset: str
    rows: int
    unique: int
    exact_duplicates: int
    sources: dict[str, int]
    gvendi: ScoreSummary | None = None
    evendi: ScoreSummary | None = None
    near_duplicates: NearDuplicateSummary | None = None
    clusters: ClusterSummary | None = None
    embedding_sets: list[str] = field(default_factory=list)
    gradient_sets: list[str] = field(default_factory=list)
    advice: str = ""
    """Which score tells the data's groups apart at this size, when the metrics disagree."""
    quality: list[ColumnSummary] = field(default_factory=list)
    """Each computed signal column summarised (none: no signals computed yet)."""
    flagged: int = 0
    """Records at least one signal's flag raises."""


def summarize(location: str, dataset: str) -> DashboardSummary:
    """Everything the dashboard shows, read in one go (run it off the GUI thread)."""
    with opened(location) as project:
        return summarize_project(project, dataset)


def summarize_project(project: Project, dataset: str) -> DashboardSummary:
    from vendiscope.core.signals.summary import overview
    from vendiscope.core.store import vectors
    from vendiscope.core.view_data.runs import resolution_advice

    stats = project.stats(dataset)
    runs = [r for r in project.runs(dataset) if r.status == "complete"]
    complete = vectors.complete_sets(project, dataset)
    signals = overview(project, dataset)
    return DashboardSummary(
        dataset=dataset,
        rows=stats["rows"],
        unique=stats["unique"],
        exact_duplicates=stats["exact_duplicates"],
        sources=stats["sources"],
        gvendi=_score(runs, "gvendi"),
        evendi=_score(runs, "vendi"),
        near_duplicates=_near_duplicates(runs),
        clusters=_clusters(project, dataset),
        embedding_sets=[s.name for s in complete if s.kind == "embedding"],
        gradient_sets=[s.name for s in complete if s.kind == "gradient"],
        advice=resolution_advice(project, dataset),
        quality=signals.columns,
        flagged=signals.flagged,
    )


def _score(runs: list[RunInfo], metric: str) -> ScoreSummary | None:
    found = [r for r in runs if r.kind == "metric" and r.params.get("metric") == metric]
    if not found or not found[-1].result:
        return None
    run = found[-1]
    stored = ScoreRunResult.from_json(run.result, run_id=run.id)
    details = stored.details
    ci = details.get("ci")
    return ScoreSummary(
        metric=metric,
        label=METRICS[metric],
        value=stored.value,
        n=stored.n,
        q=details.get("q", run.params.get("params", {}).get("q", 1.0)),
        ci=(float(ci[0]), float(ci[1])) if ci else None,
        ci_level=details.get("ci_level"),
        spectrum=[float(x) for x in details.get("spectrum_top", [])],
        per_source=stored.per_source,
        run_id=run.id,
        vector_set=run.params.get("vector_set", ""),
        finished_at=run.finished_at,
        effective_fraction=_number(details.get("effective_fraction")),
        mean_cosine=_number(details.get("mean_cosine")),
        verdict=_verdict(details.get("verdict")),
        projection_sd=projection_sd(details),
    )


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def _verdict(value: Any) -> dict[str, str] | None:
    if not isinstance(value, dict) or not isinstance(value.get("text"), str):
        return None
    return {"level": str(value.get("level", "")), "text": value["text"]}


def _near_duplicates(runs: list[RunInfo]) -> NearDuplicateSummary | None:
    found = [r for r in runs if r.kind == "near-duplicates" and r.result]
    if not found:
        return None
    from vendiscope.core.neighbors.run_result import NearDuplicateResult

    run = found[-1]
    stored = NearDuplicateResult.from_json(run.result)
    return NearDuplicateSummary(
        threshold=stored.threshold,
        groups=stored.groups,
        redundant=stored.redundant,
        records_in_groups=stored.records_in_groups,
        largest_group=stored.largest_group,
        run_id=run.id,
        vector_set=stored.vector_set,
    )


def _clusters(project: Project, dataset: str, listed: int = 12) -> ClusterSummary | None:
    """The latest clustering run with example records of its smallest sparse clusters."""
    from vendiscope.core.view_data.data import NotComputed, cluster_table, sparse_cluster_examples

    try:
        table = cluster_table(project, dataset)
        examples = sparse_cluster_examples(project, dataset, limit=listed, width=160)
    except NotComputed:
        return None
    return ClusterSummary(
        run_id=int(table["run_id"]),
        vector_set=str(table.get("vector_set") or ""),
        n_clusters=int(table["n_clusters"]),
        median_size=float(table["median_size"]),
        sparse=len(table["sparse"]),
        records_in_sparse=int(table["records_in_sparse"]),
        records=int(table["records"]),
        smallest=[
            SparseCluster(
                int(found["cluster"]),
                int(found["size"]),
                [(int(r["position"]), str(r["text"])) for r in found["records"]],
            )
            for found in examples
        ],
    )


CHARTS = 3
"""Histograms the Quality section draws."""
CHARTED = ("language", "words", "loss", "language-confidence", "non-alpha-ratio")
"""Columns drawn first when computed (a label's commonest values, then numbers)."""
NOT_CHARTED = ("lexical-group", "pii-count")
"""Numbers that read badly as a histogram (a record's group position, mostly zeros)."""
SOURCES_SHOWN = 3


def flags_by_size(quality: list[ColumnSummary]) -> list[FlagSummary]:
    """The flag columns, those raising the most records first."""
    flags = [q for q in quality if isinstance(q, FlagSummary)]
    return sorted(flags, key=lambda f: -f.raised)


def charted(quality: list[ColumnSummary], limit: int = CHARTS) -> list[ColumnSummary]:
    """The columns the Quality section draws: those of :data:`CHARTED` that were computed,
    then other numbers with values, up to ``limit``."""
    drawable: list[ColumnSummary] = [
        q
        for q in quality
        if (isinstance(q, NumberSummary) and q.counts and q.name not in NOT_CHARTED)
        or (isinstance(q, LabelSummary) and q.top)
    ]
    first = sorted((q for q in drawable if q.name in CHARTED), key=lambda q: CHARTED.index(q.name))
    rest = [q for q in drawable if q.name not in CHARTED]
    return [*first, *rest][:limit]


def source_text(flag: FlagSummary, shown: int = SOURCES_SHOWN) -> str:
    """The sources most flagged, in words: ``code 60, nli 14, arithmetic 12``."""
    parts = [f"{source or '(none)'} {count:,}" for source, count in flag.by_source[:shown]]
    more = len(flag.by_source) - shown
    return ", ".join(parts) + (f" and {more} more" if more > 0 else "")
