"""What the app, views and reports read of studies: their runs."""

from __future__ import annotations

from vendiscope.core.store.models import RunInfo
from vendiscope.core.store.project import Project
from vendiscope.core.studies.options import RUN_KIND


def study_runs(project: Project, dataset: str | None = None) -> list[RunInfo]:
    """Studies whose pool or target is ``dataset`` (every study when ``None``), oldest first."""
    found = [r for r in project.runs() if r.kind == RUN_KIND]
    if dataset is None:
        return found
    dataset_id = project.dataset(dataset).id
    return [r for r in found if r.dataset_id == dataset_id or r.params.get("target") == dataset]
