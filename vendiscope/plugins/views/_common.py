"""What the built-in views share: rounding numbers for the chart, checking parameters.

The built-in views import only :mod:`vendiscope.api` (and this module): a third-party view
can be written the same way. ``build(data)`` reads ``view_data(data)``, the read-only
:class:`~vendiscope.api.ViewData` of the dataset.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from vendiscope.api import CHART_SCHEMA_VERSION

if TYPE_CHECKING:
    import numpy as np


def rounded(values: Iterable[Any], digits: int = 6) -> list[float]:
    """Plain floats rounded to ``digits`` (compact JSON; NumPy scalars become floats)."""
    return [round(float(v), digits) for v in values]


def chart(kind: str, title: str, series: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"kind": kind, "title": title, "series": series, "version": CHART_SCHEMA_VERSION,
            **extra}  # fmt: skip


def check_choice(name: str, value: Any, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(choices)}; got {value!r}")


def check_count(name: str, value: Any, minimum: int = 1) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{name} must be a whole number >= {minimum}; got {value!r}")


def sample_positions(n: int, max_points: int, seed: int = 0) -> np.ndarray:
    """All positions, or a seeded random sample of ``max_points`` of them (sorted)."""
    import numpy as np

    if max_points < 1:
        raise ValueError(f"max_points must be at least 1; got {max_points}")
    if n <= max_points:
        return np.arange(n, dtype=np.int64)
    rng = np.random.default_rng(seed)
    return np.sort(rng.choice(n, size=max_points, replace=False)).astype(np.int64)
