"""IVF indexes: how many lists, what building one costs, and training it on a sample.

Pure numpy/faiss, no project. Its ``nprobe`` is calibrated by
:mod:`vendiscope.core.neighbors.algorithms.calibration`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from vendiscope.core.base.jobs import Progress
from vendiscope.core.neighbors.algorithms.calibration import CALIBRATION_QUERIES
from vendiscope.core.neighbors.algorithms.exact import _prepared

if TYPE_CHECKING:
    import numpy as np

IVF_LISTS_PER_SQRT_N = 4
IVF_TRAIN_POINTS_PER_LIST = 40  # faiss warns below 39 points per centroid
IVF_TRAIN_ITERATIONS = 10


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
