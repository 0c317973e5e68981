"""Prismatic sparse-cluster sampling as a selector plugin."""

from __future__ import annotations

from typing import Literal

import numpy as np

from vendiscope.api import CancelToken, Progress, Selection, Selector, prismatic


class PrismaticSelector(Selector):
    """Sample from sparse spherical-k-means clusters (Prismatic Synthesis).

    See :func:`vendiscope.api.prismatic`. With quality weights, rows are drawn
    proportionally to quality within the chosen clusters.

    Parameters
    ----------
    n_clusters
        Clusters of spherical k-means; 0 means the reference's ``round(n / 10)``.
    mode
        ``"hard"``: only rows of sparse clusters (size below the median), filled from the
        smallest other clusters if they run out; ``"soft"``: all rows, with probability
        proportional to ``1 / cluster size``.
    niter
        k-means iterations.
    seed
        Seed of k-means and of the draws.
    """

    def __init__(
        self,
        n_clusters: int = 0,
        mode: Literal["hard", "soft"] = "hard",
        niter: int = 20,
        seed: int = 0,
    ) -> None:
        self.n_clusters = n_clusters
        self.mode = mode
        self.niter = niter
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
        return prismatic(
            vectors,
            k,
            n_clusters=self.n_clusters,
            mode=self.mode,
            quality=quality,
            seed=self.seed,
            niter=self.niter,
            progress=progress,
            cancel=cancel,
        )
