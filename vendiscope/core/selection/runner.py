"""How a selector plugin is run: the one place the selection job and the study call it.

:func:`run_selector` calls the plugin inside :meth:`PluginRegistry.running` (its failures
are recorded and named), checks what it returned (``k`` unique row indices, one gain per
pick) and hands back the :class:`Selection` with ``int64`` indices.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from vendiscope.core.base.jobs import CancelToken, Progress
from vendiscope.core.plugin_host.interfaces import (
    Selection,
    Selector,
    StreamingSelector,
    VectorSource,
)
from vendiscope.core.plugin_host.registry import PluginRegistry

if TYPE_CHECKING:
    import numpy as np


def run_selector(
    registry: PluginRegistry,
    method: str,
    selector: Selector,
    vectors: np.ndarray | VectorSource,
    k: int,
    *,
    quality: np.ndarray | None = None,
    progress: Progress,
    cancel: CancelToken,
) -> Selection:
    """The ``k`` rows of ``vectors`` that the selector plugin ``method`` chooses.

    Parameters
    ----------
    registry, method, selector
        The registry that created ``selector``, the selector's name in it, and the selector.
    vectors
        The candidate rows: a matrix, or a :class:`VectorSource` for a set larger than memory
        (read chunk by chunk by a :class:`StreamingSelector`).
    k
        The budget, already checked against the candidates by
        :func:`vendiscope.core.selection.budget.check_budget` (the job checks it before any
        work; the study's plan checks its subset size).
    quality
        One weight per candidate row, or None.

    Raises
    ------
    PluginRuntimeError
        The plugin raised, or returned something other than ``k`` unique row indices.
    """
    import numpy as np

    if isinstance(vectors, VectorSource) and not isinstance(selector, StreamingSelector):
        # the job refuses this before any work (job_checks._check_streamable)
        raise TypeError(f"selector '{method}' cannot read a set chunk by chunk")
    with registry.running("selector", method, "select"):
        if isinstance(vectors, VectorSource):
            assert isinstance(selector, StreamingSelector)
            chosen = selector.select_streamed(
                vectors, k, quality=quality, progress=progress, cancel=cancel
            )
            n_rows = vectors.n
        else:
            chosen = selector.select(vectors, k, quality=quality, progress=progress, cancel=cancel)
            n_rows = len(vectors)
    registry.check_result("selector", method, chosen, rows=n_rows, k=k)
    chosen.indices = np.asarray(chosen.indices).astype(np.int64)
    return chosen
