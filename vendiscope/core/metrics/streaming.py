"""Vector sets larger than memory: metrics and indexes fed chunk by chunk from the store.

A vector set is stored in chunks (:mod:`vendiscope.core.store.vectors`); these functions read
them one at a time (:func:`~vendiscope.core.store.vectors.iter_chunks`) so the driver never
holds the whole ``n x d`` matrix:

- :func:`stream_vendi` — the Vendi score (any order ``q``, quality-weighted, per source) from
  ``X^T X`` accumulated over the chunks (the dual form of
  :mod:`vendiscope.core.metrics.algorithms.vendi`), and
  per-record leverage in a second pass. Memory: ``d x d`` per group of sources plus a chunk,
  and ``n`` floats for the per-record scores.
- :func:`needs_streaming` decides when: the set's bytes (``n * d * itemsize``) above the
  memory budget, half the memory available when the job starts unless
  :data:`ENV_BUDGET` says otherwise.

The kNN index builds from chunks too
(:func:`vendiscope.core.neighbors.algorithms.index.build_index_from_chunks`).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from vendiscope.core.base.errors import ProjectError
from vendiscope.core.base.jobs import CancelToken, NullProgress, Progress
from vendiscope.core.store import vectors

if TYPE_CHECKING:
    import numpy as np

    from vendiscope.core.plugin_host.interfaces import MetricResult
    from vendiscope.core.store.project import Project
    from vendiscope.core.store.vectors import VectorSetInfo

ENV_BUDGET = "VENDISCOPE_MEMORY_BUDGET"
"""Bytes a job may use for one vector set in memory (suffixes K, M, G, T allowed)."""
AVAILABLE_FRACTION = 0.5
STREAMED_PER_RECORD = (None, "leverage")
"""Per-record scores computed in the streaming pass (others need the whole matrix)."""
SPECTRUM_TOP = 50


def parse_bytes(text: str) -> int:
    """``"512M"``, ``"2G"``, ``"1.5T"`` or a plain number of bytes."""
    value = text.strip().upper().removesuffix("B")
    scale = 1
    if value and value[-1] in "KMGT":
        scale = 1024 ** ("KMGT".index(value[-1]) + 1)
        value = value[:-1]
    try:
        return int(float(value) * scale)
    except ValueError:
        raise ProjectError(f"{ENV_BUDGET}={text!r}: expected bytes such as 8G or 512M") from None


def memory_budget() -> int:
    """Bytes one vector set may take in memory: :data:`ENV_BUDGET`, else half of available RAM."""
    configured = os.environ.get(ENV_BUDGET, "").strip()
    if configured:
        return parse_bytes(configured)
    import psutil

    return int(psutil.virtual_memory().available * AVAILABLE_FRACTION)


def set_bytes(info: VectorSetInfo) -> int:
    import numpy as np

    return info.n_rows * info.dim * np.dtype(info.dtype).itemsize


def needs_streaming(info: VectorSetInfo, budget: int | None = None) -> bool:
    """Whether ``info`` is too large to load whole (``budget`` default: :func:`memory_budget`)."""
    return set_bytes(info) > (memory_budget() if budget is None else budget)


def _gib(n: int) -> str:
    return f"{n / 2**30:.2f} GiB"


def _chunks(project: Project, dataset: str, info: VectorSetInfo) -> Iterator[tuple[int, Any]]:
    return vectors.iter_chunks(project, dataset, info.name)


def stream_vendi(
    project: Project,
    dataset: str,
    info: VectorSetInfo,
    metric: Any,
    *,
    quality: np.ndarray | None = None,
    sources: dict[str, list[int]] | None = None,
    min_source_rows: int = 2,
    budget: int | None = None,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> tuple[MetricResult, dict[str, dict[str, Any]]]:
    """The built-in Vendi metric (``metric``, a ``VendiMetric``) over a stored set, streaming.

    Returns the metric's result (value, per-record leverage when asked for, the same details
    as the in-memory computation plus ``"streamed": True``) and the per-source scores, each
    with ``"equal_n"`` as in :func:`.subset_scoring.score_matrix` (the draws of a larger
    source read from the store, :func:`stored_score`).
    Bootstrap intervals and the ``contribution``/``uniqueness`` per-record scores need the
    whole matrix and are refused with a message saying so.
    """
    import numpy as np

    from vendiscope.core.metrics.algorithms import resolution, vendi
    from vendiscope.core.plugin_host.interfaces import MetricResult

    progress = progress or NullProgress()
    cancel = cancel or CancelToken()
    order = metric._check_params()
    needed = _gib(set_bytes(info))
    if metric.per_record not in STREAMED_PER_RECORD or metric.bootstrap:
        what = "a bootstrap interval" if metric.bootstrap else f"per_record={metric.per_record!r}"
        raise ProjectError(
            f"vector set '{info.name}' ({needed}) is larger than the memory budget, so it is "
            f"scored streaming, and {what} needs the whole matrix in memory; use "
            f"per_record='leverage' or None without bootstrap, or raise {ENV_BUDGET}"
        )
    n, d = info.n_rows, info.dim
    weights = None if quality is None else vendi.check_quality(quality, n)
    budget = memory_budget() if budget is None else budget

    # Which source each row belongs to, and groups of sources whose d x d Grams fit at once.
    names = [s for s, p in (sources or {}).items() if len(p) >= min_source_rows]
    owner = np.full(n, -1, dtype=np.int32)
    for code, name in enumerate(names):
        # mypy, on the next line: sources is not None when names is not empty
        owner[np.asarray(sources[name], dtype=np.int64)] = code  # type: ignore[index]
    per_group = max(1, int((budget // 2) // max(1, d * d * 8)))
    groups = [
        list(range(i, min(i + per_group, len(names)))) for i in range(0, len(names), per_group)
    ]
    passes = max(1, len(groups)) + (1 if metric.per_record == "leverage" else 0)
    progress.start(
        f"Scoring {info.name} streaming ({needed} in {info.n_chunks} chunks, {passes} passes)",
        total=info.n_chunks * passes,
        unit="chunks",
    )
    done = 0

    def tick() -> None:
        nonlocal done
        done += 1
        progress.update(done)

    xtx = np.zeros((d, d))
    total = np.zeros(d)  # the sum of the unit rows, for the mean cosine
    breakdown: dict[str, dict[str, Any]] = {}
    for number, group in enumerate(groups or [[]]):
        grams = {code: np.zeros((d, d)) for code in group}
        in_group = np.zeros(len(names) + 1, dtype=bool)  # owner -1 (no source) reads the last
        in_group[group] = True
        for start, chunk in _chunks(project, dataset, info):
            cancel.raise_if_cancelled()
            rows = vendi._prepare_chunk(chunk, start, metric.normalize)
            if number == 0:
                xtx += rows.T @ rows
                total += rows.sum(axis=0, dtype=np.float64)
            if group:
                codes = owner[start : start + len(rows)]
                for code in np.unique(codes[in_group[codes]]):
                    sub = rows[codes == code]
                    grams[int(code)] += sub.T @ sub
            tick()
        for code, gram in grams.items():
            # mypy, on the next line: sources is not None when names is not empty
            positions = np.asarray(sources[names[code]])  # type: ignore[index]
            part = vendi.VendiDecomposition.from_gram(gram, len(positions)).score(order)
            if weights is not None:
                part *= float(weights[positions].mean())
            breakdown[names[code]] = {"n": len(positions), "value": float(part)}
    if breakdown:  # each source also at the smallest one's size, its draws read from the store
        from vendiscope.core.metrics.algorithms import equal_n

        score = stored_score(project, info, q=order, normalize=metric.normalize, budget=budget)
        equal_n.add_to_breakdown(breakdown, lambda source, m: equal_n.at_size_with(
            # mypy, on the next line: sources is not None when names is not empty
            score, sources[source], m, quality=weights,  # type: ignore[index]
            check_cancel=cancel.raise_if_cancelled,
        ))  # fmt: skip

    needs_vectors = metric.per_record == "leverage"
    dec = vendi.VendiDecomposition.from_gram(xtx, n, eigenvectors=needs_vectors)
    score = dec.score(order)
    value = score if weights is None else float(weights.mean()) * score

    per_record = None
    if needs_vectors:
        per_record = np.empty(n)
        for start, scores in _leverage(project, dataset, info, dec, metric.normalize, cancel):
            per_record[start : start + len(scores)] = scores
            tick()
    progress.finish()
    details: dict[str, Any] = {
        "q": "inf" if math.isinf(order) else order,
        "n": n,
        "d": d,
        "form": "dual",
        "ci": None,
        "ci_level": None,
        "bootstrap": 0,
        "spectrum_top": [float(x) for x in dec.spectrum[:SPECTRUM_TOP]],
        "effective_number": score,
        "quality_mean": None if weights is None else float(weights.mean()),
        "per_record": metric.per_record,
        "streamed": True,
        "chunks": info.n_chunks,
        **resolution.resolution_details(score, n, total, q=order, d=d),
    }
    return MetricResult(value, per_record=per_record, details=details), breakdown


def stored_score(
    project: Project,
    info: VectorSetInfo,
    *,
    q: float | str = 1.0,
    normalize: bool = True,
    budget: int | None = None,
) -> Callable[[np.ndarray], float]:
    """``score(positions)``: the Vendi score of those rows of a stored set, read from the store.

    A draw that fits half the memory ``budget`` is read whole; a larger one in pieces of at
    least a chunk, its ``X^T X`` accumulated (memory: a piece plus ``d x d``).
    """
    import numpy as np

    from vendiscope.core.metrics.algorithms import vendi

    budget = memory_budget() if budget is None else budget
    row_bytes = info.dim * np.dtype(info.dtype).itemsize
    piece = max(info.chunk_rows, budget // 2 // max(row_bytes, 1))

    def score(drawn: np.ndarray) -> float:
        wanted = [int(p) for p in drawn]
        if len(wanted) <= piece:
            rows = vectors.read_rows(project, info, wanted)
            return vendi.vendi_score(rows, q, normalize=normalize)
        pieces = (
            vectors.read_rows(project, info, wanted[i : i + piece])
            for i in range(0, len(wanted), piece)
        )
        xtx, n = vendi.gram_dual(pieces, normalize=normalize)
        return vendi.vendi_from_gram(xtx, n, q)

    return score


def _leverage(
    project: Project,
    dataset: str,
    info: VectorSetInfo,
    dec: Any,
    normalize: bool,
    cancel: CancelToken,
    ridge: float = 1e-6,
) -> Iterator[tuple[int, np.ndarray]]:
    """Leverage of each row, chunk by chunk (as :func:`vendi_records.leverage_scores`)."""
    import numpy as np

    from vendiscope.core.metrics.algorithms import vendi

    with np.errstate(divide="ignore"):
        inverse = np.where(dec.values + ridge > 0, 1.0 / (dec.values + ridge), 0.0)
    for start, chunk in _chunks(project, dataset, info):
        cancel.raise_if_cancelled()
        rows = vendi._prepare_chunk(chunk, start, normalize)
        projected = (rows @ dec.vectors.astype(rows.dtype)).astype(np.float64)
        yield start, (projected * projected) @ inverse
