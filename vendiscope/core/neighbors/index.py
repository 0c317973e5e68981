"""Nearest-neighbour indexes over a matrix of vectors (FAISS). Pure numpy/faiss, no project.

>>> index = build_index(vectors)                      # doctest: +SKIP
>>> similarities, positions = index.search(queries, k=10)

Positions are row numbers of the matrix the index was built from (for a vector set: the
record's ``seq``). Similarities are cosine similarities (``metric="cosine"``, the default: a
normalised copy of the vectors is indexed, the caller's array is never modified) or raw
inner products (``metric="inner_product"``).

Index kinds, chosen by measurement on 1,000,000 x 384 vectors (docs/benchmarks.md):

- ``"flat"``: exact search (``IndexFlatIP``). Building it is a copy.
- ``"ivf"``: ``IndexIVFFlat`` with ``nlist ~ 4 * sqrt(n)`` lists trained on a sample. Its
  ``nprobe`` is **calibrated** at build time: a sample of the indexed rows is searched
  exactly and approximately, and the smallest ``nprobe`` whose recall@10 reaches the target
  (0.95, plus a small margin) is kept. Data without the cluster structure IVF needs (e.g.
  isotropic random vectors) cannot reach it; the index then falls back to exact search and
  says so in :attr:`VectorIndex.params`.
- ``"hnsw"``: ``IndexHNSWFlat`` (M=32, efConstruction=40), ``efSearch`` calibrated the same
  way. At 1,000,000 x 384 it built no faster than IVF on clustered data (173-448 s against
  158-195 s on two cores), ~4x slower on random data, and its recall@10 stalled at
  0.81-0.92 on clustered data where IVF reached 0.976 at ``nprobe`` 4, so ``"auto"`` never
  picks it.
- ``"auto"``: flat below :data:`AUTO_THRESHOLD` rows; above it IVF, unless the caller says
  it will search only a few queries (``n_queries``): building an IVF index costs about as
  much as :func:`ivf_build_cost` exact queries, so fewer queries than that go exact.

With ``faiss-gpu-cu12`` installed (the ``gpu`` extra) and a GPU visible, flat and IVF
indexes are built and searched on the GPU(s) (``device="auto"`` or ``"gpu"``).
"""

from __future__ import annotations

import math
import os
import threading
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from vendiscope.core.base.errors import VendiscopeError
from vendiscope.core.base.jobs import CancelToken, NullProgress, Progress

if TYPE_CHECKING:
    import numpy as np

KINDS = ("auto", "flat", "ivf", "hnsw")
METRICS = ("cosine", "inner_product")
DEVICES = ("auto", "cpu", "gpu")

# Below this many rows "auto" builds an exact index. Measured on 2 cores, 384 dimensions,
# searching every row of a set against itself (k=21, what near-duplicate detection does):
# 10,000 rows 1.7 s exact vs 1.8 s IVF (build included), 20,000 rows 8.1 s vs 6.6 s,
# 50,000 rows 63 s vs 17 s. Exact search costs n^2, IVF about n^1.5.
AUTO_THRESHOLD = 20_000
TARGET_RECALL = 0.95
CALIBRATION_QUERIES = 256
CALIBRATION_K = 10
CALIBRATION_MARGIN = 0.02
IVF_LISTS_PER_SQRT_N = 4
IVF_TRAIN_POINTS_PER_LIST = 40  # faiss warns below 39 points per centroid
IVF_TRAIN_ITERATIONS = 10
IVF_MAX_PROBE_FRACTION = 0.25  # more than this and exact search is as fast: fall back
HNSW_M = 32
HNSW_EF_CONSTRUCTION = 40
HNSW_MAX_EF_SEARCH = 1024
BUILD_CHUNK_ROWS = 65_536
FAISS_DEFAULT_BLAS_BLOCKS = (4096, 1024)
BLAS_QUERY_BLOCK = 4096
BLAS_DATABASE_BLOCK = 16_384
# Emulated range search (GPU and HNSW indexes have none): first k, grown 4x when needed.
RANGE_FIRST_K = 64
GPU_MAX_K = 2048  # FAISS GPU indexes return at most 2048 neighbours and probe at most 2048 lists

_threads_lock = threading.Lock()
_threads_configured = False


class VectorIndexError(VendiscopeError):
    """An index cannot be built or searched as asked (wrong dimension, kind, device...)."""


