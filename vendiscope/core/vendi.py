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

Per-record scores
-----------------
:func:`leverage_scores`
    ``h_i = x_i^T (X^T X + ridge I)^-1 x_i`` in ``[0, 1)``; they sum to the rank as
    ``ridge -> 0``. High for a row alone in a direction few others share.
:func:`vendi_contributions`
    ``VS(all) - VS(all without i)``: how much diversity the set loses without the row,
    for all rows at once from one eigendecomposition and rank-one downdates — exact (up to
    a quadrature accurate to about 1e-8) for ``0 < q <= 2`` and ``q = inf``, a second-order
    approximation for finite ``q > 2``; or by brute force for small data.
:func:`knn_uniqueness`
    ``1 - mean cosine similarity to the k nearest other rows`` (FAISS, exact search).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
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
    "knn_uniqueness",
    "leverage_scores",
    "vendi_contributions",
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
    return float(np.exp(np.log(np.sum(lam**q)) / (1.0 - q)))


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
    """A percentile bootstrap confidence interval for the (quality-weighted) Vendi score.

    Each of ``n_boot`` resamples draws ``n`` rows with replacement (seeded, so the interval
    is reproducible) and scores them in the same form as the full data: the dual Gram is
    ``sum_i c_i x_i x_i^T`` with ``c_i`` the times row ``i`` was drawn; the primal one is
    ``K`` restricted to the drawn rows. Each resample costs about one full score.

    This is the standard nonparametric bootstrap, and for the Vendi score it is biased low:
    a resample holds only about 63% distinct rows, and duplicates add no diversity. The
    interval describes sampling variability well when ``n`` is much larger than the score
    (many rows per effective direction, e.g. ``n >> d``); for small or very spread sets
    (score close to ``n``), or data at the maximum score (isotropic: every resample is less
    even), it can lie entirely below the point estimate.

    Returns
    -------
    (low, high)
        The ``(1 - level) / 2`` and ``(1 + level) / 2`` quantiles of the resampled scores.
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
    alpha = (1.0 - level) / 2.0
    low, high = np.quantile(scores, [alpha, 1.0 - alpha])
    return float(low), float(high)


# --------------------------------------------------------------------------- per record
def _squared_projections(
    matrix: np.ndarray, dec: VendiDecomposition, normalize: bool, chunk_rows: int | None
) -> Iterator[tuple[slice, np.ndarray]]:
    """Yield ``(rows, B2)`` with ``B2[i, j] = (x_i . u_j)^2`` for the Gram's eigenvectors ``u_j``.

    Dual form: ``x_i . u_j`` computed chunk by chunk (in the work precision). Primal form:
    ``(x_i . u_j)^2 = s_j V_ij^2`` from the eigenvectors ``V`` of ``X X^T``.
    """
    if dec.vectors is None:
        raise ValueError("the decomposition has no eigenvectors (decompose(eigenvectors=True))")
    if dec.form == "primal":
        yield slice(0, dec.n), dec.vectors**2 * dec.values[None, :]
        return
    basis = dec.vectors.astype(_work_dtype(matrix.dtype))
    for start, block in _iter_chunks(matrix, normalize, chunk_rows):
        projected = (block @ basis).astype(np.float64)
        yield slice(start, start + block.shape[0]), projected * projected


def _decomposition_for(
    matrix: np.ndarray,
    decomposition: VendiDecomposition | None,
    normalize: bool,
    chunk_rows: int | None,
) -> VendiDecomposition:
    if decomposition is None:
        return decompose(matrix, normalize=normalize, eigenvectors=True, chunk_rows=chunk_rows)
    if decomposition.vectors is None or decomposition.n != matrix.shape[0]:
        raise ValueError(
            "decomposition must come from decompose(vectors, eigenvectors=True) on the same rows"
        )
    return decomposition


def leverage_scores(
    vectors: np.ndarray,
    *,
    ridge: float = 1e-6,
    normalize: bool = True,
    decomposition: VendiDecomposition | None = None,
    chunk_rows: int | None = None,
) -> np.ndarray:
    """Leverage of each row: ``h_i = x_i^T (X^T X + ridge I)^-1 x_i`` for the normalised rows.

    Computed from the eigendecomposition ``X^T X = U diag(s) U^T`` as
    ``h_i = sum_j (x_i . u_j)^2 / (s_j + ridge)`` — one extra pass over the rows in the dual
    form. ``0 <= h_i < 1``; ``sum_i h_i = sum_j s_j / (s_j + ridge)``, the rank as
    ``ridge -> 0``. A row alone in its direction has leverage near 1, one of many similar
    rows near 0. Pass ``decomposition`` (with eigenvectors) to reuse one already computed.
    """
    if not ridge >= 0:
        raise ValueError(f"ridge must be >= 0; got {ridge!r}")
    matrix = _as_matrix(vectors)
    dec = _decomposition_for(matrix, decomposition, normalize, chunk_rows)
    with np.errstate(divide="ignore"):
        inverse = np.where(dec.values + ridge > 0, 1.0 / (dec.values + ridge), 0.0)
    out = np.empty(dec.n)
    for rows, b2 in _squared_projections(matrix, dec, normalize, chunk_rows):
        out[rows] = b2 @ inverse
    return out


def _trace_function(q: float) -> tuple[Callable, Callable, Callable]:
    """``g``, ``g'``, ``g''`` with ``sum_j g(lambda_j)`` the quantity behind ``VS_q``."""
    if q == 1:
        return (
            lambda t: -t * np.log(np.where(t > 0, t, 1.0)),
            lambda t: -np.log(t) - 1.0,
            lambda t: -1.0 / t,
        )
    return (
        lambda t: t**q,
        lambda t: q * t ** (q - 1.0),
        lambda t: q * (q - 1.0) * t ** (q - 2.0),
    )


