"""Where a Vendi score sits between "all alike" and "all different", and whether it can tell.

A Vendi score ``VS`` of ``n`` unit rows is read together with three numbers:

- the **effective fraction** ``VS / n`` (1 for orthogonal rows, ``1 / n`` for copies);
- the **mean cosine** ``mu`` of the off-diagonal pairs, from the sum ``s`` of the unit rows:
  ``mu = (|s|^2 - n) / (n (n - 1))`` (one pass, no ``n x n`` matrix; works streaming);
- the **uniform-similarity reference** ``VS_ref(n, mu)``: the score the set would have if
  every pair had cosine ``mu``. That kernel has eigenvalues (of ``K / n``)
  ``a = (1 - mu + n mu) / n`` once and ``(1 - mu) / n`` for the other ``n - 1``. With
  ``mu >= 0`` it is an **upper bound**: ``max lambda >= 1^T K 1 / n^2 = a`` for any kernel
  with that mean cosine, and the flattest spectrum with a top eigenvalue of at least ``a``
  is the reference's, so ``VS <= VS_ref`` for every order ``q``. In ``d`` dimensions the
  spectrum has at most ``m = min(n, d)`` non-zero eigenvalues; the bound then spreads
  ``1 - a`` over ``m - 1`` of them (and is ``m`` when ``a < 1 / m``).

The bound assumes the rows can be as spread as ``n`` orthogonal directions. ``n`` random
directions in ``d`` dimensions cannot: their kernel's eigenvalues spread out as the
Marchenko-Pastur law with ratio ``g = (n - 1) / d``, whose ``E[x log x]`` (mean 1) is exactly
``g / 2`` for ``g <= 1`` and ``1 / (2 g) + log g`` above. The **random reference**
``VS_rand(n, mu, d) = VS_ref(n, mu) * exp(-(1 - a) E[x log x])`` is what a set with mean
cosine ``mu`` scores when its rows are otherwise random directions in ``d`` dimensions (within
about 1% of simulated sets, n = 48 to 3,000, d = 64 to 1,024). At ``n = 1,000``, ``d = 1,024`` and
``mu = 0.08`` it is 477, not the bound's 749.

``VS / VS_rand`` near 1 means the kernel has no structure beyond its average similarity: the
score is set by ``mu`` (and ``n / d``) alone — it counts the examples that are not
near-copies, and says nothing about how many *kinds* there are. :func:`verdict` says this in
a sentence. Whether a score can tell datasets apart is a different question, answered on
the user's own groups by :mod:`.group_check`; a scoring job makes that its verdict.

Pure NumPy: no store, no torch.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from vendiscope.core.metrics.algorithms import vendi

__all__ = [
    "ALIKE_COSINE",
    "SATURATED_RATIO",
    "column_sum",
    "effective_fraction",
    "mean_cosine",
    "random_reference",
    "resolution_details",
    "uniform_reference",
    "verdict",
]

SATURATED_RATIO = 0.9
"""``VS / VS_rand`` at or above this: no structure beyond the mean cosine (``too_small`` or
``saturated``)."""

ALIKE_COSINE = 0.95
"""Mean cosine at or above this: ``alike`` (the rows are near-copies of one another)."""


def column_sum(
    vectors: np.ndarray, *, normalize: bool = True, chunk_rows: int | None = None
) -> np.ndarray:
    """The float64 sum of the (unit-normalised) rows, read a chunk at a time."""
    matrix = vendi._as_matrix(vectors)
    total = np.zeros(matrix.shape[1], dtype=np.float64)
    for _, rows in vendi._iter_chunks(matrix, normalize, chunk_rows):
        total += rows.sum(axis=0, dtype=np.float64)
    return total


def mean_cosine(total: np.ndarray, n: int) -> float | None:
    """Mean off-diagonal cosine of ``n`` unit rows whose sum is ``total``; ``None`` if ``n < 2``.

    ``(|s|^2 - n) / (n (n - 1))``, clipped to its possible range ``[-1 / (n - 1), 1]``.
    """
    if n < 2:
        return None
    s = np.asarray(total, dtype=np.float64)
    value = (float(s @ s) - n) / (n * (n - 1))
    return float(min(1.0, max(-1.0 / (n - 1), value)))


def effective_fraction(score: float, n: int) -> float:
    """``score / n``: 1 when every row is its own direction, ``1 / n`` for copies."""
    return float(score) / n if n else 0.0


def uniform_reference(n: int, mu: float, *, q: float | str = 1.0, d: int | None = None) -> float:
    """The Vendi score of order ``q`` of ``n`` unit rows whose pairs all have cosine ``mu``.

    With ``d`` the rank is capped at ``min(n, d)`` (the bound of the module docstring). For
    ``mu >= 0`` no set of ``n`` unit rows with mean cosine ``mu`` scores higher.
    """
    order = vendi.check_order(q)
    if n < 1:
        raise ValueError(f"n must be >= 1; got {n}")
    if n == 1:
        return 1.0
    m = n if d is None else max(1, min(n, int(d)))
    mu = min(1.0, max(-1.0 / (n - 1), float(mu)))
    top = (1.0 - mu + n * mu) / n
    if m == 1 or top >= 1.0:
        return 1.0
    if top <= 1.0 / m:
        return float(m)
    rest = (1.0 - top) / (m - 1)
    lam = np.array([top] + [rest] * (m - 1)) if m <= 4096 else None
    if lam is not None:
        return vendi.vendi_from_eigenvalues(lam, order)
    # many equal eigenvalues: the closed forms, without an array of m entries
    if order == 1:
        return float(math.exp(-top * math.log(top) - (1 - top) * math.log(rest)))
    if math.isinf(order):
        return float(1.0 / top)
    power = top**order + (m - 1) * rest**order
    return float(power ** (1.0 / (1.0 - order)))


def random_reference(n: int, mu: float, d: int) -> float:
    """The Vendi score (order 1) of ``n`` unit rows with mean cosine ``mu``, otherwise random.

    A spike ``a = (1 - mu + n mu) / n`` and a Marchenko-Pastur bulk of ratio
    ``(n - 1) / d`` (see the module docstring): what a set with no structure beyond its
    average similarity scores in ``d`` dimensions.
    """
    if n < 1 or d < 1:
        raise ValueError(f"n and d must be >= 1; got {n}, {d}")
    if n == 1:
        return 1.0
    mu = min(1.0, max(-1.0 / (n - 1), float(mu)))
    top = (1.0 - mu + n * mu) / n
    if top >= 1.0:
        return 1.0
    ratio = (n - 1) / d
    spread = ratio / 2 if ratio <= 1 else 1 / (2 * ratio) + math.log(ratio)
    return uniform_reference(n, mu) * math.exp(-(1.0 - top) * spread)


def verdict(
    score: float,
    n: int,
    mu: float | None,
    *,
    reference: float | None = None,
) -> dict[str, str]:
    """``{"level", "text"}``: what the spectrum says about the set, in one plain sentence.

    ``reference`` is the score of a set without structure beyond its mean cosine
    (:func:`random_reference`; the uniform bound at order 1 when not given). First match:

    - ``too_small``: fewer than two rows (no mean cosine);
    - ``alike``: mean cosine at least :data:`ALIKE_COSINE`;
    - ``saturated``: ``score / reference`` at least :data:`SATURATED_RATIO`;
    - ``ok``: otherwise.
    """
    if n < 2 or mu is None:
        return {"level": "too_small", "text": TEXTS["too_small"]}
    if mu >= ALIKE_COSINE:
        return {"level": "alike", "text": TEXTS["alike"]}
    if reference is None:
        reference = uniform_reference(n, mu)
    level = "saturated" if score / reference >= SATURATED_RATIO else "ok"
    return {"level": level, "text": TEXTS[level]}


TEXTS = {
    "alike": "The examples are nearly identical to one another.",
    "too_small": "One example has no spread to measure.",
    "saturated": (
        "The score is close to what it would be if every pair of examples were equally "
        "similar: it shows how alike they are on average more than how many kinds there are."
    ),
    "ok": (
        "The score is clearly below what it would be if every pair were equally similar: "
        "the examples form groups of similar ones."
    ),
}
"""The spectrum's sentences (a scoring job's verdict is :mod:`.group_check`'s instead)."""