def _faiss() -> Any:
    """Import faiss once, limiting its OpenMP threads to the CPUs this process may use."""
    global _threads_configured
    import faiss

    if not _threads_configured:
        with _threads_lock:
            if not _threads_configured:
                try:
                    available = len(os.sched_getaffinity(0))
                except AttributeError:  # pragma: no cover - macOS, Windows
                    available = os.cpu_count() or 1
                if faiss.omp_get_max_threads() > available:
                    faiss.omp_set_num_threads(available)
                # Exact search (and k-means assignment) multiplies blocks of queries by blocks
                # of rows with BLAS. FAISS's default blocks (4096 queries x 1024 rows) ran
                # exact search 2x slower here than 4096 x 16384 (a 256 MiB buffer per call),
                # and IVF training 10-20% slower. Kept if someone changed them.
                cvar = faiss.cvar
                blocks = (
                    cvar.distance_compute_blas_query_bs,
                    cvar.distance_compute_blas_database_bs,
                )
                if blocks == FAISS_DEFAULT_BLAS_BLOCKS:
                    cvar.distance_compute_blas_query_bs = BLAS_QUERY_BLOCK
                    cvar.distance_compute_blas_database_bs = BLAS_DATABASE_BLOCK
                _threads_configured = True
    return faiss


def gpu_count() -> int:
    """GPUs FAISS can use (0 with ``faiss-cpu``)."""
    faiss = _faiss()
    get = getattr(faiss, "get_num_gpus", None)
    return int(get()) if get is not None else 0


# ----------------------------------------------------------------------------- exact top-k
class TopK:
    """The ``k`` largest similarities (and their positions) seen so far, per query.

    Feed it blocks of a similarity matrix with :meth:`update`; it keeps memory at
    ``queries x k`` whatever the number of rows scanned.
    """

    def __init__(self, n_queries: int, k: int) -> None:
        import numpy as np

        self.k = k
        self.similarities = np.full((n_queries, 0), -np.inf, dtype=np.float32)
        self.positions = np.full((n_queries, 0), -1, dtype=np.int64)

    def update(self, similarities: np.ndarray, first_position: int) -> None:
        """Merge a ``queries x m`` block whose column ``j`` is row ``first_position + j``."""
        import numpy as np

        n_queries, m = similarities.shape
        block_positions = np.broadcast_to(
            np.arange(first_position, first_position + m, dtype=np.int64), (n_queries, m)
        )
        sims = np.concatenate([self.similarities, similarities.astype(np.float32)], axis=1)
        positions = np.concatenate([self.positions, block_positions], axis=1)
        if sims.shape[1] > self.k:
            keep = np.argpartition(-sims, self.k - 1, axis=1)[:, : self.k]
            sims = np.take_along_axis(sims, keep, axis=1)
            positions = np.take_along_axis(positions, keep, axis=1)
        self.similarities, self.positions = sims, positions

    def result(self) -> tuple[np.ndarray, np.ndarray]:
        """``(similarities, positions)``, each row sorted by decreasing similarity
        (ties by increasing position)."""
        import numpy as np

        order = np.lexsort((self.positions, -self.similarities), axis=1)
        return (
            np.take_along_axis(self.similarities, order, axis=1),
            np.take_along_axis(self.positions, order, axis=1),
        )


def normalized(vectors: np.ndarray) -> np.ndarray:
    """A float32 copy with unit rows (zero rows stay zero)."""
    import numpy as np

    out = np.array(vectors, dtype=np.float32, copy=True, order="C")
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    out /= norms
    return out


def _prepared(vectors: np.ndarray, metric: str) -> np.ndarray:
    import numpy as np

    if metric == "cosine":
        return normalized(vectors)
    return np.ascontiguousarray(vectors, dtype=np.float32)