def _divided_differences(m: np.ndarray, g1: Callable, g2: Callable) -> np.ndarray:
    """``D_jk = (g'(m_j) - g'(m_k)) / (m_j - m_k)`` (``g''`` when close), zero diagonal."""
    diff = m[:, None] - m[None, :]
    close = np.abs(diff) <= 1e-6 * np.maximum(m[:, None], m[None, :])
    with np.errstate(divide="ignore", invalid="ignore"):
        table = (g1(m)[:, None] - g1(m)[None, :]) / np.where(close, 1.0, diff)
    table = np.where(close, g2((m[:, None] + m[None, :]) / 2.0), table)
    np.fill_diagonal(table, 0.0)
    return table


def _dk_scores(
    b2: np.ndarray, values: np.ndarray, n: int, q: float, table: np.ndarray
) -> np.ndarray:
    """``VS_q`` without each row to second order (Daleckii-Krein); used for finite q > 2.

    First-order eigenvalues ``mu_j = (s_j - b_j^2) / (n - 1)`` (exact for a row alone in
    its direction) plus the second-order eigenvector term
    ``1/2 sum_{j != k} beta_j beta_k (g'(m_j) - g'(m_k)) / (m_j - m_k)`` on ``sum g(mu)``,
    ``m_j = s_j / (n - 1)``, ``beta_j = b_j^2 / (n - 1)``, ``g(t) = t^q``.
    """
    g, _, _ = _trace_function(q)
    beta = b2 / (n - 1)
    first = np.clip(values[None, :] / (n - 1) - beta, 0.0, None)
    trace = g(first).sum(axis=1) + 0.5 * np.einsum("ij,ij->i", beta @ table, beta)
    return np.maximum(trace, np.finfo(np.float64).tiny) ** (1.0 / (1.0 - q))


def _top_downdated(b2: np.ndarray, values: np.ndarray, iterations: int = 60) -> np.ndarray:
    """Largest eigenvalue of ``G - x_i x_i^T`` for each row: a root of the secular equation.

    With ``G = U diag(s) U^T`` and ``b = U^T x_i`` the eigenvalues ``t`` of the downdated
    matrix solve ``phi(t) = sum_j b_j^2 / (s_j - t) = 1``; the largest lies in ``[s_2, s_1]``
    (interlacing), where ``phi`` increases, so bisection finds it. Terms with ``s_j`` far
    below that interval (more than 8 half-widths from its centre ``c``) are summed once as
    a power series in ``(c - t) / h`` (16 terms, ratio <= 1/8), so an iteration costs the
    number of eigenvalues near the top, not ``d``.
    """
    s1 = values[-1]
    if values.size == 1:
        return np.maximum(s1 - b2[:, -1], 0.0)
    s2 = values[-2]
    if s1 - s2 <= 1e-12 * s1:
        return np.full(b2.shape[0], s1)
    centre, half = (s1 + s2) / 2.0, (s1 - s2) / 2.0
    near = values >= centre - 8.0 * half
    gaps = centre - values[~near]
    series = (1.0 / gaps)[:, None] * (half / gaps)[:, None] ** np.arange(16)[None, :]
    moments = b2[:, ~near] @ series  # far sum = -sum_k moments_k z^k, z = (c - t) / h
    close, close_values = b2[:, near], values[near]
    low = np.full(b2.shape[0], s2)
    high = np.full(b2.shape[0], s1)
    with np.errstate(divide="ignore", invalid="ignore"):
        for _ in range(iterations):
            mid = (low + high) / 2.0
            z = (centre - mid) / half
            far = moments[:, -1]
            for k in range(moments.shape[1] - 2, -1, -1):
                far = far * z + moments[:, k]
            phi = (close / (close_values[None, :] - mid[:, None])).sum(axis=1) - far
            above = phi > 1.0
            high = np.where(above, mid, high)
            low = np.where(above, low, mid)
    return (low + high) / 2.0


