"""Greedy k-center (farthest-point coreset) as a selector plugin."""

from __future__ import annotations

from typing import Literal

import numpy as np

from vendiscope.api import (
    CancelToken,
    Progress,
    Selection,
    StreamingSelector,
    VectorSource,
    k_center,
    k_center_streamed,
)


class KCenterSelector(StreamingSelector):
    """Pick, one at a time, the row farthest from the rows already picked (Sener & Savarese).

    See :func:`vendiscope.api.k_center`; the objective is the covering radius
    (smaller is better). With quality weights, the pick maximises quality times distance.

    Parameters
    ----------
    metric
        ``"cosine"`` (``1 - cos`` on unit rows) or ``"euclidean"``.
    seed
        Seed of the first pick.
    """

    def __init__(self, metric: Literal["cosine", "euclidean"] = "cosine", seed: int = 0) -> None:
        self.metric = metric
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
        return k_center(
            vectors,
            k,
            metric=self.metric,
            quality=quality,
            seed=self.seed,
            progress=progress,
            cancel=cancel,
        )

    def select_streamed(
        self,
        source: VectorSource,
        k: int,
        *,
        quality: np.ndarray | None = None,
        progress: Progress,
        cancel: CancelToken,
    ) -> Selection:
        return k_center_streamed(source, k, metric=self.metric, quality=quality, seed=self.seed,
                                 progress=progress, cancel=cancel)  # fmt: skip
