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

This module builds indexes; the pieces live beside it and are re-exported here:
:mod:`.vector_index` (the built index and its searches), :mod:`.ivf` (IVF lists and
training), :mod:`.calibration` (``nprobe``/``efSearch`` tuning for recall), :mod:`.exact`
(exact top-k, normalisation) and :mod:`.faiss_setup` (lazy import, threads, BLAS blocks).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from vendiscope.core.base.jobs import CancelToken, NullProgress, Progress
from vendiscope.core.neighbors.algorithms.calibration import (
    CALIBRATION_K,
    CALIBRATION_MARGIN,
    CALIBRATION_QUERIES,
    HNSW_MAX_EF_SEARCH,
    IVF_MAX_PROBE_FRACTION,
    _Calibration,
)
from vendiscope.core.neighbors.algorithms.exact import TopK, _prepared, normalized
from vendiscope.core.neighbors.algorithms.faiss_setup import (
    BLAS_DATABASE_BLOCK,
    BLAS_QUERY_BLOCK,
    FAISS_DEFAULT_BLAS_BLOCKS,
    _faiss,
    gpu_count,
)
from vendiscope.core.neighbors.algorithms.ivf import (
    IVF_LISTS_PER_SQRT_N,
    IVF_TRAIN_ITERATIONS,
    IVF_TRAIN_POINTS_PER_LIST,
    _new_ivf,
    ivf_build_cost,
    ivf_lists,
)
from vendiscope.core.neighbors.algorithms.vector_index import (
    GPU_MAX_K,
    RANGE_FIRST_K,
    VectorIndex,
    VectorIndexError,
)

if TYPE_CHECKING:
    import numpy as np

# The public names, re-exported from the modules that define them so callers keep one import.
__all__ = [
    "AUTO_THRESHOLD",
    "BLAS_DATABASE_BLOCK",
    "BLAS_QUERY_BLOCK",
    "BUILD_CHUNK_ROWS",
    "CALIBRATION_K",
    "CALIBRATION_MARGIN",
    "CALIBRATION_QUERIES",
    "DEVICES",
    "FAISS_DEFAULT_BLAS_BLOCKS",
    "GPU_MAX_K",
    "HNSW_EF_CONSTRUCTION",
    "HNSW_M",
    "HNSW_MAX_EF_SEARCH",
    "IVF_LISTS_PER_SQRT_N",
    "IVF_MAX_PROBE_FRACTION",
    "IVF_TRAIN_ITERATIONS",
    "IVF_TRAIN_POINTS_PER_LIST",
    "KINDS",
    "METRICS",
    "RANGE_FIRST_K",
    "TARGET_RECALL",
    "TopK",
    "VectorIndex",
    "VectorIndexError",
    "build_index",
    "build_index_from_chunks",
    "gpu_count",
    "ivf_build_cost",
    "ivf_lists",
    "normalized",
    "resolve_kind",
]

KINDS = ("auto", "flat", "ivf", "hnsw")
METRICS = ("cosine", "inner_product")
DEVICES = ("auto", "cpu", "gpu")

# Below this many rows "auto" builds an exact index. Measured on 2 cores, 384 dimensions,
# searching every row of a set against itself (k=21, what near-duplicate detection does):
# 10,000 rows 1.7 s exact vs 1.8 s IVF (build included), 20,000 rows 8.1 s vs 6.6 s,
# 50,000 rows 63 s vs 17 s. Exact search costs n^2, IVF about n^1.5.
AUTO_THRESHOLD = 20_000
TARGET_RECALL = 0.95
HNSW_M = 32
HNSW_EF_CONSTRUCTION = 40
BUILD_CHUNK_ROWS = 65_536


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