@dataclass(frozen=True)
class _Downdate:
    """What the leave-one-out formulas need besides each row's projections (see below)."""

    values: np.ndarray  # eigenvalues s_j of the Gram, ascending, clipped at 0
    n: int
    q: float
    score: float
    power_sum: float  # sum_j s_j^q (q != 1) or sum_j s_j log s_j (q == 1), significant s_j
    nodes: np.ndarray  # quadrature nodes u_p (Stieltjes integral), for 0 < q < 2
    weights: np.ndarray  # trapezoid weights in log u, times u_p^(q + 1)
    table: np.ndarray | None  # divided differences, for finite q > 2
    step: float = _STEP  # the grid step in log u

    @classmethod
    def prepare(cls, dec: VendiDecomposition, q: float) -> _Downdate:
        values = dec.values
        significant = values[values > values[-1] * values.size * _EPS64]
        if q == 1:
            power_sum = float(np.dot(significant, np.log(significant)))
        elif math.isinf(q):
            power_sum = float(significant[-1])
        else:
            power_sum = float(np.sum(significant**q))
        nodes = weights = np.empty(0)
        table = None
        step = _STEP
        if q < 2:
            # Trapezoid rule in v = log u from the numerical-zero level to 18 e-folds above
            # the top eigenvalue: the integrand is analytic in the strip |Im v| < pi, so the
            # rule converges geometrically; the tails are below 1e-8 of the integral.
            low = math.log(values[-1] * values.size * _EPS64)
            high = math.log(values[-1]) + 18.0
            count = math.ceil((high - low) / _STEP) + 1
            grid = np.linspace(low, high, count)
            nodes = np.exp(grid)
            step = float(grid[1] - grid[0])
            weights = np.full(count, step)
            weights[[0, -1]] /= 2.0
            weights *= nodes ** (q + 1.0)
        elif q > 2 and not math.isinf(q):
            _, g1, g2 = _trace_function(q)
            keep = values > values[-1] * values.size * _EPS64
            table = np.zeros((values.size, values.size))
            table[np.ix_(keep, keep)] = _divided_differences(values[keep] / (dec.n - 1), g1, g2)
        return cls(values, dec.n, q, dec.score(q), power_sum, nodes, weights, table, step)

    def contributions(self, b2: np.ndarray) -> np.ndarray:
        """``VS_q(all) - VS_q(without i)`` for rows with squared projections ``b2``."""
        n, q, values = self.n, self.q, self.values
        if math.isinf(q):
            return self.score - (n - 1) / _top_downdated(b2, values)
        if q > 2:
            return self.score - _dk_scores(b2, values, n, q, self.table)
        norm2 = b2.sum(axis=1)  # |x_i|^2
        sigma = b2 @ values  # x_i^T G x_i
        # q = 2 is exact and closed: tr (G - x x^T)^2 - tr G^2 = |x|^4 - 2 x^T G x.
        change = norm2**2 - 2.0 * sigma if q == 2 else self._stieltjes(b2, norm2, sigma)
        if q == 1:
            trace = float(values.sum())
            # H' - H with H = log n - (sum s log s) / n for trace n; written generally.
            entropy_all = (trace * math.log(n) - self.power_sum) / n
            entropy_without = ((trace - norm2) * math.log(n - 1) - (self.power_sum + change)) / (
                n - 1
            )
            return -self.score * np.expm1(entropy_without - entropy_all)
        log_ratio = np.log1p(change / self.power_sum) - q * math.log1p(-1.0 / n)
        return -self.score * np.expm1(log_ratio / (1.0 - q))

    def _stieltjes(self, b2: np.ndarray, norm2: np.ndarray, sigma: np.ndarray) -> np.ndarray:
        """Change of ``sum s^q`` (or ``sum s log s`` for q = 1) when row ``x`` is removed.

        ``R(u) = tr (G - x x^T + u)^-1 - tr (G + u)^-1 = gamma / (1 - alpha)`` (Sherman-
        Morrison) with ``alpha = sum_j b_j^2 / (s_j + u)`` and ``gamma = sum_j b_j^2 /
        (s_j + u)^2``. The Stieltjes representation of ``t^q`` then gives the change exactly
        as ``-w q a^(q-1) - sin(pi q) / pi * int_0^inf u^q rho(u) du`` (q = 1: ``-w (1 +
        log a) + int u rho``), with ``w = |x|^2``, ``a = x^T G x / w - w / 2`` and
        ``rho(u) = R(u) - w / (u + a)^2``: the subtracted term matches ``R`` to ``O(u^-4)``
        at infinity, so the integrand decays fast at both ends.
        """
        q, nodes = self.q, self.nodes
        inverse = 1.0 / (self.values[:, None] + nodes[None, :])
        alpha = b2 @ inverse
        gamma = b2 @ (inverse * inverse)
        with np.errstate(divide="ignore", invalid="ignore"):
            resolvent = gamma / (1.0 - alpha)
        # 0 <= R(u) <= 1/u (interlacing); below that, 1 - alpha is rounding noise.
        ceiling = 1.0 / nodes[None, :]
        resolvent = np.where((alpha < 1.0) & (resolvent < ceiling), resolvent, ceiling)
        safe = norm2 > 0
        shift = np.where(safe, sigma / np.where(safe, norm2, 1.0) - norm2 / 2.0, 1.0)
        rho = resolvent - norm2[:, None] / (nodes[None, :] + shift[:, None]) ** 2
        # Below the first node u0 only a lost eigenvalue (a row alone in its direction,
        # where R(u) ~ kappa / u, kappa = u0 R(u0)) still matters: add int_0^u0 kappa u^(q-1)
        # du, and the trapezoid rule's end correction for that non-decayed end (h^2 f' / 12).
        lost = np.clip(nodes[0] * resolvent[:, 0], 0.0, 1.0)
        tail = lost * nodes[0] ** q * (1.0 / q + self.step**2 * q / 12.0)
        integral = rho @ self.weights + tail
        if q == 1:
            return -norm2 * (1.0 + np.log(shift)) + integral
        return -norm2 * q * shift ** (q - 1.0) - math.sin(math.pi * q) / math.pi * integral


