"""The Vendi score of any order as a metric plugin: a bootstrap interval, per-record scores."""

from __future__ import annotations

import math
from typing import Annotated, Any

import numpy as np

from vendiscope.api import (
    Choices,
    Metric,
    MetricResult,
    Range,
    check_quality,
    check_vendi_order,
    column_sum,
    knn_uniqueness,
    leverage_scores,
    resolution_details,
    vendi_bootstrap_ci,
    vendi_contributions,
    vendi_decompose,
)

PER_RECORD = (None, "leverage", "contribution", "uniqueness")
"""The per-record scores :class:`VendiMetric` can attach (``None``: none)."""

SPECTRUM_TOP = 50
"""How many of the largest normalised eigenvalues the result keeps (for the spectrum view)."""


class VendiMetric(Metric):
    """The Vendi score: the effective number of distinct examples in a vector set.

    ``exp`` of the Rényi entropy of order ``q`` of the eigenvalues of the cosine-similarity
    matrix divided by ``n`` (see :func:`vendiscope.api.vendi_decompose`). On projected
    gradients this is G-Vendi; on sentence embeddings, embedding-Vendi.

    Parameters
    ----------
    q
        Order, > 0 (``inf`` allowed). 1 is the standard (Shannon) Vendi score; 0.5 weighs
        rare directions more, 2 and ``inf`` only the dominant ones.
    normalize
        Normalise rows to unit length first (cosine similarity). Turn off only for rows
        that already have unit length.
    bootstrap
        Number of bootstrap resamples for a confidence interval (``details["ci"]``);
        0 for none. Each resample costs about one score.
    seed
        Seed of the bootstrap resampling.
    per_record
        Score attached to each row: ``"leverage"`` (how alone the row is in its direction,
        0 to 1), ``"contribution"`` (``VS(all) - VS(all without the row)``),
        ``"uniqueness"`` (``1 -`` mean cosine similarity to its ``k`` nearest rows), or
        ``None``.
    k
        Neighbours for ``per_record="uniqueness"``.
    level
        Confidence level of the bootstrap interval.
    """

    def __init__(
        self,
        q: Annotated[float, Range(gt=0)] = 1.0,
        normalize: bool = True,
        bootstrap: Annotated[int, Range(0)] = 0,
        seed: int = 0,
        per_record: Annotated[str | None, Choices(*PER_RECORD)] = "leverage",
        k: Annotated[int, Range(1)] = 10,
        level: Annotated[float, Range(gt=0, lt=1)] = 0.95,
    ) -> None:
        self.q = q
        self.normalize = normalize
        self.bootstrap = bootstrap
        self.seed = seed
        self.per_record = per_record
        self.k = k
        self.level = level

    def _check_params(self) -> float:
        order = check_vendi_order(self.q)
        if self.per_record not in PER_RECORD:
            raise ValueError(
                f"per_record must be one of {', '.join(map(repr, PER_RECORD))}; "
                f"got {self.per_record!r}"
            )
        if isinstance(self.bootstrap, bool) or int(self.bootstrap) != self.bootstrap:
            raise ValueError(
                f"bootstrap must be a whole number of resamples; got {self.bootstrap!r}"
            )
        if self.bootstrap < 0:
            raise ValueError(f"bootstrap must be >= 0; got {self.bootstrap}")
        if not 0 < self.level < 1:
            raise ValueError(f"level must be between 0 and 1; got {self.level!r}")
        return order

    def compute(self, vectors: np.ndarray, *, quality: np.ndarray | None = None) -> MetricResult:
        """Score the rows of ``vectors`` (optionally quality-weighted); never modifies them.

        Raises
        ------
        ValueError
            A bad parameter, ``vectors`` not a non-empty 2-D array of finite numbers (the
            message names the first bad row), or bad ``quality`` weights.
        """
        order = self._check_params()
        matrix = np.asarray(vectors)
        if matrix.ndim != 2 or matrix.shape[0] == 0:
            raise ValueError(
                "vectors must be a 2-D array with at least one row (rows x dimensions); "
                f"got shape {matrix.shape}"
            )
        n, d = matrix.shape
        weights = None if quality is None else check_quality(quality, n)
        needs_vectors = self.per_record in ("leverage", "contribution")
        dec = vendi_decompose(matrix, normalize=self.normalize, eigenvectors=needs_vectors)
        score = dec.score(order)
        value = score if weights is None else float(weights.mean()) * score

        per_record = None
        if self.per_record == "leverage":
            per_record = leverage_scores(matrix, normalize=self.normalize, decomposition=dec)
        elif self.per_record == "contribution":
            per_record = vendi_contributions(
                matrix, order, normalize=self.normalize, quality=weights, decomposition=dec
            )
        elif self.per_record == "uniqueness":
            per_record = knn_uniqueness(matrix, self.k, normalize=self.normalize)

        ci = None
        if self.bootstrap:
            low, high = vendi_bootstrap_ci(
                matrix,
                order,
                n_boot=int(self.bootstrap),
                level=self.level,
                seed=self.seed,
                normalize=self.normalize,
                quality=weights,
            )
            ci = [low, high]

        details: dict[str, Any] = {
            "q": "inf" if math.isinf(order) else order,
            "n": n,
            "d": d,
            "form": dec.form,
            "ci": ci,
            "ci_level": self.level if ci is not None else None,
            "bootstrap": int(self.bootstrap),
            "spectrum_top": [float(x) for x in dec.spectrum[:SPECTRUM_TOP]],
            "effective_number": score,
            "quality_mean": None if weights is None else float(weights.mean()),
            "per_record": self.per_record,
        }
        # where the score sits between "all alike" and "all different", and a verdict
        total = column_sum(matrix, normalize=self.normalize)
        details.update(resolution_details(score, n, total, q=order, d=d))
        return MetricResult(value, per_record=per_record, details=details)
