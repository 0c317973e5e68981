"""Facility location on a FAISS kNN graph as a selector plugin."""

from __future__ import annotations

from typing import Literal

import numpy as np

from vendiscope.api import CancelToken, Progress, Selection, Selector, facility_location


class FacilityLocationSelector(Selector):
    """Pick representatives: maximise ``sum_i max_{j in S} sim(i, j)`` over a kNN graph.

    See :func:`vendiscope.api.facility_location` (lazy greedy, exact greedy
    picks, memory ``O(n * n_neighbors)``). With quality weights a row is represented by a
    selected neighbour ``j`` with value ``quality_j * sim(i, j)``.

    Parameters
    ----------
    n_neighbors
        Neighbours of each row in the similarity graph (besides itself).
    index
        FAISS index for the graph: ``"auto"`` (exact below 20,000 rows, calibrated IVF
        above), ``"flat"``, ``"ivf"`` or ``"hnsw"``.
    seed
        Seed of an approximate index's training.
    """

    def __init__(
        self,
        n_neighbors: int = 32,
        index: Literal["auto", "flat", "ivf", "hnsw"] = "auto",
        seed: int = 0,
    ) -> None:
        self.n_neighbors = n_neighbors
        self.index = index
        self.seed = seed

    def select(
        self,
        vectors: np.ndarray,
        k: int,
        *,
        quality: np.ndarray | None = None,
        progress: Progress,
        cancel: CancelToken,
    ) -> Selection:
        return facility_location(
            vectors,
            k,
            n_neighbors=self.n_neighbors,
            index=self.index,
            quality=quality,
            seed=self.seed,
            progress=progress,
            cancel=cancel,
        )
