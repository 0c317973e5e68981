"""The Vendi family of diversity scores, and per-record scores, in plain NumPy.

Definitions
-----------
Rows ``x_i`` of an ``n x d`` matrix are normalised to unit length, so the cosine kernel
``K_ij = <x_i, x_j>`` has a unit diagonal. The eigenvalues ``lambda`` of ``K / n`` are
non-negative and sum to 1. The **Vendi score of order q** (Friedman & Dieng 2023; orders
other than 1 from "Cousins of the Vendi Score") is the exponential of their Rényi entropy::

    VS_q   = (sum_i lambda_i ** q) ** (1 / (1 - q))       q > 0, q != 1
    VS_1   = exp(-sum_i lambda_i log lambda_i)            the Shannon limit
    VS_inf = 1 / max_i lambda_i

Eigenvalues at the numerical-zero level (below ``max(lambda) * m * eps``, ``m`` the matrix
size) are ignored. ``VS_q`` is the **effective number of distinct examples**: 1 for ``n``
identical rows, ``n`` for ``n`` orthogonal rows, unchanged when every row is duplicated.
Small ``q`` counts rare directions more, large ``q`` only the dominant ones; the score
decreases with ``q``. The quality-weighted score (Nguyen & Dieng 2024) is
``mean(quality) * VS_q``.

Forms and precision
-------------------
The non-zero eigenvalues of ``K / n`` (``n x n``, the *primal* form) equal those of
``X^T X / n`` (``d x d``, the *dual* form). The dual is used when ``n > d``: ``X^T X`` is
accumulated over chunks of rows, each normalised on its own, so memory stays at one chunk
plus ``d x d`` and the rows never need to fit in memory at once (:func:`gram_dual`).
Products are computed in the input's precision — float32 blocks for float32 (and float16)
input, float64 otherwise — and accumulated in float64; eigenvalues are always computed in
float64 (``numpy.linalg.eigvalsh``). For float32 input the score carries float32's relative
error (about 1e-6); pass float64 rows for more.

Per-record scores live in :mod:`vendiscope.core.metrics.algorithms.vendi_records`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Literal

import numpy as np

__all__ = [
    "VendiDecomposition",
    "bootstrap_ci",
    "check_order",
    "check_quality",
    "decompose",
    "effective_number",
    "gram_dual",
    "vendi_from_eigenvalues",
    "vendi_from_gram",
    "vendi_score",
    "vendi_spectrum",
]

Form = Literal["dual", "primal"]

CHUNK_BYTES = 64 * 2**20
"""Target size of one chunk of rows in the dual form (the memory bound besides ``d x d``)."""

_STEP = 0.4
"""Step in ``log u`` of the trapezoid rule for leave-one-out contributions."""

_EPS64 = float(np.finfo(np.float64).eps)


# --------------------------------------------------------------------------- validation
def check_order(q: float | str) -> float:
    """Return the order ``q`` as a float; it must be > 0 (``inf`` and ``"inf"`` allowed)."""
    try:
        value = float(q)
    except (TypeError, ValueError):
        raise ValueError(f"q must be a number > 0 or inf; got {q!r}") from None
    if math.isnan(value) or value <= 0:
        raise ValueError(f"q must be > 0 (or inf); got {q!r}")
    return value


def check_quality(quality: object, n: int) -> np.ndarray:
    """Return quality weights as a float64 vector of length ``n``: finite and non-negative."""
    weights = np.asarray(quality, dtype=np.float64)
    if weights.ndim != 1 or weights.shape[0] != n:
        raise ValueError(
            f"quality must be a 1-D array with one weight per row ({n}); got shape {weights.shape}"
        )
    if not np.isfinite(weights).all():
        raise ValueError("quality weights must be finite (found NaN or infinity)")
    if (weights < 0).any():
        raise ValueError(f"quality weights must be non-negative; row {int(np.argmin(weights))}")
    return weights


def _as_matrix(vectors: object) -> np.ndarray:
    """``vectors`` as a 2-D real array with at least one row and one column (never copied)."""
    matrix = np.asarray(vectors)
    if matrix.ndim != 2:
        raise ValueError(
            f"vectors must be a 2-D array (rows x dimensions); got shape {matrix.shape}"
        )
    if matrix.shape[0] == 0:
        raise ValueError(f"vectors is empty (shape {matrix.shape}); need at least one row")
    if matrix.shape[1] == 0:
        raise ValueError(f"vectors has no columns (shape {matrix.shape})")
    if matrix.dtype.kind not in "fiu":
        raise ValueError(f"vectors must hold real numbers; got dtype {matrix.dtype}")
    return matrix


def _work_dtype(dtype: np.dtype) -> type[np.floating]:
    """float32 for float32/float16 input, float64 for everything else."""
    return np.float32 if dtype in (np.float16, np.float32) else np.float64


def _chunk_rows(d: int, dtype: type[np.floating], rows: int | None) -> int:
    if rows is not None:
        if rows < 1:
            raise ValueError(f"chunk_rows must be >= 1; got {rows}")
        return int(rows)
    return int(min(1 << 16, max(256, CHUNK_BYTES // (d * np.dtype(dtype).itemsize))))


# --------------------------------------------------------------------------- chunks
def _prepare_chunk(chunk: np.ndarray, start: int, normalize: bool) -> np.ndarray:
    """Check a chunk of rows (finite, non-zero when normalising) and normalise them.

    Returns an array in the work dtype; when ``normalize`` is false and the dtype already
    matches this is a view of the input (callers never write to it).
    """
    dtype = _work_dtype(chunk.dtype)
    block = np.asarray(chunk, dtype=dtype)
    squares = np.einsum("ij,ij->i", block, block)
    if not (np.isfinite(squares).all() and (not normalize or squares.min() > 0)):
        # Overflow or underflow in the work precision, a non-finite value, or a zero row:
        # redo the chunk in float64 and name the first bad row.
        wide = np.asarray(chunk, dtype=np.float64)
        squares = np.einsum("ij,ij->i", wide, wide)
        bad = np.flatnonzero(~np.isfinite(squares))
        if bad.size:
            raise ValueError(f"vectors: row {start + int(bad[0])} has a NaN or infinite value")
        if normalize and squares.min() <= 0:
            row = start + int(np.argmin(squares))
            raise ValueError(
                f"vectors: row {row} is all zeros and cannot be normalised to unit length "
                "(drop it, or pass normalize=False)"
            )
        if not normalize:
            return block
        return (wide / np.sqrt(squares)[:, None]).astype(dtype)
    if not normalize:
        return block
    scale = np.sqrt(squares)
    np.divide(1, scale, out=scale)
    return block * scale[:, None]


def _iter_chunks(
    matrix: np.ndarray, normalize: bool, rows: int | None = None
) -> Iterator[tuple[int, np.ndarray]]:
    """Yield ``(start, normalised rows)`` over ``matrix`` in chunks of bounded size."""
    n, d = matrix.shape
    step = _chunk_rows(d, _work_dtype(matrix.dtype), rows)
    for start in range(0, n, step):
        yield start, _prepare_chunk(matrix[start : start + step], start, normalize)


def _normalised(matrix: np.ndarray, normalize: bool) -> np.ndarray:
    """All rows, normalised in float64, as one array (the primal form, ``n <= d``)."""
    return _prepare_chunk(np.asarray(matrix, dtype=np.float64), 0, normalize)


def gram_dual(chunks: Iterable[np.ndarray], *, normalize: bool = True) -> tuple[np.ndarray, int]:
    """Accumulate ``X^T X`` over chunks of rows, streaming.

    Parameters
    ----------
    chunks
        Any iterable of 2-D arrays with the same number of columns, e.g. the chunks of a
        vector set read one at a time. Empty chunks are skipped.
    normalize
        Normalise each row to unit length first (the Vendi score needs unit rows).

    Returns
    -------
    (xtx, n)
        The ``d x d`` float64 Gram matrix of the (normalised) rows and the number of rows.
        Memory: one chunk plus ``d x d``. Pass both to :func:`vendi_from_gram`.

    Raises
    ------
    ValueError
        No rows at all, a chunk that is not 2-D or changes the dimension, or a bad row
        (NaN, infinity, all zeros when normalising), named by its global row index.
    """
    xtx: np.ndarray | None = None
    n = 0
    for number, chunk in enumerate(chunks):
        block = np.asarray(chunk)
        if block.ndim != 2:
            raise ValueError(f"chunk {number} must be 2-D; got shape {block.shape}")
        if xtx is None:
            if block.shape[1] == 0:
                raise ValueError(f"chunk {number} has no columns (shape {block.shape})")
            xtx = np.zeros((block.shape[1], block.shape[1]), dtype=np.float64)
        elif block.shape[1] != xtx.shape[0]:
            raise ValueError(
                f"chunk {number} has {block.shape[1]} columns; earlier chunks had {xtx.shape[0]}"
            )
        if block.shape[0] == 0:
            continue
        if block.dtype.kind not in "fiu":
            raise ValueError(f"chunk {number} must hold real numbers; got dtype {block.dtype}")
        rows = _prepare_chunk(block, n, normalize)
        xtx += rows.T @ rows  # numpy calls BLAS syrk for a.T @ a
        n += block.shape[0]
    if xtx is None or n == 0:
        raise ValueError("gram_dual: the chunks hold no rows")
    return xtx, n


# --------------------------------------------------------------------------- scores
def _significant(eigenvalues: np.ndarray) -> np.ndarray:
    """The eigenvalues above the numerical-zero level ``max * m * eps``."""
    top = float(eigenvalues.max()) if eigenvalues.size else 0.0
    if not top > 0:
        raise ValueError("the similarity matrix has no positive eigenvalue (all rows are zero?)")
    return eigenvalues[eigenvalues > top * eigenvalues.size * _EPS64]


def _hill(lam: np.ndarray, q: float) -> float:
    """``exp`` of the Rényi entropy of order ``q`` of positive weights ``lam``."""
    if q == 1:
        return float(np.exp(-np.dot(lam, np.log(lam))))
    if math.isinf(q):
        return float(1.0 / lam.max())
    # sum(lam**q) = top**q * sum((lam/top)**q): no overflow or underflow to 0 for any q
    # (a huge q tends to the q = inf value 1/top, as it should).
    top = float(lam.max())
    with np.errstate(under="ignore"):
        rest = float(np.sum((lam / top) ** q))  # between 1 and len(lam)
    return float(np.exp(q / (1.0 - q) * math.log(top) + math.log(rest) / (1.0 - q)))


def vendi_from_eigenvalues(eigenvalues: np.ndarray, q: float | str = 1.0) -> float:
    """The Vendi score of order ``q`` from the eigenvalues of ``K / n``.

    Eigenvalues at the numerical-zero level or below are ignored. They are used as given
    (not renormalised): with unit rows they sum to 1.
    """
    order = check_order(q)
    lam = np.asarray(eigenvalues, dtype=np.float64).ravel()
    if not np.isfinite(lam).all():
        raise ValueError("eigenvalues must be finite")
    return _hill(_significant(lam), order)


@dataclass(frozen=True)
class VendiDecomposition:
    """The eigendecomposition behind a Vendi score, reusable for every q and per-record score.

    Attributes
    ----------
    values
        Eigenvalues of the Gram matrix (``X^T X`` in the dual form, ``X X^T`` in the primal
        form) of the normalised rows, ascending, float64, clipped at 0. Not divided by ``n``.
    vectors
        The matching eigenvectors (columns), when asked for; ``d x d`` (dual) or ``n x n``
        (primal).
    n, d
        Rows and dimensions of the data.
    form
        ``"dual"`` (``n > d``) or ``"primal"`` (``n <= d``).
    """

    values: np.ndarray
    vectors: np.ndarray | None
    n: int
    d: int
    form: Form

    @classmethod
    def from_gram(
        cls,
        xtx: np.ndarray,
        n: int,
        *,
        eigenvectors: bool = False,
        form: Form = "dual",
        d: int | None = None,
    ) -> VendiDecomposition:
        """Decompose a Gram matrix: ``X^T X`` from :func:`gram_dual`, or ``X X^T`` (primal).

        ``d`` defaults to the size of ``xtx`` in the dual form; give it for the primal form.
        """
        gram = np.asarray(xtx, dtype=np.float64)
        if gram.ndim != 2 or gram.shape[0] != gram.shape[1] or gram.shape[0] == 0:
            raise ValueError(f"the Gram matrix must be square and non-empty; got {gram.shape}")
        if not np.isfinite(gram).all():
            raise ValueError("the Gram matrix has NaN or infinite entries")
        if int(n) < 1:
            raise ValueError(f"n must be >= 1; got {n}")
        if eigenvectors:
            values, vecs = np.linalg.eigh(gram)
        else:
            values, vecs = np.linalg.eigvalsh(gram), None
        if d is None:
            d = gram.shape[0]
        return cls(np.clip(values, 0.0, None), vecs, int(n), int(d), form)

    @property
    def spectrum(self) -> np.ndarray:
        """Eigenvalues of ``K / n``, descending, numerical zeros set to 0 (sum 1 for unit rows)."""
        lam = self.values[::-1] / self.n
        top = lam[0] if lam.size else 0.0
        return np.where(lam > top * lam.size * _EPS64, lam, 0.0)

    def score(self, q: float | str = 1.0) -> float:
        """The Vendi score of order ``q``."""
        return vendi_from_eigenvalues(self.values / self.n, q)


def decompose(
    vectors: np.ndarray,
    *,
    normalize: bool = True,
    eigenvectors: bool = False,
    chunk_rows: int | None = None,
) -> VendiDecomposition:
    """Eigendecompose the (normalised) Gram matrix in the cheaper form.

    The dual form (``d x d``, accumulated over chunks of ``chunk_rows`` rows) when
    ``n > d``, the primal form (``n x n``, in float64) otherwise. ``vectors`` is never
    modified or copied whole in the dual form.
    """
    matrix = _as_matrix(vectors)
    n, d = matrix.shape
    if n > d:
        step = _chunk_rows(d, _work_dtype(matrix.dtype), chunk_rows)
        slices = (matrix[start : start + step] for start in range(0, n, step))
        xtx, _ = gram_dual(slices, normalize=normalize)
        return VendiDecomposition.from_gram(xtx, n, eigenvectors=eigenvectors)
    rows = _normalised(matrix, normalize)
    return VendiDecomposition.from_gram(
        rows @ rows.T, n, eigenvectors=eigenvectors, form="primal", d=d
    )


def vendi_score(
    vectors: np.ndarray,
    q: float | str = 1.0,
    *,
    normalize: bool = True,
    quality: np.ndarray | None = None,
) -> float:
    """The Vendi score of order ``q`` of the rows of ``vectors``.

    Parameters
    ----------
    vectors
        ``n x d`` array, one example per row; not modified.
    q
        Order, > 0; ``1`` (default) is the Shannon Vendi score, ``inf`` (or ``"inf"``)
        ``1 / max eigenvalue``.
    normalize
        Normalise rows to unit length (cosine similarity). Pass ``False`` only for rows
        that already have unit length; the eigenvalues are then used as they are.
    quality
        Optional non-negative weight per row; the result is then the quality-weighted
        Vendi score ``mean(quality) * VS_q``.

    Returns
    -------
    float
        Between 1 and ``min(n, d)`` (times ``mean(quality)``): the effective number of
        distinct examples.
    """
    order = check_order(q)
    matrix = _as_matrix(vectors)
    weights = None if quality is None else check_quality(quality, matrix.shape[0])
    value = decompose(matrix, normalize=normalize).score(order)
    return value if weights is None else float(weights.mean()) * value


effective_number = vendi_score
"""The effective number of distinct examples: another name for :func:`vendi_score`."""


def vendi_spectrum(vectors: np.ndarray, *, normalize: bool = True) -> np.ndarray:
    """The ``min(n, d)`` eigenvalues of ``K / n``, descending (they sum to 1 for unit rows)."""
    return decompose(vectors, normalize=normalize).spectrum


def vendi_from_gram(xtx: np.ndarray, n: int, q: float | str = 1.0) -> float:
    """The Vendi score of order ``q`` from ``X^T X`` of ``n`` unit rows (see :func:`gram_dual`)."""
    order = check_order(q)
    return VendiDecomposition.from_gram(xtx, n).score(order)


# --------------------------------------------------------------------------- bootstrap
def bootstrap_ci(
    vectors: np.ndarray,
    q: float | str = 1.0,
    *,
    n_boot: int = 200,
    level: float = 0.95,
    seed: int = 0,
    normalize: bool = True,
    quality: np.ndarray | None = None,
    chunk_rows: int | None = None,
) -> tuple[float, float]:
    """A bootstrap confidence interval for the (quality-weighted) Vendi score.

    Each of ``n_boot`` resamples draws ``n`` rows with replacement (seeded, so the interval
    is reproducible) and scores them in the same form as the full data: the dual Gram is
    ``sum_i c_i x_i x_i^T`` with ``c_i`` the times row ``i`` was drawn; the primal one is
    ``K`` restricted to the drawn rows. Each resample costs about one full score.

    The interval is the *normal* bootstrap interval ``score +- z * sd(resampled scores)``,
    centred on the score of the data. The resampled scores themselves are biased low — a
    resample holds only about 63% distinct rows and duplicates add no diversity — so their
    percentiles can lie entirely below the score (for small or very spread sets); their
    spread still measures the sampling variability, which is what the interval reports.

    Returns
    -------
    (low, high)
        ``score -+ z * sd``, with ``z`` the normal quantile of ``(1 + level) / 2``.
    """
    order = check_order(q)
    matrix = _as_matrix(vectors)
    n, d = matrix.shape
    weights = None if quality is None else check_quality(quality, n)
    if int(n_boot) != n_boot or n_boot < 1:
        raise ValueError(f"n_boot must be a positive integer; got {n_boot!r}")
    if not 0 < level < 1:
        raise ValueError(f"level must be between 0 and 1; got {level!r}")
    rng = np.random.default_rng(seed)
    scores = np.empty(int(n_boot))
    kernel = None
    if n <= d:
        rows = _normalised(matrix, normalize)
        kernel = rows @ rows.T
    for b in range(int(n_boot)):
        counts = np.bincount(rng.integers(0, n, size=n), minlength=n)
        if kernel is not None:
            drawn = np.repeat(np.arange(n), counts)
            values = np.linalg.eigvalsh(kernel[np.ix_(drawn, drawn)])
        else:
            xtx = np.zeros((d, d))
            for start, block in _iter_chunks(matrix, normalize, chunk_rows):
                c = counts[start : start + block.shape[0]]
                picked = c > 0
                scaled = block[picked] * np.sqrt(c[picked]).astype(block.dtype)[:, None]
                xtx += scaled.T @ scaled
            values = np.linalg.eigvalsh(xtx)
        score = vendi_from_eigenvalues(np.clip(values, 0, None) / n, order)
        scores[b] = score if weights is None else score * float(counts @ weights) / n
    from statistics import NormalDist

    centre = vendi_score(matrix, order, normalize=normalize, quality=weights)
    half = NormalDist().inv_cdf((1.0 + level) / 2.0) * float(np.std(scores, ddof=1)) if (
        n_boot > 1
    ) else 0.0  # fmt: skip
    return float(centre - half), float(centre + half)


# --------------------------------------------------------------------------- per record
