"""What the app, views and reports read of studies: their runs, and a study's outcome table."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from vendiscope.core.store.models import RunInfo
from vendiscope.core.store.project import Project
from vendiscope.core.studies.options import RUN_KIND

OUTCOMES = {"improvement": "loss improvement (nats)", "accuracy_gain": "accuracy gain"}
"""A run's outcomes: how much lower the target loss is than the untrained model's, and how
much higher its accuracy (where the target has checkable answers)."""


def study_runs(project: Project, dataset: str | None = None) -> list[RunInfo]:
    """Studies whose pool or target is ``dataset`` (every study when ``None``), oldest first."""
    found = [r for r in project.runs() if r.kind == RUN_KIND]
    if dataset is None:
        return found
    dataset_id = project.dataset(dataset).id
    return [r for r in found if r.dataset_id == dataset_id or r.params.get("target") == dataset]


def outcome_table(
    runs: Sequence[Mapping[str, Any]], subsets: Sequence[str], outcome: str = "improvement"
) -> np.ndarray:
    """``(len(subsets), seeds)`` outcomes, run ``seed`` of subset ``i`` at ``[i, seed]``; NaN
    where a run is not done or has no such outcome."""
    row = {name: i for i, name in enumerate(subsets)}
    mine = [r for r in runs if r.get("subset") in row]
    width = 1 + max((int(r["seed"]) for r in mine), default=0)
    table = np.full((len(subsets), width), np.nan)
    for run in mine:
        value = run.get(outcome)
        if value is not None:
            table[row[run["subset"]], int(run["seed"])] = float(value)
    return table
