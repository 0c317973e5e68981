"""Accept or refuse synthetic candidates against a pool, in gradient space.

A synthesis round featurizes each generated candidate with the pool's proxy model and
asks :func:`decide` whether to keep it. The pool and the rows accepted so far are a
:class:`PoolState`; every accepted row joins it at once, so later candidates (in the same
batch too) are judged against it. Rules (:data:`RULES`):

``"gain"`` (the default for a synthesis job)
    Accept a candidate when its **marginal G-Vendi gain**, ``VS(pool + accepted + x) -
    VS(pool + accepted)``, is at least ``threshold``. The default, ``threshold=None``
    (:data:`DEFAULT_THRESHOLD`), is relative: at least the running median of the gains of
    the candidates judged against the state so far (:attr:`PoolState.seen_gains`), and
    never below 0, so about half the stream is kept whatever the scale of the gains. A
    number is an absolute bar in G-Vendi units (0: "keep what raises G-Vendi"). The gain
    is exact, from a rank-one update of one cached eigendecomposition
    (:func:`marginal_gains`, about a millisecond per candidate at ``d = 1024``); each
    acceptance costs one new eigendecomposition (``n x n`` while the pool has at most
    ``d`` rows, else ``d x d``: 0.1-2 s on two cores).
``"sparse-cluster"``
    The Prismatic Synthesis rule (Jung et al. 2025): accept a candidate whose nearest pool
    centroid (spherical k-means, ``k = N / 10``) is a cluster smaller than the pool's
    median cluster size. Accepted rows count towards their cluster, so a cluster stops
    accepting once it reaches the median.
``"none"``
    Accept everything (the control).

Why (``tests/benchmarks/bench_filter_rules.py``): a third of a dataset is the pool, the
rest a stream of candidates; each rule reads the stream until ``B`` rows are accepted.
G-Vendi gain per accepted row, as a multiple of ``none`` (the first ``B`` candidates), and
in brackets candidates read per accepted row::

    demo (1,245 rows)   random split, pool 415           skewed split, pool 349
                        B = 42         B = 104           B = 35         B = 87
    sparse, static      1.06 (5.0)     0.87 (6.9)        1.12 (10.9)    0.88 (8.7)
    sparse, growing     1.25 (20.8)*   1.64 (20.8)* 40   1.15 (28.9)*   1.17 (28.9)* 31
    gain >= 0           1.79 (1.5)     2.11 (1.5)        1.75 (1.4)     1.58 (1.4)
    gain >= median      2.26 (2.3)     2.61 (2.5)        2.05 (1.9)     2.00 (2.1)

    docstrings (480)    random split, pool 160           skewed split, pool 120
                        B = 16         B = 40            B = 12         B = 30
    sparse, static      1.19 (3.0)     1.08 (4.1)        1.17 (7.7)     1.03 (7.2)
    sparse, growing     1.38 (6.6)     1.24 (13.3)* 24   1.19 (14.9)    1.11 (21.2)* 17
    gain >= 0           1.00 (1.0)     1.00 (1.0)        1.00 (1.0)     1.00 (1.0)
    gain >= median      1.37 (1.9)     1.24 (1.8)        1.25 (1.5)     1.21 (2.1)

(* the rule ran out of room after the number given: growing sparse clusters hold only
``sum(median - size)`` more rows.) Why the paper's rule does no better than random: with
``k = N / 10`` a cluster's *size* is not its density. Small clusters are the *tight* ones
(rank correlation of size and mean cosine to the centroid -0.52/-0.54 on the demo,
-0.94/-0.87 on the docstrings), compact groups of near-alike rows; the diffuse, varied
regions form the large clusters. On the demo, candidates landing in a small cluster are
closer to their nearest pool row than random ones (cosine 0.66-0.68 against 0.63-0.66)
and pile into few clusters (18 against 37 for the first 104 of the stream). Keeping every
one of them, as ``vendiscope filter-candidates`` does, adds less than as many random
candidates (+12.2 against +13.2; skewed split +15.0 against +17.1; docstrings +31.0
against +29.0 and +22.1 against +22.2), and it does not find the sources the pool lacks
(on the demo 34-36% of the kept rows against 32-34% for ``none``; ``gain >= median``
54-56%). Static sizes fall below ``none`` once the budget exceeds the sparse clusters'
room, so ``"sparse-cluster"`` grows them. The gain rule also raised the embedding Vendi
score (MiniLM; a metric it does not optimise) 2.2-2.6 times as much per row as ``none``.
An absolute threshold does not transfer between pools: on the docstrings (a small, varied
pool, ``n << d``) every candidate raises G-Vendi (10th percentile of the gains +0.31), so
``gain >= 0`` keeps everything; the running median keeps half the stream on both.

The module is pure: NumPy, FAISS (through :mod:`vendiscope.core.clusters.algorithms.kmeans`) and the
Vendi code; no store.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from vendiscope.core.clusters.algorithms.kmeans import Clustering, assign_to_centroids
from vendiscope.core.metrics.algorithms import vendi

__all__ = ["DEFAULT_THRESHOLD", "RULES", "Decision", "PoolState", "decide", "marginal_gains"]

RULES = ("sparse-cluster", "gain", "none")
"""The filter rules, in the order the CLI lists them."""

DEFAULT_THRESHOLD: float | None = None
"""Default ``threshold`` of the ``gain`` rule: ``None``, the running median (module docstring)."""

_EPS64 = float(np.finfo(np.float64).eps)
_STEP = 0.4  # trapezoid step in log u for the rank-one entropy update (error ~ exp(-2 pi^2 / h))
_TOP_E_FOLDS = 18.0  # the grid reaches e^18 times the largest eigenvalue


@dataclass(frozen=True)
class Decision:
    """What the filter decided for one candidate.

    Attributes
    ----------
    accepted
        Whether the candidate joins the pool.
    reason
        A short human-readable account, e.g. ``"sparse cluster 12 (4 < median 7)"``.
    cluster
        The nearest pool centroid (cosine), always computed.
    gain
        The marginal G-Vendi gain ``VS(pool + accepted + x) - VS(pool + accepted)``, when
        the rule computed it (the ``gain`` rule); ``None`` otherwise.
    """

    accepted: bool
    reason: str
    cluster: int | None
    gain: float | None


def _unit(rows: object, name: str, d: int | None = None) -> np.ndarray:
    """``rows`` as a float64 matrix of unit rows; ValueError naming ``name`` when unusable."""
    matrix = np.asarray(rows)
    if matrix.ndim == 1 and d is not None and matrix.shape[0] == d:
        matrix = matrix[None, :]
    if matrix.ndim != 2 or matrix.shape[1] == 0:
        raise ValueError(
            f"{name} must be a 2-D array (rows x dimensions); got shape {matrix.shape}"
        )
    if matrix.dtype.kind not in "fiu" or matrix.dtype == np.bool_:
        raise ValueError(f"{name} must hold real numbers; got dtype {matrix.dtype}")
    if d is not None and matrix.shape[1] != d:
        raise ValueError(f"{name} have {matrix.shape[1]} dimensions; the pool has {d}")
    wide = np.asarray(matrix, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        norms = np.sqrt(np.einsum("ij,ij->i", wide, wide))
    bad = np.flatnonzero(~np.isfinite(norms))
    if bad.size:
        raise ValueError(f"{name}: row {int(bad[0])} has a NaN or infinite value")
    zero = np.flatnonzero(norms <= 0)
    if zero.size:
        raise ValueError(f"{name}: row {int(zero[0])} is all zeros and has no direction")
    return wide / norms[:, None]


@dataclass
class _Spectrum:
    """The eigen-decomposition of the state's Gram: what the rank-one gains need."""

    values: np.ndarray  # significant eigenvalues s_j of X^T X (ascending)
    basis: np.ndarray  # d x r orthonormal eigenvectors
    trace: float  # sum of the significant eigenvalues
    plogp: float  # sum s_j log s_j
    nodes: np.ndarray  # quadrature nodes u_p
    weights: np.ndarray  # trapezoid weights in log u, times u_p


