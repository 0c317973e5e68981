"""What a map is asked to do, its defaults and checks in one place (CLI, API and GUI read them).

A light module (nothing heavy imported), so that a command's options can show the default.
"""

from __future__ import annotations

from dataclasses import dataclass

from vendiscope.core.base.errors import ProjectError

METHODS = ("umap", "pca")
"""UMAP (neighbourhoods kept, on FAISS neighbours) or PCA (instant, linear)."""


@dataclass(frozen=True)
class MapOptions:
    """The settings of one map.

    Attributes
    ----------
    method
        One of :data:`METHODS`.
    n_neighbors
        UMAP: how many neighbours shape each point (local vs global structure); at least 2.
    min_dist
        UMAP: how tightly points may pack (0: tight clumps).
    fit_sample
        Above this many rows, UMAP is fitted on a sample and the rest are placed by
        neighbours; at least 100.
    seed
        Seeds the layout and the fit sample.
    """

    method: str = "umap"
    n_neighbors: int = 15
    min_dist: float = 0.1
    fit_sample: int = 50_000
    seed: int = 0

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise ProjectError(f"method must be one of {', '.join(METHODS)}; got '{self.method}'")
        if self.n_neighbors < 2:
            raise ProjectError(f"n_neighbors must be at least 2; got {self.n_neighbors}")
        if self.fit_sample < 100:
            raise ProjectError(f"fit_sample must be at least 100; got {self.fit_sample}")
