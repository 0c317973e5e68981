"""Qt-free reads behind the records view: per-record score columns and filtered positions.

Each function takes the project's location and opens its own connection, because the
records view runs them on worker threads (:class:`~vendiscope.gui.jobs.background.Loader`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from vendiscope.gui.jobs.tasks import opened

if TYPE_CHECKING:
    import numpy as np

    from vendiscope.core.store.models import RunInfo

MAX_SCORE_COLUMNS = 4
METRIC_LABELS = {"gvendi": "G-Vendi", "vendi": "embedding-Vendi"}
PER_RECORD_HELP = {
    "leverage": "how alone the record is in its direction (0 to 1; high = unusual)",
    "contribution": "how much the dataset's Vendi score drops without this record",
    "uniqueness": "1 - mean cosine similarity to its nearest records (high = unique)",
}


@dataclass(frozen=True)
class ScoreColumn:
    """One per-record score (a one-column vector set such as ``scores/run-7``)."""

    vector_set: str
    title: str
    tooltip: str
    values: np.ndarray  # float32, one value per record, in dataset order
    run_id: int | None = None  # the score run that wrote it


def load_score_columns(location: str, dataset: str) -> list[ScoreColumn]:
    """The most recent complete per-record score sets of ``dataset`` (newest first)."""
    from vendiscope.core.store import vectors

    with opened(location) as project:
        sets = [s for s in vectors.complete_sets(project, dataset, "score") if s.dim == 1]
        runs = {run.id: run for run in project.runs(dataset)}
        columns = []
        for found in reversed(sets[-MAX_SCORE_COLUMNS:]):
            run = runs.get(found.run_id) if found.run_id is not None else None
            title, tooltip = score_column_text(found.name, found.params, run)
            values = vectors.load(project, dataset, found.name)[:, 0]
            columns.append(ScoreColumn(found.name, title, tooltip, values, found.run_id))
    titles = [c.title for c in columns]
    return [  # two runs on one vector set: the run number tells them apart
        replace(c, title=f"{c.title} #{c.run_id}") if titles.count(c.title) > 1 else c
        for c in columns
    ]


def score_column_text(name: str, params: dict[str, Any], run: RunInfo | None) -> tuple[str, str]:
    """A score column's header, ``Leverage (gradients/fast)``, and its tooltip (the run and
    its parameters, and what the score means)."""
    metric = run.params.get("metric", "") if run is not None else ""
    details = (run.result or {}).get("details", {}) if run is not None else {}
    kind = str(details.get("per_record") or "score")
    scored = str((run.params.get("vector_set") if run is not None else None)
                 or params.get("vector_set") or name)  # fmt: skip
    label = METRIC_LABELS.get(metric, metric or "metric")
    title = f"{kind.capitalize()} ({scored})"
    if run is None:
        return title, f"Per-record {kind} in vector set '{name}'. Click the header to sort by it."
    settings = {"q": details.get("q"), **(run.params.get("params") or {})}
    shown = ", ".join(f"{k} = {v}" for k, v in settings.items() if v is not None)
    help_text = PER_RECORD_HELP.get(kind, "")
    tooltip = (
        f"{label} {kind} of each record, from run #{run.id} ({label} on '{scored}'"
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