class PoolState:
    """The pool plus the rows accepted so far, as the filter needs them.

    Holds ``X^T X`` of the unit rows (float64, ``d x d``), the row count, the spherical
    k-means centroids (unit, float32), the cluster sizes (which grow as rows are accepted)
    and the median cluster size of the pool the clustering was fit on (fixed: a cluster is
    sparse while its size, accepted rows included, is below it). While there are at most
    ``d`` rows the unit rows themselves are kept too, so the spectrum comes from the
    ``n x n`` kernel (the primal form), which is cheaper than the ``d x d`` one.
    """

    def __init__(
        self,
        xtx: np.ndarray,
        n: int,
        centroids: np.ndarray,
        sizes: np.ndarray,
        median: float,
        rows: np.ndarray | None = None,
    ) -> None:
        self._xtx = xtx
        self._n = int(n)
        self.centroids = centroids
        self.sizes = sizes
        self.median = float(median)
        self._rows = rows
        self._spectrum: _Spectrum | None = None
        self.seen_gains: list[float] = []
        """The gains of every candidate the ``gain`` rule judged against this state."""

    # ------------------------------------------------------------------ construction
    @classmethod
    def build(cls, rows: np.ndarray, clustering: Clustering) -> PoolState:
        """The state of a pool whose rows ``rows`` the ``clustering`` was fit on.

        ``clustering.sizes`` must count ``rows`` (one label per row); its centroids are
        renormalised. Neither input is modified.
        """
        if not isinstance(clustering, Clustering):
            raise ValueError(f"clustering must be a Clustering; got {type(clustering).__name__}")
        unit = _unit(rows, "rows")
        n, d = unit.shape
        if n == 0:
            raise ValueError("rows is empty; the pool needs at least one row")
        centroids = np.asarray(clustering.centroids)
        if centroids.ndim != 2 or centroids.shape[1] != d:
            raise ValueError(
                f"clustering: centroids have shape {centroids.shape}; rows have {d} dimensions"
            )
        sizes = np.asarray(clustering.sizes, dtype=np.int64).copy()
        if sizes.shape != (centroids.shape[0],):
            raise ValueError(f"clustering: {len(sizes)} sizes for {centroids.shape[0]} centroids")
        if int(sizes.sum()) != n:
            raise ValueError(
                f"clustering: its sizes count {int(sizes.sum())} rows but rows has {n}; "
                "build the state from the rows the clustering was fit on"
            )
        unit_centroids = _unit(centroids, "clustering.centroids").astype(np.float32)
        return cls(
            unit.T @ unit, n, unit_centroids, sizes, float(np.median(sizes)),
            unit.copy() if n <= d else None,
        )  # fmt: skip

    def copy(self) -> PoolState:
        """An independent copy (accepting rows into it leaves this state alone)."""
        twin = PoolState(
            self._xtx.copy(), self._n, self.centroids, self.sizes.copy(), self.median,
            None if self._rows is None else self._rows.copy(),
        )  # fmt: skip
        twin._spectrum = self._spectrum
        twin.seen_gains = list(self.seen_gains)
        return twin

    # ------------------------------------------------------------------ reading
    @property
    def n(self) -> int:
        """Rows in the pool, accepted rows included."""
        return self._n

    @property
    def d(self) -> int:
        return self._xtx.shape[0]

    @property
    def n_clusters(self) -> int:
        return len(self.sizes)

    def vendi(self) -> float:
        """The Vendi score (q = 1) of the pool and the accepted rows."""
        spec = self._spec()
        return math.exp(_entropy(spec.plogp, spec.trace, self._n))

    def vendi_with(self, rows: np.ndarray) -> float:
        """The Vendi score (q = 1) if ``rows`` joined too; the state is not changed."""
        unit = _unit(rows, "rows", self.d)
        return vendi.vendi_from_gram(self._xtx + unit.T @ unit, self._n + len(unit))

    def assign(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Nearest centroid of each row by cosine: ``(labels int64, cosine float32)``."""
        unit = _unit(rows, "rows", self.d)
        return assign_to_centroids(unit.astype(np.float32), self.centroids)

    def gains(self, rows: np.ndarray) -> np.ndarray:
        """Each row's own marginal gain ``VS(state + row) - VS(state)`` (q = 1), float64.

        Every row is judged alone against the current state (not against the others).
        Exact up to about 1e-10 relative, from one eigendecomposition of the state (cached
        until a row is added) and a rank-one update per row, see :func:`marginal_gains`.
        """
        unit = _unit(rows, "rows", self.d)
        return marginal_gains(self._spec(), self._n, unit)

    # ------------------------------------------------------------------ changing
    def add(self, rows: np.ndarray, labels: np.ndarray) -> None:
        """Accepted ``rows`` join the pool: the Gram, the row count and the cluster sizes."""
        unit = _unit(rows, "rows", self.d)
        labels = np.asarray(labels)
        if labels.shape != (len(unit),) or labels.dtype.kind not in "iu":
            raise ValueError(
                f"labels must be one whole-number cluster per row ({len(unit)}); "
                f"got shape {labels.shape}, dtype {labels.dtype}"
            )
        if len(labels) and (labels.min() < 0 or labels.max() >= self.n_clusters):
            raise ValueError(f"labels must lie between 0 and {self.n_clusters - 1}")
        self._xtx += unit.T @ unit
        self._n += len(unit)
        np.add.at(self.sizes, labels.astype(np.int64), 1)
        if self._rows is not None:
            self._rows = np.vstack([self._rows, unit]) if self._n <= self.d else None
        if len(unit):
            self._spectrum = None

    # ------------------------------------------------------------------ internals
    def _spec(self) -> _Spectrum:
        if self._spectrum is None:
            if self._rows is not None:
                kernel_values, kernel_vectors = np.linalg.eigh(self._rows @ self._rows.T)
                keep = kernel_values > kernel_values.max() * len(kernel_values) * _EPS64
                values = kernel_values[keep]
                basis = self._rows.T @ (kernel_vectors[:, keep] / np.sqrt(values))
            else:
                all_values, all_vectors = np.linalg.eigh(self._xtx)
                keep = all_values > all_values.max() * len(all_values) * _EPS64
                values, basis = all_values[keep], all_vectors[:, keep]
            self._spectrum = _spectrum(values, basis)
        return self._spectrum


def _spectrum(values: np.ndarray, basis: np.ndarray) -> _Spectrum:
    top = float(values.max())
    low = math.log(top * 1e-14)
    high = math.log(top) + _TOP_E_FOLDS
    count = math.ceil((high - low) / _STEP) + 1
    grid = np.linspace(low, high, count)
    nodes = np.exp(grid)
    weights = np.full(count, grid[1] - grid[0])
    weights[[0, -1]] /= 2.0
    return _Spectrum(
        values, basis, float(values.sum()), float(np.dot(values, np.log(values))), nodes,
        weights * nodes,
    )  # fmt: skip


def _entropy(plogp: float, trace: float, n: int) -> float:
    """Shannon entropy of the eigenvalues ``s / n`` (``sum s = trace``, ``sum s log s = plogp``)."""
    return (trace * math.log(n) - plogp) / n


def marginal_gains(spectrum: _Spectrum, n: int, unit: np.ndarray) -> np.ndarray:
    """``VS_1(G + x x^T, n + 1) - VS_1(G, n)`` for each unit row ``x`` of ``unit``.

    With ``G = U diag(s) U^T`` and ``z = U^T x``, only ``sum t log t`` over the eigenvalues
    ``t`` of ``G + x x^T`` is needed. For any ``c > 0``,
    ``t log t = t log c + int_0^inf (t / (c + u) - t / (t + u)) du``, and Sherman-Morrison
    gives ``tr (G + x x^T + u)^-1 - tr (G + u)^-1 = -gamma / (1 + alpha)`` with
    ``alpha = sum_j z_j^2 / (s_j + u)`` and ``gamma = sum_j z_j^2 / (s_j + u)^2`` (the part
    of ``x`` outside the span of ``U`` counts with ``s = 0``). So the change is::

        w log c + int_0^inf (w / (c + u) - u gamma / (1 + alpha)) du,   w = |x|^2 = 1

    ``c = 2 x^T G x / w + w`` makes the integrand decay as ``u^-3``. The integral is taken
    by the trapezoid rule in ``log u`` from ``1e-14`` to ``e^18`` times the top eigenvalue;
    the integrand is analytic in ``|Im log u| < pi`` (its poles are at ``u = -s_j`` and
    ``u = -t_j``), so the rule converges geometrically. Cost ``O(d r)`` per row for the
    projection plus ``O(r P)`` for ``P ~ 120`` nodes, instead of an ``O(d^3)``
    eigendecomposition per row.
    """
    z = unit @ spectrum.basis
    z2 = z * z
    rest = np.clip(1.0 - z2.sum(axis=1), 0.0, None)  # the part outside the span
    sigma = z2 @ spectrum.values
    c = 2.0 * sigma + 1.0
    nodes = spectrum.nodes
    inverse = 1.0 / (spectrum.values[:, None] + nodes[None, :])
    alpha = z2 @ inverse + rest[:, None] / nodes[None, :]
    gamma = z2 @ (inverse * inverse) + rest[:, None] / (nodes * nodes)[None, :]
    integrand = 1.0 / (c[:, None] + nodes[None, :]) - nodes[None, :] * gamma / (1.0 + alpha)
    change = np.log(c) + integrand @ spectrum.weights
    before = _entropy(spectrum.plogp, spectrum.trace, n)
    after = ((spectrum.trace + 1.0) * math.log(n + 1) - (spectrum.plogp + change)) / (n + 1)
    return math.exp(before) * np.expm1(after - before)


def _check_rule(rule: object) -> str:
    if rule not in RULES:
        raise ValueError(f"rule must be one of {', '.join(RULES)}; got {rule!r}")
    return str(rule)


def decide(
    rule: str,
    state: PoolState,
    candidates: np.ndarray,
    *,
    threshold: float | None = DEFAULT_THRESHOLD,
) -> list[Decision]:
    """Decide each candidate in order, adding every accepted one to ``state`` at once.

    So within a batch a second copy of a gap is judged against the first. Rules:

    ``"sparse-cluster"``
        Accept when the nearest centroid's cluster, counting the rows accepted so far, is
        smaller than the pool's median cluster size.
    ``"gain"``
        Accept when the marginal G-Vendi gain on the pool plus the rows accepted so far is
        at least ``threshold`` (G-Vendi units); with ``threshold=None`` (the default), at
        least the median gain of the candidates judged against ``state`` before it (its
        ``seen_gains``) and never below 0.
    ``"none"``
        Accept everything.
    """
    rule = _check_rule(rule)
    if not isinstance(state, PoolState):
        raise ValueError(f"state must be a PoolState; got {type(state).__name__}")
    limit = None
    if threshold is not None:
        try:
            limit = float(threshold)
        except (TypeError, ValueError):
            raise ValueError(f"threshold must be a number or None; got {threshold!r}") from None
        if math.isnan(limit):
            raise ValueError("threshold must be a number or None; got NaN")
    matrix = np.asarray(candidates)
    if matrix.ndim == 2 and matrix.shape[0] == 0:
        return []
    unit = _unit(matrix, "candidates", state.d)
    labels, _ = state.assign(unit)
    decisions: list[Decision] = []
    if rule == "gain":
        pending = state.gains(unit)
        for i in range(len(unit)):
            if i and decisions[-1].accepted:
                pending[i:] = state.gains(unit[i:])
            gain = float(pending[i])
            label = int(labels[i])
            bar, note = limit, ""
            if bar is None:
                seen = state.seen_gains
                bar = max(0.0, float(np.median(seen))) if seen else 0.0
                note = " (running median)"
            state.seen_gains.append(gain)
            if gain >= bar:
                reason = f"G-Vendi gain {gain:.3g} >= {bar:.3g}{note}"
                decisions.append(Decision(True, reason, label, gain))
                state.add(unit[i : i + 1], labels[i : i + 1])
            else:
                reason = f"gain {gain:.3g} below {bar:.3g}{note}"
                decisions.append(Decision(False, reason, label, gain))
        return decisions
    for i in range(len(unit)):
        label = int(labels[i])
        if rule == "none":
            decisions.append(Decision(True, "no filter", label, None))
        else:
            size = int(state.sizes[label])
            median = f"{state.median:g}"
            if size < state.median:
                decisions.append(
                    Decision(
                        True, f"sparse cluster {label} ({size} < median {median})", label, None
                    )
                )
            else:
                decisions.append(
                    Decision(
                        False, f"dense cluster {label} ({size} >= median {median})", label, None
                    )
                )
                continue
        state.add(unit[i : i + 1], labels[i : i + 1])
    return decisions
