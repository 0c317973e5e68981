"""Greedy Vendi-score maximisation as a selector plugin."""

from __future__ import annotations

from typing import Literal

import numpy as np

from vendiscope.api import CancelToken, Progress, Selection, Selector, greedy_vendi


class GreedyVendiSelector(Selector):
    """Add, one at a time, the row that raises the Vendi score of the subset the most.

    See :func:`vendiscope.api.greedy_vendi`. With quality weights the
    quality-weighted Vendi score ``mean(quality) * VS`` is maximised.

    Parameters
    ----------
    q
        Order of the Vendi score: 1 (Shannon, standard) or 2 (closed form, cheaper).
    epsilon
        Accuracy of stochastic greedy on large sets: each step scores
        ``n / k * ln(1 / epsilon)`` random candidates.
    exhaustive_below
        Sets of at most this many rows score every candidate at every step (exact greedy).
    seed
        Seed of the first pick and of the candidate samples.
    """

    def __init__(
        self,
        q: Literal[1, 2] = 1,
        epsilon: float = 0.01,
        exhaustive_below: int = 2000,
        seed: int = 0,
    ) -> None:
        self.q = q
        self.epsilon = epsilon
        self.exhaustive_below = exhaustive_below
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
        return greedy_vendi(
            vectors,
            k,
            q=self.q,
            quality=quality,
            seed=self.seed,
            epsilon=self.epsilon,
            exhaustive_below=self.exhaustive_below,
            progress=progress,
            cancel=cancel,
        )
