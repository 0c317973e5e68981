"""Greedy k-DPP MAP inference as a selector plugin."""

from __future__ import annotations

import numpy as np

from vendiscope.api import CancelToken, Progress, Selection, Selector, greedy_dpp


class DPPSelector(Selector):
    """Greedily maximise ``log det`` of the cosine kernel of the subset (a k-DPP's MAP).

    See :func:`vendiscope.api.greedy_dpp`: kernel
    ``L = diag(q) (X X^T + ridge I) diag(q)`` with ``q`` the quality weights (all ones
    without them), built from the features on the fly (never ``n x n``).

    Parameters
    ----------
    ridge
        Added to the kernel's diagonal (>= 0) so that ``k`` may exceed the rank of the rows.
    """

    def __init__(self, ridge: float = 1e-3) -> None:
        self.ridge = ridge

    def select(
        self,
        vectors: np.ndarray,
        k: int,
        *,
        quality: np.ndarray | None = None,
        progress: Progress,
        cancel: CancelToken,
    ) -> Selection:
        return greedy_dpp(
            vectors, k, quality=quality, ridge=self.ridge, progress=progress, cancel=cancel
        )
