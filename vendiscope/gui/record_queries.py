"""Qt-free reads behind the records view: per-record score columns and filtered positions.

Each function takes the project's location and opens its own connection, because the
records view runs them on worker threads (:class:`~vendiscope.gui.background.Loader`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from vendiscope.gui.tasks import opened

if TYPE_CHECKING:
    import numpy as np

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


def load_score_columns(location: str, dataset: str) -> list[ScoreColumn]:
    """The most recent complete per-record score sets of ``dataset`` (newest first)."""
    from vendiscope.core.store import vectors

    with opened(location) as project:
        sets = [s for s in vectors.complete_sets(project, dataset, "score") if s.dim == 1]
        runs = {run.id: run for run in project.runs(dataset)}
        columns = []
        for found in reversed(sets[-MAX_SCORE_COLUMNS:]):
            run = runs.get(found.run_id) if found.run_id is not None else None
            metric = run.params.get("metric", "") if run is not None else ""
            details = (run.result or {}).get("details", {}) if run is not None else {}
            kind = details.get("per_record") or "score"
            label = METRIC_LABELS.get(metric, metric or "metric")
            title = f"{kind} #{found.run_id}"
            tooltip = (
                f"Per-record {kind} from run #{found.run_id} ({label} on "
                f"{found.params.get('vector_set', '?')}): {PER_RECORD_HELP.get(kind, '')}. "
                "Click the header to sort by it."
            )
            values = vectors.load(project, dataset, found.name)[:, 0]
            columns.append(ScoreColumn(found.name, title, tooltip, values))
    return columns


def filter_positions(
    location: str, dataset: str, text: str | None, source: str | None
) -> np.ndarray:
    """Positions (ascending) of records containing ``text`` and from ``source`` (if given)."""
    import numpy as np

    from vendiscope.core.filters import RecordFilter, matching_positions

    with opened(location) as project:
        found = matching_positions(
            project, dataset, RecordFilter(contains=text or None, source=source)
        )
    return np.asarray(found, dtype=np.int64)


def dataset_sources(location: str, dataset: str) -> list[str]:
    """The dataset's sources, most frequent first (for the source filter)."""
    with opened(location) as project:
        return [name for name in project.stats(dataset)["sources"] if name != "(none)"]