def vendi_contributions(
    vectors: np.ndarray,
    q: float | str = 1.0,
    *,
    normalize: bool = True,
    quality: np.ndarray | None = None,
    method: Literal["fast", "exact"] = "fast",
    decomposition: VendiDecomposition | None = None,
    chunk_rows: int | None = None,
) -> np.ndarray:
    """Leave-one-out contribution of each row: ``VS_q(all) - VS_q(all without row i)``.

    Positive for a row that adds diversity; negative for a redundant row, whose removal
    *raises* the score (without one of many near-copies the rest is more even). With
    ``quality``, the contribution to ``mean(quality) * VS_q``. A single row contributes
    its whole score (the empty set scores 0).

    Method ``"fast"`` (default) needs one eigendecomposition ``G = X^T X = U diag(s) U^T``
    and one more pass over the rows. Removing unit row ``x`` (``b = U^T x``) leaves
    ``G - x x^T`` and ``n - 1`` rows, so only ``sum_j t_j^q`` (or ``sum_j t_j log t_j``)
    over the eigenvalues ``t`` of ``G - x x^T`` is needed:

    - ``q = 2``: ``tr (G - x x^T)^2 = tr G^2 - 2 x^T G x + |x|^4``, exact;
    - ``q = inf``: the top eigenvalue of ``G - x x^T`` solves the secular equation
      ``sum_j b_j^2 / (s_j - t) = 1`` on ``[s_2, s_1]``; found by bisection, exact;
    - ``0 < q < 2``: ``t^q`` (and ``t log t``) is a Stieltjes integral of ``t / (t + u)``,
      and ``sum_j 1 / (t_j + u)`` follows from Sherman-Morrison; the integral over ``u``
      is taken by the trapezoid rule in ``log u`` (about 120 nodes), which converges
      geometrically — exact to about 1e-8 relative (see :meth:`_Downdate._stieltjes`);
    - finite ``q > 2``: a second-order (Daleckii-Krein) perturbation of the eigenvalues,
      an approximation (about 1% of the largest contribution when ``n >> d``; worse for
      rows nearly alone in a weak direction).

    Cost: ``O(n d^2)`` (``O(n d P)`` for the integral), memory one chunk of rows.
    Eigenvalues at the numerical-zero level count as zero, as in :func:`vendi_score`.

    Method ``"exact"`` recomputes the score without each row from the downdated Gram
    (``n`` eigendecompositions of ``min(n, d)``-square matrices): for small data and tests.
    """
    order = check_order(q)
    matrix = _as_matrix(vectors)
    n = matrix.shape[0]
    weights = None if quality is None else check_quality(quality, n)
    if method not in ("fast", "exact"):
        raise ValueError(f"method must be 'fast' or 'exact'; got {method!r}")
    mean_all = 1.0 if weights is None else float(weights.mean())
    if n == 1:
        return np.array([mean_all * decompose(matrix, normalize=normalize).score(order)])
    if method == "exact":
        dec = decompose(matrix, normalize=normalize, chunk_rows=chunk_rows)
        contributions = dec.score(order) - _loo_scores_exact(matrix, dec, order, normalize)
    else:
        dec = _decomposition_for(matrix, decomposition, normalize, chunk_rows)
        downdate = _Downdate.prepare(dec, order)
        contributions = np.empty(n)
        for rows, b2 in _squared_projections(matrix, dec, normalize, chunk_rows):
            contributions[rows] = downdate.contributions(b2)
    if weights is None:
        return contributions
    score = dec.score(order)
    mean_without = (weights.sum() - weights) / (n - 1)
    return mean_all * score - mean_without * (score - contributions)


