"""The coverage job's threshold, shared by its callers (the CLI, the Python API, the report).

A light module (nothing heavy imported), so that a command's options can show the default.
A target record is *covered* when its nearest training record has a cosine similarity of at
least :data:`DEFAULT_MIN_SIMILARITY` (``--min-similarity``; once called ``--radius``, though
it is a similarity, not a distance).
"""

from __future__ import annotations

from vendiscope.core.base.errors import VendiscopeError

DEFAULT_MIN_SIMILARITY = 0.8
"""The least cosine similarity to the nearest training record that covers a target record."""


def check_min_similarity(value: float) -> float:
    """``value`` as a float, or a :class:`VendiscopeError` when it is not a cosine in [-1, 1]."""
    try:
        number = float(value) if not isinstance(value, bool | str) else None
    except (TypeError, ValueError):
        number = None
    if number is None or not -1.0 <= number <= 1.0:
        raise VendiscopeError(
            f"the minimum similarity (--min-similarity) must be a cosine similarity in [-1, 1]; "
            f"got {value!r}"
        )
    return number


DEFAULT_NEAR_DUPLICATE_THRESHOLD = 0.9
"""The cosine similarity at or above which two records are near-duplicates, unless a caller
says otherwise: the near-duplicates job (``vendiscope near-dups``, the Python API, the app's
dialog) and the selection's de-duplication read it here. Calibrated on real templated text
with the bundled sentence encoder: ``tests/benchmarks/bench_near_dup_threshold.py`` (the
table is in ``docs/benchmarks.md``)."""
DEFAULT_NEAR_DUPLICATE_K = 20
"""The nearest neighbours examined per record when looking for its near-duplicates (the
job's ``k``, ``--k`` of ``vendiscope near-dups``)."""
