"""Random selection, the control, as a selector plugin."""

from __future__ import annotations

import numpy as np

from vendiscope.core.jobs import CancelToken, Progress
from vendiscope.core.plugins.interfaces import Selection, Selector
from vendiscope.core.selection.random_choice import random_selection


class RandomSelector(Selector):
    """``k`` rows uniformly at random without replacement (proportionally to quality, if given).

    See :func:`vendiscope.core.selection.random_selection`. The control every other
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