def resolution_details(
    score: float,
    n: int,
    total: np.ndarray,
    *,
    q: float | str = 1.0,
    d: int | None = None,
) -> dict[str, Any]:
    """The fields a Vendi result carries: fraction, mean cosine, references and verdict.

    ``score`` is the effective number (not quality-weighted), ``total`` the sum of the unit
    rows (:func:`column_sum`), ``d`` their dimension. ``reference_ratio`` is ``score`` over
    the random reference (order 1 with ``d`` known), else over the uniform bound.
    """
    order = vendi.check_order(q)
    mu = mean_cosine(total, n)
    uniform = random = ratio = None
    if mu is not None:
        uniform = uniform_reference(n, mu, q=order, d=d)
        if order == 1 and d is not None:
            random = random_reference(n, mu, d)
        ratio = float(score) / (random if random is not None else uniform)
    return {
        "effective_fraction": effective_fraction(score, n),
        "mean_cosine": mu,
        "uniform_reference": uniform,
        "random_reference": random,
        "reference_ratio": ratio,
        "verdict": verdict(score, n, mu, reference=random if random is not None else uniform),
    }


SHORT_VERDICTS = {
    "resolves": "tells your groups apart",
    "does_not": "does not tell your groups apart",
    "unchecked": "groups not checked",
    "ok": "groups stand out",
    "saturated": "no groups beyond the average",
    "too_small": "too few examples to show groups",
    "alike": "near-copies of one another",
}
"""A few words per verdict level, for places without room for the sentence (score cards)."""


def short_verdict(found: dict[str, Any] | None) -> str:
    """A few words for a verdict (``{"level", "text"}``); ``""`` for none or an unknown level."""
    if not isinstance(found, dict):
        return ""
    return SHORT_VERDICTS.get(str(found.get("level")), "")


def projection_sd(details: dict[str, Any] | None) -> float | None:
    """The sd of the score over random projection seeds, when the result carries one."""
    error = (details or {}).get("projection_error")
    if not isinstance(error, dict):
        return None
    sd = error.get("sd")
    if isinstance(sd, bool) or not isinstance(sd, int | float) or not math.isfinite(sd):
        return None
    return float(sd)


def projection_text(details: dict[str, Any] | None, digits: int = 1) -> str:
    """``" ± 2.1 (projection)"`` when ``details["projection_error"]`` has an sd, else ``""``.

    A shift larger than the sd is said too: ``" ± 1.7 (projection, which lowers it by about
    24.0)"``.
    """
    sd = projection_sd(details)
    if sd is None:
        return ""
    shift = (details or {}).get("projection_error", {}).get("shift")
    if isinstance(shift, int | float) and math.isfinite(shift) and -shift > sd:
        return f" ± {sd:,.{digits}f} (projection, which lowers it by about {-shift:,.{digits}f})"
    return f" ± {sd:,.{digits}f} (projection)"