def _loo_scores_exact(
    matrix: np.ndarray, dec: VendiDecomposition, q: float, normalize: bool
) -> np.ndarray:
    """``VS_q`` without each row, by brute force (downdated Gram, one eigvalsh per row)."""
    n = dec.n
    rows = _normalised(matrix, normalize)
    out = np.empty(n)
    if dec.form == "primal":
        kernel = rows @ rows.T
        for i in range(n):
            keep = np.arange(n) != i
            values = np.linalg.eigvalsh(kernel[np.ix_(keep, keep)])
            out[i] = vendi_from_eigenvalues(np.clip(values, 0, None) / (n - 1), q)
        return out
    xtx = rows.T @ rows
    for i in range(n):
        values = np.linalg.eigvalsh(xtx - np.outer(rows[i], rows[i]))
        out[i] = vendi_from_eigenvalues(np.clip(values, 0, None) / (n - 1), q)
    return out


def knn_uniqueness(
    vectors: np.ndarray,
    k: int = 10,
    *,
    normalize: bool = True,
    chunk_rows: int | None = None,
) -> np.ndarray:
    """``1 - mean cosine similarity to the k nearest other rows``, per row.

    About 0 for a row with ``k`` near-duplicates, about 1 for a row orthogonal to all others,
    up to 2 for rows pointing away from everything. ``k`` is capped at ``n - 1``; a single
    row scores 1 (nothing is similar to it). Exact search with FAISS ``IndexFlatIP`` on a
    float32 copy of the normalised rows: ``O(n^2 d)`` time, ``n x d`` float32 memory. A row
    is never its own neighbour (if a duplicate displaces it from the results, the farthest
    result is dropped instead).
    """
    if int(k) != k or k < 1:
        raise ValueError(f"k must be a positive integer; got {k!r}")
    matrix = _as_matrix(vectors)
    n, d = matrix.shape
    if n == 1:
        return np.ones(1)
    k = min(int(k), n - 1)

    import faiss

    rows = np.empty((n, d), dtype=np.float32)
    for start, block in _iter_chunks(matrix, normalize, chunk_rows):
        rows[start : start + block.shape[0]] = block
    index = faiss.IndexFlatIP(d)
    index.add(rows)
    sims, ids = index.search(rows, k + 1)
    self_hit = ids == np.arange(n)[:, None]
    self_hit[~self_hit.any(axis=1), -1] = True
    neighbours = sims[~self_hit].reshape(n, k).astype(np.float64)
    return 1.0 - neighbours.mean(axis=1)
