"""The projection's dimension ``d`` chosen from the number of rows (``dim=None``, "auto").

A count-sketch to ``d`` adds noise of about ``1 / sqrt(d)`` to every cosine; it lowers the
Vendi score of ``n`` rows by roughly ``SHIFT_PER_RATIO * n / d`` of its value (measured on
real gradients, docs/benchmarks.md "G-Vendi against the unprojected kernel"). A larger ``d``
costs almost nothing to compute — the sketch touches each gradient coordinate once whatever
``d`` is — but it is stored (``n x d`` float32) and every later step (neighbours, maps,
selection) reads it. So small sets get the ``d`` that keeps the shift under
``TARGET_SHIFT``, within a storage budget of ``STORED_NUMBERS`` numbers; large sets keep the
paper's 1,024.
"""

from __future__ import annotations

PAPER_DIM = 1024
"""The paper's projection dimension (the floor of the automatic choice)."""

MAX_DIM = 16384
SHIFT_PER_RATIO = 1.0
"""Relative shift of the score per unit of ``n / d``: twice the 0.5 measured on 32 real
docstrings with SmolLM2 (-1.5% at d = 1,024), to stay on the safe side."""

TARGET_SHIFT = 0.01
STORED_NUMBERS = 1 << 24
"""At most this many stored numbers (64 MB of float32) for a larger-than-paper ``d``."""


def auto_dim(n_rows: int) -> int:
    """The power of two ``d`` (``PAPER_DIM`` to ``MAX_DIM``) for ``n_rows`` rows."""
    if n_rows < 1:
        return PAPER_DIM
    wanted = SHIFT_PER_RATIO * n_rows / TARGET_SHIFT
    affordable = STORED_NUMBERS // n_rows
    dim = PAPER_DIM
    while dim < MAX_DIM and dim < wanted and dim * 2 <= affordable:
        dim *= 2
    return dim
