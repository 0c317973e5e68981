"""Validation shared by the selection algorithms: ``vectors``, ``quality``, ``seed``.

The budget ``k`` has its own rule, shared with the selection job:
:func:`vendiscope.core.selection.budget.check_budget`.

Every message names the parameter (or the first bad row) at fault, so a user can fix the
input without reading the code. Nothing here copies or modifies the caller's arrays.
"""

from __future__ import annotations

import numpy as np

from vendiscope.core.metrics.algorithms.vendi import check_quality as _vendi_check_quality

CHECK_CHUNK_ROWS = 16_384
"""Rows checked at a time (bounds the temporary memory of :func:`check_vectors`)."""


def check_vectors(vectors: object, *, nonzero: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """``vectors`` as a 2-D real array (never copied) and the float64 squared norm of each row.

    Raises ``ValueError`` naming ``vectors`` for a wrong shape or dtype, and the first row
    holding a NaN or infinite value (or, with ``nonzero``, the first all-zero row, which has
    no direction and cannot be normalised for cosine similarity).
    """
    matrix = np.asarray(vectors)
    if matrix.ndim != 2:
        raise ValueError(
            f"vectors must be a 2-D array (rows x dimensions); got shape {matrix.shape}"
        )
    if matrix.shape[0] == 0 or matrix.shape[1] == 0:
        raise ValueError(f"vectors must have at least one row and one column; got {matrix.shape}")
    if matrix.dtype.kind not in "fiu":
        raise ValueError(f"vectors must hold real numbers; got dtype {matrix.dtype}")
    n = matrix.shape[0]
    squares = np.empty(n, dtype=np.float64)
    for start in range(0, n, CHECK_CHUNK_ROWS):
        block = np.asarray(matrix[start : start + CHECK_CHUNK_ROWS], dtype=np.float64)
        finite = np.isfinite(block).all(axis=1)
        if not finite.all():
            row = start + int(np.argmin(finite))
            raise ValueError(f"vectors: row {row} has a NaN or infinite value")
        squares[start : start + len(block)] = np.einsum("ij,ij->i", block, block)
    if not np.isfinite(squares).all():
        row = int(np.argmin(np.isfinite(squares)))
        raise ValueError(f"vectors: row {row} is too large (its squared length overflows)")
    if nonzero and squares.min() <= 0:
        row = int(np.argmin(squares))
        raise ValueError(
            f"vectors: row {row} is all zeros and has no direction (cosine similarity is "
            "undefined for it); drop it first"
        )
    return matrix, squares


def check_seed(seed: object) -> int:
    """``seed`` as a non-negative int."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative whole number; got {seed!r}")
    return int(seed)


def check_quality(quality: object, n: int, k: int) -> np.ndarray | None:
    """Quality weights as float64 (length ``n``, finite, non-negative), or ``None``.

    A row of quality 0 is never selected, so at least ``k`` rows must have a positive weight.
    """
    if quality is None:
        return None
    weights = _vendi_check_quality(quality, n)
    positive = int(np.count_nonzero(weights > 0))
    if positive < k:
        raise ValueError(
            f"quality: only {positive} rows have a positive weight, fewer than k={k} "
            "(a row of quality 0 is never selected)"
        )
    return weights


def check_positive_int(name: str, value: object, *, minimum: int = 1) -> int:
    """A whole-number parameter ``>= minimum``, named in the message."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{name} must be a whole number >= {minimum}; got {value!r}")
    return int(value)


def check_choice(name: str, value: object, choices: tuple[str, ...]) -> str:
    """One of ``choices``, named in the message."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}; got {value!r}")
    return str(value)
