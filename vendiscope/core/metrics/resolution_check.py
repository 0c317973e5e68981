"""The resolution check of a scored dataset: its groups, its rows, the test, the verdict.

Glue between the store and the pure test (:mod:`.group_check`): finds the groups
(:mod:`.check_groups`), reads the unit rows a draw needs (from the loaded matrix, or from
the stored chunks for a set scored streaming) and names the metric after its vectors.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from vendiscope.core.base.jobs import CancelToken
from vendiscope.core.metrics.algorithms import group_check
from vendiscope.core.metrics.check_groups import dataset_groups
from vendiscope.core.metrics.subset_baseline import unit_rows
from vendiscope.core.store import vectors
from vendiscope.core.store.project import Project
from vendiscope.core.store.vectors import VectorSetInfo

NAMES = {"gradient": "G-Vendi", "embedding": "embedding-Vendi"}
"""A Vendi score is named after the vectors it is computed on."""


def metric_name(target: VectorSetInfo) -> str:
    """``G-Vendi``, ``embedding-Vendi`` or ``Vendi of NAME``."""
    return NAMES.get(target.kind, f"Vendi of {target.name}")


def run_check(
    project: Project,
    dataset: str,
    target: VectorSetInfo,
    *,
    matrix: np.ndarray | None = None,
    q: float | str = 1.0,
    cancel: CancelToken | None = None,
) -> dict[str, Any]:
    """The check's fields (:func:`.group_check.check`) for ``target`` of ``dataset``."""
    cancel = cancel or CancelToken()
    groups, groups_from = dataset_groups(project, dataset)
    if matrix is not None:
        unit = unit_rows(matrix)

        def rows_at(positions: np.ndarray) -> np.ndarray:
            return unit[positions]

    else:

        def rows_at(positions: np.ndarray) -> np.ndarray:
            return unit_rows(vectors.read_rows(project, target, positions.tolist()))

    return group_check.check(
        rows_at, groups, metric=metric_name(target), groups_from=groups_from, q=q,
        check_cancel=cancel.raise_if_cancelled,
    )  # fmt: skip
