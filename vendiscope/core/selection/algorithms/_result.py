"""The :class:`Selection` every algorithm returns, built one way, and the job plumbing."""

from __future__ import annotations

from typing import Any

import numpy as np

from vendiscope.core.base.jobs import CancelToken, NullProgress, Progress
from vendiscope.core.plugin_host.interfaces import Selection


def job(progress: Progress | None, cancel: CancelToken | None) -> tuple[Progress, CancelToken]:
    """The given progress reporter and cancel token, or ones that do nothing."""
    return progress or NullProgress(), cancel or CancelToken()


def selection(
    indices: np.ndarray | list[int],
    gains: np.ndarray | list[float],
    trace: np.ndarray | list[float],
    *,
    objective_name: str,
    objective: float | None = None,
    **details: Any,
) -> Selection:
    """A :class:`Selection` with the details the orchestration relies on.

    ``trace`` is the objective of each prefix (after 1, 2, ..., k picks); ``objective``
    defaults to its last value.
    """
    picked = np.asarray(indices, dtype=np.int64)
    values = np.asarray(trace, dtype=np.float64)
    if picked.ndim != 1 or len(np.unique(picked)) != len(picked):
        raise AssertionError("a selection must hold unique row indices")  # pragma: no cover
    if len(values) != len(picked) or len(np.asarray(gains)) != len(picked):
        raise AssertionError("gains and trace need one value per pick")  # pragma: no cover
    final = float(values[-1]) if objective is None else float(objective)
    return Selection(
        indices=picked,
        gains=np.asarray(gains, dtype=np.float64),
        details={
            "objective_name": objective_name,
            "objective": final,
            "objective_trace": values,
            **details,
        },
    )