# ----------------------------------------------------------------------------- the index
class VectorIndex:
    """A built index: search it with :meth:`search` and :meth:`range_search`.

    ``params`` holds what was chosen at build time (lists, ``nprobe``/``efSearch``, the
    recall@10 measured on a calibration sample, build seconds, and any fallback).
    Searching is thread-safe; the index is never modified after it is built.
    """

    def __init__(
        self,
        index: Any,
        *,
        kind: str,
        metric: str,
        dim: int,
        device: str,
        params: dict[str, Any],
        keep: tuple[Any, ...] = (),
    ) -> None:
        self._index = index
        self._keep = keep  # objects the faiss index points to (quantizer, CPU original)
        self.kind = kind
        self.metric = metric
        self.dim = dim
        self.device = device
        self.params = params

    @property
    def ntotal(self) -> int:
        return int(self._index.ntotal)

    def __repr__(self) -> str:
        return (
            f"VectorIndex(kind={self.kind!r}, metric={self.metric!r}, dim={self.dim}, "
            f"ntotal={self.ntotal}, device={self.device!r})"
        )

    def describe(self) -> dict[str, Any]:
        """A JSON-serialisable description, for runs and reports."""
        return {
            "kind": self.kind,
            "metric": self.metric,
            "dim": self.dim,
            "ntotal": self.ntotal,
            "device": self.device,
            **self.params,
        }

    def prepare_queries(self, queries: np.ndarray) -> np.ndarray:
        """Queries as a C-contiguous float32 ``(n, dim)`` array (normalised for cosine)."""
        import numpy as np

        q = np.asarray(queries)
        if q.ndim == 1:
            q = q.reshape(1, -1)
        if q.ndim != 2:
            raise VectorIndexError(
                f"queries must be a vector or a matrix of vectors; got an array of shape {q.shape}"
            )
        if q.shape[1] != self.dim:
            raise VectorIndexError(
                f"queries have dimension {q.shape[1]}, but the index holds {self.dim}-dimensional "
                "vectors; use vectors from the same model (or the same vector set kind)"
            )
        if not np.issubdtype(q.dtype, np.number):
            raise VectorIndexError(f"queries must be numeric; got dtype {q.dtype}")
        return _prepared(q, self.metric)

    def search(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """The ``k`` most similar rows of each query: ``(similarities, positions)``.

        Both arrays are ``(n_queries, min(k, ntotal))``, rows sorted by decreasing
        similarity. An approximate index may find fewer than ``k`` rows for a query: the
        missing slots (at the end of the row) hold position ``-1`` and similarity ``-inf``.
        """
        import numpy as np

        if k < 1:
            raise VectorIndexError(f"k must be at least 1, got {k}")
        if self.device == "gpu" and k > GPU_MAX_K:
            raise VectorIndexError(
                f"k={k}: a GPU index returns at most {GPU_MAX_K} neighbours per query"
            )
        q = self.prepare_queries(queries)
        k = min(k, self.ntotal)
        if k == 0 or len(q) == 0:
            return (
                np.empty((len(q), k), dtype=np.float32),
                np.empty((len(q), k), dtype=np.int64),
            )
        similarities, positions = self._index.search(q, k)
        similarities = np.asarray(similarities, dtype=np.float32)
        positions = np.asarray(positions, dtype=np.int64)
        similarities[positions < 0] = -np.inf
        return similarities, positions

    def range_search(
        self, queries: np.ndarray, threshold: float
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        """Every row with similarity ``>= threshold`` to each query.

        One ``(similarities, positions)`` pair per query, sorted by decreasing similarity.
        Flat and IVF indexes on the CPU use FAISS's range search; GPU and HNSW indexes
        (which have none) emulate it with k-NN searches of growing ``k``.
        """
        import numpy as np

        q = self.prepare_queries(queries)
        if len(q) == 0 or self.ntotal == 0:
            return [
                (np.empty(0, dtype=np.float32), np.empty(0, dtype=np.int64)) for _ in range(len(q))
            ]
        if self.device == "cpu" and self.kind in ("flat", "ivf"):
            # faiss keeps similarities strictly above the radius: step just below it.
            radius = float(np.nextafter(np.float32(threshold), np.float32(-np.inf)))
            lims, sims, ids = self._index.range_search(q, radius)
            out = []
            for i in range(len(q)):
                s, p = sims[lims[i] : lims[i + 1]], ids[lims[i] : lims[i + 1]].astype(np.int64)
                order = np.lexsort((p, -s))
                out.append((s[order].astype(np.float32), p[order]))
            return out
        return self._range_by_knn(q, threshold)

    def _range_by_knn(self, q: np.ndarray, threshold: float) -> list[tuple[np.ndarray, np.ndarray]]:
        """Range search as k-NN searches, ``k`` growing 4x for queries whose k-th hit is still
        within the threshold (on a GPU, up to :data:`GPU_MAX_K` hits per query)."""
        import numpy as np

        limit = self.ntotal if self.device == "cpu" else min(self.ntotal, GPU_MAX_K)
        results: list[tuple[np.ndarray, np.ndarray] | None] = [None] * len(q)
        pending = np.arange(len(q))
        k = min(RANGE_FIRST_K, limit)
        while len(pending):
            sims, ids = self._index.search(q[pending], k)
            more = (sims[:, -1] >= threshold) & (k < limit)
            for row, query in enumerate(pending):
                if not more[row]:
                    keep = (sims[row] >= threshold) & (ids[row] >= 0)
                    results[query] = (sims[row][keep].astype(np.float32), ids[row][keep])
            pending = pending[more]
            k = min(k * 4, limit)
        return [r for r in results if r is not None]


# ----------------------------------------------------------------------------- building
def resolve_kind(kind: str, n_rows: int, n_queries: int | None = None) -> str:
    """The concrete kind ``"auto"`` stands for at ``n_rows`` rows (and ``n_queries`` queries,
    when the caller knows how many it will search)."""
    if kind not in KINDS:
        raise VectorIndexError(f"unknown index kind '{kind}' (kinds: {', '.join(KINDS)})")
    if kind != "auto":
        return kind
    if n_rows < AUTO_THRESHOLD:
        return "flat"
    if n_queries is not None and n_queries < ivf_build_cost(n_rows):
        return "flat"
    return "ivf"


def ivf_build_cost(n_rows: int) -> int:
    """Building an IVF index over ``n_rows`` rows, in exact queries of the same cost.

    Training runs ``10`` k-means iterations of ``40 * nlist`` points against ``nlist``
    centroids, adding assigns every row to a list, calibration searches 256 rows exactly:
    ``400 nlist^2 / n + nlist + 256`` row scans. At 1,000,000 rows that is ~10,700 queries;
    measured: a 158 s build against 15.5 ms per exact query (~10,200).
    """
    nlist = ivf_lists(n_rows)
    train_rows = min(n_rows, IVF_TRAIN_POINTS_PER_LIST * nlist)
    train = train_rows * IVF_TRAIN_ITERATIONS * nlist / max(n_rows, 1)
    return int(train + nlist + CALIBRATION_QUERIES)


def ivf_lists(n_rows: int) -> int:
    """``nlist`` for ``n_rows``: ~4 sqrt(n), with at least 39 training points per list."""
    return max(1, min(round(IVF_LISTS_PER_SQRT_N * math.sqrt(n_rows)), n_rows // 39))


def build_index(
    vectors: np.ndarray,
    *,
    kind: str = "auto",
    metric: str = "cosine",
    device: str = "auto",
    recall: float = TARGET_RECALL,
    n_queries: int | None = None,
    seed: int = 0,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> VectorIndex:
    """Index the rows of ``vectors`` (an ``(n, dim)`` array, any float dtype; not modified).

    ``kind``: ``"auto"``, ``"flat"``, ``"ivf"`` or ``"hnsw"`` (see the module docstring);
    ``recall``: the recall@10 an approximate index is calibrated to reach;
    ``n_queries``: how many queries the caller will search, if known (lets ``"auto"`` stay
    exact when an IVF index would not pay for its build);
    ``device``: ``"auto"`` (a GPU when FAISS sees one), ``"cpu"`` or ``"gpu"``.
    """
    import numpy as np

    progress = progress or NullProgress()
    cancel = cancel or CancelToken()
    if metric not in METRICS:
        raise VectorIndexError(f"unknown metric '{metric}' (metrics: {', '.join(METRICS)})")
    if device not in DEVICES:
        raise VectorIndexError(f"unknown device '{device}' (devices: {', '.join(DEVICES)})")
    matrix = np.asarray(vectors)
    if matrix.ndim != 2 or not np.issubdtype(matrix.dtype, np.number):
        raise VectorIndexError(
            f"vectors must be a 2-D numeric array; got shape {matrix.shape}, dtype {matrix.dtype}"
        )
    n, dim = matrix.shape
    step = BUILD_CHUNK_ROWS
    return build_index_from_chunks(
        lambda: ((start, matrix[start : start + step]) for start in range(0, n, step)),
        n,
        dim,
        rows_at=lambda rows: matrix[rows],
        kind=kind,
        metric=metric,
        device=device,
        recall=recall,
        n_queries=n_queries,
        seed=seed,
        progress=progress,
        cancel=cancel,
    )


def build_index_from_chunks(
    chunks: Callable[[], Iterable[tuple[int, np.ndarray]]],
    n_rows: int,
    dim: int,
    *,
    rows_at: Callable[[np.ndarray], np.ndarray],
    kind: str = "auto",
    metric: str = "cosine",
    device: str = "auto",
    recall: float = TARGET_RECALL,
    n_queries: int | None = None,
    seed: int = 0,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> VectorIndex:
    """Index ``n_rows`` rows that arrive in chunks, never holding them all as one array.

    ``chunks()`` returns a fresh iterator of ``(first row, rows)`` in row order (it is called
    again if an approximate index falls back to exact search); ``rows_at(positions)`` returns
    the rows at sorted positions (the IVF training sample and the calibration queries). For a
    stored vector set these are :func:`~vendiscope.core.store.vectors.iter_chunks` and
    :func:`~vendiscope.core.store.vectors.read_rows`. Peak memory is the index itself (for
    flat and IVF indexes, the normalised rows as float32) plus one chunk, instead of the
    matrix, its normalised copy and the index. The result is the index :func:`build_index`
    builds from the whole matrix.
    """
    progress = progress or NullProgress()
    cancel = cancel or CancelToken()
    if metric not in METRICS:
        raise VectorIndexError(f"unknown metric '{metric}' (metrics: {', '.join(METRICS)})")
    if device not in DEVICES:
        raise VectorIndexError(f"unknown device '{device}' (devices: {', '.join(DEVICES)})")
    n = n_rows
    if dim == 0:
        raise VectorIndexError("vectors have dimension 0")
    concrete = resolve_kind(kind, n, n_queries)
    faiss = _faiss()
    gpus = gpu_count()
    if device == "gpu" and gpus == 0:
        raise VectorIndexError(
            "device='gpu' was asked for, but FAISS sees no GPU; install the GPU build "
            "(pip install 'vendiscope[gpu]', i.e. faiss-gpu-cu12) or use device='cpu'"
        )
    on_gpu = device != "cpu" and gpus > 0 and concrete != "hnsw"
    started = time.perf_counter()
    params: dict[str, Any] = {"requested_kind": kind}
    if concrete != "flat" and n == 0:
        concrete, params["fallback"] = "flat", "no rows to train on; using exact search"

    calibration = None
    if concrete != "flat":
        calibration = _Calibration(n, rows_at, metric, seed)

    if concrete == "flat":
        index, keep = _new_flat(faiss, dim, on_gpu)
    elif concrete == "ivf":
        index, keep = _new_ivf(faiss, n, dim, rows_at, metric, on_gpu, seed, params, progress)
    else:
        index = faiss.IndexHNSWFlat(dim, HNSW_M, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = HNSW_EF_CONSTRUCTION
        params.update(m=HNSW_M, ef_construction=HNSW_EF_CONSTRUCTION)
        keep = ()
    _add_rows(index, n, chunks(), metric, concrete, progress, cancel, calibration)

    if calibration is not None:
        progress.start("calibrating the index", total=None, unit="steps")
        reached = calibration.tune(faiss, index, concrete, on_gpu, recall, params)
        progress.finish()
        if not reached:
            params["fallback"] = (
                f"{concrete} reached recall@{CALIBRATION_K} "
                f"{params['calibrated_recall']:.3f} < {recall} at its search limit; "
                "these vectors lack the structure an approximate index needs, so search is exact"
            )
            concrete = "flat"
            index, keep = _new_flat(faiss, dim, on_gpu)
            _add_rows(index, n, chunks(), metric, concrete, progress, cancel, None)
    params["build_seconds"] = round(time.perf_counter() - started, 3)
    return VectorIndex(
        index,
        kind=concrete,
        metric=metric,
        dim=dim,
        device="gpu" if on_gpu else "cpu",
        params=params,
        keep=keep,
    )


def _new_flat(faiss: Any, dim: int, on_gpu: bool) -> tuple[Any, tuple[Any, ...]]:
    index = faiss.IndexFlatIP(dim)
    if on_gpu:
        return faiss.index_cpu_to_all_gpus(index), (index,)
    return index, ()


def _new_ivf(
    faiss: Any,
    n: int,
    dim: int,
    rows_at: Callable[[np.ndarray], np.ndarray],
    metric: str,
    on_gpu: bool,
    seed: int,
    params: dict[str, Any],
    progress: Progress,
) -> tuple[Any, tuple[Any, ...]]:
    import numpy as np

    nlist = ivf_lists(n)
    quantizer = faiss.IndexFlatIP(dim)
    cpu_index = faiss.IndexIVFFlat(quantizer, dim, nlist, faiss.METRIC_INNER_PRODUCT)
    cpu_index.cp.seed = seed
    cpu_index.cp.niter = IVF_TRAIN_ITERATIONS
    index = faiss.index_cpu_to_all_gpus(cpu_index) if on_gpu else cpu_index
    n_train = min(n, IVF_TRAIN_POINTS_PER_LIST * nlist)
    rows = np.sort(np.random.default_rng(seed).choice(n, n_train, replace=False))
    progress.start(f"training the index ({nlist} lists on {n_train:,} rows)", total=None)
    index.train(_prepared(rows_at(rows), metric))
    progress.finish()
    params.update(nlist=nlist, train_rows=n_train)
    return index, (quantizer, cpu_index)


def _add_rows(
    index: Any,
    n: int,
    chunks: Iterable[tuple[int, np.ndarray]],
    metric: str,
    kind: str,
    progress: Progress,
    cancel: CancelToken,
    calibration: _Calibration | None,
) -> None:
    progress.start(f"building the {kind} index", total=n, unit="rows")
    added = 0
    for start, rows in chunks:
        cancel.raise_if_cancelled()
        if start != added:
            raise VectorIndexError(f"rows arrived out of order: row {start}, expected {added}")
        chunk = _prepared(rows, metric)
        index.add(chunk)
        if calibration is not None:
            calibration.scan(chunk, start)
        added += len(chunk)
        progress.update(added)
    if added != n:
        raise VectorIndexError(f"the chunks held {added} rows, expected {n}")
    progress.finish()


class _Calibration:
    """Exact neighbours of a sample of indexed rows, to tune the search-time parameter."""

    def __init__(
        self, n: int, rows_at: Callable[[np.ndarray], np.ndarray], metric: str, seed: int
    ) -> None:
        import numpy as np

        self.rows = np.sort(
            np.random.default_rng(seed + 1).choice(n, min(n, CALIBRATION_QUERIES), replace=False)
        )
        self.queries = _prepared(rows_at(self.rows), metric)
        self.k = min(CALIBRATION_K + 1, n)  # the row itself comes back too
        self.exact = TopK(len(self.rows), self.k)

    def scan(self, chunk: np.ndarray, start: int) -> None:
        self.exact.update(self.queries @ chunk.T, start)

    def recall(self, index: Any) -> float:
        _, exact = self.exact.result()
        _, found = index.search(self.queries, self.k)
        hits = total = 0
        for row, truth, got in zip(self.rows, exact, found, strict=True):
            want = {int(p) for p in truth if p != row}
            if len(want) > self.k - 1:  # the row itself was not among its exact neighbours
                want = {int(p) for p in truth[: self.k - 1]}
            hits += len(want & {int(p) for p in got if p != row})
            total += len(want)
        return hits / total if total else 1.0

    def tune(
        self,
        faiss: Any,
        index: Any,
        kind: str,
        on_gpu: bool,
        target: float,
        params: dict[str, Any],
    ) -> bool:
        """Set the smallest search parameter reaching ``target``; ``False`` when none does."""
        space = faiss.GpuParameterSpace() if on_gpu else faiss.ParameterSpace()
        if kind == "ivf":
            name, low, high = "nprobe", 1, max(1, int(params["nlist"] * IVF_MAX_PROBE_FRACTION))
            if params["nlist"] <= 4:
                high = params["nlist"]
            if on_gpu:
                high = min(high, GPU_MAX_K)
        else:
            name, low, high = "efSearch", 16, HNSW_MAX_EF_SEARCH
        measured: dict[int, float] = {}

        def recall_at(value: int) -> float:
            if value not in measured:
                space.set_index_parameter(index, name, value)
                measured[value] = self.recall(index)
            return measured[value]

        # Aim a little above the target: the sample's recall is an estimate, and queries that
        # are not indexed rows (another dataset, free text) come out slightly lower.
        goal = min(target + CALIBRATION_MARGIN, 0.999)
        # Double until the goal is reached, then bisect between the last two values.
        value, previous = low, None
        while recall_at(value) < goal and value < high:
            previous, value = value, min(value * 2, high)
        if recall_at(value) >= goal and previous is not None:
            lo, hi = previous, value
            while hi - lo > max(1, lo // 8):
                mid = (lo + hi) // 2
                lo, hi = (lo, mid) if recall_at(mid) >= goal else (mid, hi)
            value = hi
        reached = recall_at(value) >= target
        space.set_index_parameter(index, name, value)
        key = "nprobe" if kind == "ivf" else "ef_search"
        params[key] = value
        params["calibrated_recall"] = round(recall_at(value), 4)
        params["calibration_queries"] = len(self.rows)
        return reached
