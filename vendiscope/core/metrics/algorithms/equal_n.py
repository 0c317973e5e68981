"""Vendi-family scores at equal n: the mean over random draws of a common size.

A Vendi score grows with the number of rows, so two sets are compared only at the same
``n``: the larger set is scored as the mean over ``draws`` random draws (without
replacement, seeded) of the smaller set's size, with the spread of those draws. A set of
exactly ``n`` rows is scored once. Pure NumPy: callers hold the unit rows
(:func:`at_size`), or say how to score a draw (:func:`at_size_with`: rows normalised one
draw at a time, :func:`matrix_score`, or read from the store,
:func:`.streaming.stored_score`); both draw the same rows (:func:`draw_positions`).
:func:`add_to_breakdown` gives a per-source breakdown its scores at the smallest size.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from vendiscope.core.metrics.algorithms import vendi

DEFAULT_DRAWS = 5
"""Draws per set when a larger set is scored at a smaller size."""


def common_size(sizes: Sequence[int]) -> int:
    """The size every set is compared at: the smallest."""
    if not sizes:
        raise ValueError("no sets to compare")
    return int(min(sizes))


def draw_positions(
    positions: Sequence[int] | np.ndarray,
    n: int,
    *,
    draws: int = DEFAULT_DRAWS,
    seed: int = 0,
) -> list[np.ndarray]:
    """The ``draws`` random ``n``-row draws (each sorted) from ``positions``, seeded.

    With exactly ``n`` positions the one "draw" is all of them. The same arguments give the
    same draws wherever the rows are read from (memory or the store).
    """
    index = np.asarray(positions, dtype=np.int64)
    if not 1 <= n <= len(index):
        raise ValueError(f"n must be between 1 and the {len(index)} rows; got {n}")
    if n == len(index):
        return [index]
    if isinstance(draws, bool) or int(draws) != draws or draws < 1:
        raise ValueError(f"draws must be a whole number >= 1; got {draws!r}")
    rng = np.random.default_rng(seed)
    return [np.sort(rng.choice(index, size=n, replace=False)) for _ in range(int(draws))]


def draw_scores(
    unit: np.ndarray,
    positions: Sequence[int] | np.ndarray,
    n: int,
    *,
    draws: int = DEFAULT_DRAWS,
    seed: int = 0,
    q: float | str = 1.0,
    check_cancel: Callable[[], None] | None = None,
    quality: np.ndarray | None = None,
) -> list[float]:
    """Vendi scores (order ``q``) of ``draws`` random ``n``-row draws from ``positions``.

    ``unit`` holds unit rows (:func:`.subset_baseline.unit_rows`). With exactly ``n``
    positions the one score of all of them is returned. ``quality`` (one weight per row of
    ``unit``) weights each draw as a scored set is weighted: ``mean(its weights) * VS_q``.
    """
    order = vendi.check_order(q)
    weights = None if quality is None else vendi.check_quality(quality, len(unit))
    return _scores(
        lambda drawn: vendi.vendi_score(unit[drawn], q=order, normalize=False),
        positions, n, draws=draws, seed=seed, quality=weights, check_cancel=check_cancel,
    )  # fmt: skip


def _scores(
    score: Callable[[np.ndarray], float],
    positions: Sequence[int] | np.ndarray,
    n: int,
    *,
    draws: int,
    seed: int,
    quality: np.ndarray | None,
    check_cancel: Callable[[], None] | None,
) -> list[float]:
    found = []
    for drawn in draw_positions(positions, n, draws=draws, seed=seed):
        if check_cancel is not None:
            check_cancel()
        value = float(score(drawn))
        found.append(value if quality is None else float(quality[drawn].mean()) * value)
    return found


def summary(scores: Sequence[float], n: int, *, of: int) -> dict[str, Any]:
    """``{"n", "of", "draws", "mean", "sd", "low", "high"}`` of draw scores (JSON-ready).

    ``of`` is the size of the set drawn from; ``low``/``high`` the smallest and largest draw.
    """
    values = np.asarray(scores, dtype=np.float64)
    return {
        "n": int(n),
        "of": int(of),
        "draws": len(values),
        "mean": float(values.mean()),
        "sd": float(values.std(ddof=1)) if len(values) > 1 else 0.0,
        "low": float(values.min()),
        "high": float(values.max()),
    }


def at_size(
    unit: np.ndarray,
    positions: Sequence[int] | np.ndarray,
    n: int,
    *,
    draws: int = DEFAULT_DRAWS,
    seed: int = 0,
    q: float | str = 1.0,
    check_cancel: Callable[[], None] | None = None,
    quality: np.ndarray | None = None,
) -> dict[str, Any]:
    """The score of the rows at ``positions`` at size ``n`` (:func:`summary` of the draws)."""
    scores = draw_scores(
        unit, positions, n, draws=draws, seed=seed, q=q, check_cancel=check_cancel,
        quality=quality,
    )  # fmt: skip
    return summary(scores, n, of=len(positions))


def at_size_with(
    score: Callable[[np.ndarray], float],
    positions: Sequence[int] | np.ndarray,
    n: int,
    *,
    draws: int = DEFAULT_DRAWS,
    seed: int = 0,
    quality: np.ndarray | None = None,
    check_cancel: Callable[[], None] | None = None,
) -> dict[str, Any]:
    """As :func:`at_size`, each draw scored by ``score(drawn positions)``.

    For rows that are not held as unit rows: read from the store draw by draw, or
    normalised one draw at a time. ``quality`` is indexed by position, like ``unit``'s rows.
    The draws are those of :func:`at_size` with the same ``positions``, ``n`` and ``seed``.
    """
    scores = _scores(
        score, positions, n, draws=draws, seed=seed, quality=quality, check_cancel=check_cancel
    )
    return summary(scores, n, of=len(positions))


def matrix_score(
    matrix: np.ndarray, *, q: float | str = 1.0, normalize: bool = True
) -> Callable[[np.ndarray], float]:
    """``score(positions)`` for :func:`at_size_with`: the Vendi score of those rows of
    ``matrix``, each draw normalised on its own (no unit copy of the whole matrix)."""
    order = vendi.check_order(q)
    return lambda drawn: vendi.vendi_score(matrix[drawn], order, normalize=normalize)


def add_to_breakdown(
    breakdown: dict[str, dict[str, Any]], score_at: Callable[[str, int], dict[str, Any]]
) -> None:
    """Give each source of a per-source breakdown its score at the smallest source's size.

    ``breakdown`` maps a source to ``{"n", "value"}`` (its own score); each gets ``"equal_n"``:
    the source of the smallest size ``m`` its own value (scored once), a larger one
    ``score_at(source, m)`` (a :func:`summary`, e.g. from :func:`at_size_with`).
    """
    if not breakdown:
        return
    m = common_size([int(row["n"]) for row in breakdown.values()])
    for source, row in breakdown.items():
        row["equal_n"] = (
            summary([float(row["value"])], m, of=m) if int(row["n"]) == m else score_at(source, m)
        )


def drawn(found: dict[str, Any]) -> bool:
    """Whether a :func:`summary` is the mean of draws from a larger set (not one set's score)."""
    n = int(found["n"])
    return int(found.get("draws", 1)) > 1 and int(found.get("of", n)) != n


def figure(found: dict[str, Any], digits: int = 2, sep: str = " ± ") -> str:
    """``"85.12 ± 2.30"`` for a mean of draws, ``"85.12"`` for a set scored once at its size."""
    text = f"{float(found['mean']):,.{digits}f}"
    return f"{text}{sep}{float(found['sd']):,.{digits}f}" if drawn(found) else text


def label(name: str, found: dict[str, Any], digits: int = 1) -> str:
    """``"G-Vendi 85.1 of 128 (n = 128, 5 draws from 900)"``: a score with its size said."""
    n, mean = int(found["n"]), float(found["mean"])
    if not drawn(found):
        return f"{name} {mean:,.{digits}f} of {n:,} (n = {n:,})"
    return (
        f"{name} {mean:,.{digits}f} ± {float(found['sd']):,.{digits}f} of {n:,} "
        f"(n = {n:,}, mean of {int(found['draws'])} draws from {int(found['of']):,})"
    )
