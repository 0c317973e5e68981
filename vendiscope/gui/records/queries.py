"""Qt-free reads behind the records view: per-record score columns and filtered positions.

Each function takes the project's location and opens its own connection, because the
records view runs them on worker threads (:class:`~vendiscope.gui.jobs.background.Loader`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from vendiscope.gui.jobs.tasks import opened

if TYPE_CHECKING:
    from datetime import datetime

    import numpy as np

    from vendiscope.core.store.models import RunInfo

MAX_SCORE_COLUMNS = 4
"""Score columns shown by default: the newest run of each kind, at most this many kinds."""
METRIC_LABELS = {"gvendi": "G-Vendi", "vendi": "embedding-Vendi"}
PER_RECORD_HELP = {
    "leverage": "how alone the record is in its direction (0 to 1; high = unusual)",
    "contribution": "how much the dataset's Vendi score drops without this record",
    "uniqueness": "1 - mean cosine similarity to its nearest records (high = unique)",
}


@dataclass(frozen=True)
class ScoreRun:
    """A stored per-record score the records view can show as a column (one score run)."""

    vector_set: str  # the one-column set, e.g. ``scores/run-7``
    run_id: int | None
    kind: tuple[str, str, str]  # (metric, score, scored vector set): the same score, rerun
    title: str  # ``Leverage (gradients/fast)``: the same for every run of a kind
    tooltip: str
    finished_at: datetime | None
    newest: bool  # the newest run of its kind (shown by default)
    rows: int

    @property
    def label(self) -> str:
        """How a column chooser lists it: the score, what it was computed on, the run and when
        it finished (``G-Vendi leverage on gradients/fast: run #5, 2026-12-02 00:23``)."""
        metric, score, scored = self.kind
        measure = METRIC_LABELS.get(metric, metric)
        what = f"{measure} {score}" if measure else score.capitalize()
        when = f", {self.finished_at:%Y-%m-%d %H:%M}" if self.finished_at else ""
        run = f"run #{self.run_id}" if self.run_id is not None else self.vector_set
        return f"{what} on {scored}: {run}{when}" + ("" if self.newest else " (older)")


@dataclass(frozen=True)
class ScoreColumn:
    """One per-record score (a one-column vector set such as ``scores/run-7``)."""

    vector_set: str
    title: str
    tooltip: str
    values: np.ndarray  # float32, one value per record, in dataset order
    run_id: int | None = None  # the score run that wrote it
    kind: tuple[str, str, str] | None = None


@dataclass(frozen=True)
class ScoreColumns:
    """What the records view can show (:attr:`runs`) and the columns it shows."""

    runs: list[ScoreRun]
    columns: list[ScoreColumn]


def default_score_sets(runs: list[ScoreRun]) -> list[str]:
    """The vector sets shown unless the user chose: the newest run of each kind (the kinds
    with the newest runs first, at most :data:`MAX_SCORE_COLUMNS`)."""
    return [r.vector_set for r in runs if r.newest][:MAX_SCORE_COLUMNS]


def load_score_columns(
    location: str, dataset: str, chosen: list[str] | None = None
) -> ScoreColumns:
    """Every stored per-record score run of ``dataset`` (each kind's newest first, see
    :func:`~vendiscope.core.view_data.runs.per_record_score_runs`) and the values of the ``chosen``
    vector sets (by default the newest run of each kind), in the order of the runs."""
    from vendiscope.core.store import vectors
    from vendiscope.core.view_data.runs import per_record_score_runs

    with opened(location) as project:
        runs = []
        for item in per_record_score_runs(project, dataset):
            title, tooltip = score_column_text(item["vector_set"], item["scored"], item["run"])
            runs.append(ScoreRun(
                item["vector_set"], item["run_id"], item["kind"], title, tooltip,
                item["finished_at"], item["newest"], item["rows"],
            ))  # fmt: skip
        wanted = set(default_score_sets(runs) if chosen is None else chosen)
        columns = [
            ScoreColumn(
                run.vector_set,
                run.title,
                run.tooltip,
                vectors.load(project, dataset, run.vector_set)[:, 0],
                run.run_id,
                run.kind,
            )
            for run in runs
            if run.vector_set in wanted
        ]
    return ScoreColumns(runs, columns)


def score_column_text(name: str, scored: str, run: RunInfo | None) -> tuple[str, str]:
    """A score column's title, ``Leverage (gradients/fast)``, and its tooltip (the run and
    its parameters, and what the score means)."""
    metric = run.params.get("metric", "") if run is not None else ""
    from vendiscope.core.metrics.run_result import ScoreRunResult

    details = ScoreRunResult.from_json(run.result, run_id=run.id).details if run is not None else {}
    kind = str(details.get("per_record") or "score")
    label = METRIC_LABELS.get(metric, metric or "metric")
    title = f"{kind.capitalize()} ({scored})"
    if run is None:
        return title, f"Per-record {kind} in vector set '{name}'. Click the header to sort by it."
    settings = {"q": details.get("q"), **(run.params.get("params") or {})}
    shown = ", ".join(  # the per-record score is the column's name already
        f"{k} = {v}" for k, v in settings.items() if v is not None and k != "per_record"
    )
    help_text = PER_RECORD_HELP.get(kind, "")
    when = f", computed {run.finished_at:%Y-%m-%d %H:%M}" if run.finished_at else ""
    tooltip = (
        f"{label} {kind} of each record, from run #{run.id}{when} ({label} on '{scored}'"
        f"{'; ' + shown if shown else ''})" + (f": {help_text}" if help_text else "") + ".\n"
        "Click the header to sort by it (highest first)."
    )
    return title, tooltip


def filter_positions(
    location: str, dataset: str, text: str | None, source: str | None
) -> np.ndarray:
    """Positions (ascending) of records containing ``text`` and from ``source`` (if given)."""
    import numpy as np

    from vendiscope.core.store.filters import RecordFilter, matching_positions

    with opened(location) as project:
        found = matching_positions(
            project, dataset, RecordFilter(contains=text or None, source=source)
        )
    return np.asarray(found, dtype=np.int64)


def dataset_sources(location: str, dataset: str) -> list[str]:
    """The dataset's sources, most frequent first (for the source filter)."""
    with opened(location) as project:
        return [name for name in project.stats(dataset)["sources"] if name != "(none)"]
