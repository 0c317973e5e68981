"""Calibration of an approximate index: the smallest ``nprobe`` (IVF) or ``efSearch`` (HNSW)
whose recall@10, measured against exact search on a sample of indexed rows, reaches a target.

Pure numpy/faiss, no project.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from vendiscope.core.neighbors.algorithms.exact import TopK, _prepared
from vendiscope.core.neighbors.algorithms.vector_index import GPU_MAX_K

if TYPE_CHECKING:
    import numpy as np

CALIBRATION_QUERIES = 256
CALIBRATION_K = 10
CALIBRATION_MARGIN = 0.02
IVF_MAX_PROBE_FRACTION = 0.25  # more than this and exact search is as fast: fall back
HNSW_MAX_EF_SEARCH = 1024


class _Calibration:
    """Exact neighbours of a sample of indexed rows, to tune the search-time parameter."""

    def __init__(
        self, n: int, rows_at: Callable[[np.ndarray], np.ndarray], metric: str, seed: int
    ) -> None:
        import numpy as np

        self.rows = np.sort(
            np.random.default_rng(seed + 1).choice(n, min(n, CALIBRATION_QUERIES), replace=False)
        )
        self.queries = _prepared(rows_at(self.rows), metric)
        self.k = min(CALIBRATION_K + 1, n)  # the row itself comes back too
        self.exact = TopK(len(self.rows), self.k)

    def scan(self, chunk: np.ndarray, start: int) -> None:
        self.exact.update(self.queries @ chunk.T, start)

    def recall(self, index: Any) -> float:
        _, exact = self.exact.result()
        _, found = index.search(self.queries, self.k)
        hits = total = 0
        for row, truth, got in zip(self.rows, exact, found, strict=True):
            want = {int(p) for p in truth if p != row}
            if len(want) > self.k - 1:  # the row itself was not among its exact neighbours
                want = {int(p) for p in truth[: self.k - 1]}
            hits += len(want & {int(p) for p in got if p != row})
            total += len(want)
        return hits / total if total else 1.0

    def tune(
        self,
        faiss: Any,
        index: Any,
        kind: str,
        on_gpu: bool,
        target: float,
        params: dict[str, Any],
    ) -> bool:
        """Set the smallest search parameter reaching ``target``; ``False`` when none does."""
        space = faiss.GpuParameterSpace() if on_gpu else faiss.ParameterSpace()
        if kind == "ivf":
            name, low, high = "nprobe", 1, max(1, int(params["nlist"] * IVF_MAX_PROBE_FRACTION))
            if params["nlist"] <= 4:
                high = params["nlist"]
            if on_gpu:
                high = min(high, GPU_MAX_K)
        else:
            name, low, high = "efSearch", 16, HNSW_MAX_EF_SEARCH
        measured: dict[int, float] = {}

        def recall_at(value: int) -> float:
            if value not in measured:
                space.set_index_parameter(index, name, value)
                measured[value] = self.recall(index)
            return measured[value]

        # Aim a little above the target: the sample's recall is an estimate, and queries that
        # are not indexed rows (another dataset, free text) come out slightly lower.
        goal = min(target + CALIBRATION_MARGIN, 0.999)
        # Double until the goal is reached, then bisect between the last two values.
        value, previous = low, None
        while recall_at(value) < goal and value < high:
            previous, value = value, min(value * 2, high)
        if recall_at(value) >= goal and previous is not None:
            lo, hi = previous, value
            while hi - lo > max(1, lo // 8):
                mid = (lo + hi) // 2
                lo, hi = (lo, mid) if recall_at(mid) >= goal else (mid, hi)
            value = hi
        reached = recall_at(value) >= target
        space.set_index_parameter(index, name, value)
        key = "nprobe" if kind == "ivf" else "ef_search"
        params[key] = value
        params["calibrated_recall"] = round(recall_at(value), 4)
        params["calibration_queries"] = len(self.rows)
        return reached
