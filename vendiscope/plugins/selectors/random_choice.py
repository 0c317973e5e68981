"""Random selection, the control, as a selector plugin."""

from __future__ import annotations

import numpy as np

from vendiscope.api import (
    CancelToken,
    Progress,
    Selection,
    StreamingSelector,
    VectorSource,
    random_selection,
)


class RandomSelector(StreamingSelector):
    """``k`` rows uniformly at random without replacement (proportionally to quality, if given).

    See :func:`vendiscope.api.random_selection`. The control every other
    selector is compared with.

    Parameters
    ----------
    seed
        Seed of the draw.
    """

    def __init__(self, seed: int = 0) -> None:
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
        return random_selection(
            vectors, k, quality=quality, seed=self.seed, progress=progress, cancel=cancel
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
        placeholder = np.broadcast_to(np.zeros((1, 1), dtype=np.float32), (source.n, 1))
        return random_selection(
            placeholder, k, quality=quality, seed=self.seed, progress=progress, cancel=cancel
        )  # the same draw as select(): it depends only on the number of rows
