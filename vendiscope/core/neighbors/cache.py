"""The vector sets neighbour search works on, and what it keeps in this process between calls.

A vector set is taken by name (``None``: the dataset's preferred complete *embedding* set,
:mod:`vendiscope.core.vectors.resolve`). Indexes are built by
:func:`vendiscope.core.neighbors.algorithms.index.build_index` and kept here (:func:`get_index`):
they
are not stored in the project, because rebuilding one is cheap next to the bulk jobs that
need it (docs/benchmarks.md, "Nearest neighbours"). The embedder that searches free text is
kept too (:func:`embed_texts`), so a second query does not load its model again.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from vendiscope.core.base.errors import VendiscopeError
from vendiscope.core.base.jobs import CancelToken, NullProgress, Progress
from vendiscope.core.metrics.streaming import memory_budget, needs_streaming
from vendiscope.core.neighbors.algorithms.index import (
    VectorIndex,
    build_index,
    build_index_from_chunks,
    resolve_kind,
)
from vendiscope.core.store import vectors
from vendiscope.core.store.project import Project
from vendiscope.core.store.vectors import VectorSetInfo
from vendiscope.core.vectors import resolve

if TYPE_CHECKING:
    import numpy as np

METRIC = "cosine"
QUERY_BATCH_ROWS = 4096
INDEX_CACHE_SIZE = 2
SEARCH_KINDS = ("embedding",)
"""What neighbours are searched in when no set is named (text queries need an embedder)."""


def resolve_vector_set(project: Project, dataset: str, name: str | None) -> VectorSetInfo:
    """The complete vector set ``name`` (any kind), or the preferred complete embedding set."""
    return resolve.resolve(project, dataset, name, SEARCH_KINDS, named=resolve.ANY_KIND)


def query_batches(
    project: Project, dataset: str, info: VectorSetInfo, cancel: CancelToken
) -> Iterator[tuple[int, np.ndarray]]:
    """``(start, rows)``: the set's stored rows in batches of :data:`QUERY_BATCH_ROWS`."""
    for start, chunk in vectors.iter_chunks(project, dataset, info.name):
        for offset in range(0, len(chunk), QUERY_BATCH_ROWS):
            cancel.raise_if_cancelled()
            yield start + offset, chunk[offset : offset + QUERY_BATCH_ROWS]


# ----------------------------------------------------------------------------- index cache
_cache: OrderedDict[tuple[Any, ...], VectorIndex] = OrderedDict()
_cache_lock = threading.Lock()


def _cache_key(project: Project, info: VectorSetInfo) -> tuple[Any, ...]:
    # created_at guards against an id reused after a set was deleted and another created.
    return (project.location, info.id, info.created_at.isoformat(), info.n_rows)


def cached_index(project: Project, info: VectorSetInfo) -> VectorIndex | None:
    """An index of ``info`` already built in this process (any kind), or ``None``."""
    key = _cache_key(project, info)
    with _cache_lock:
        for (base, *_), index in reversed(_cache.items()):
            if base == key:
                return index
    return None


def get_index(
    project: Project,
    dataset: str,
    vector_set: str | None = None,
    *,
    kind: str = "auto",
    device: str = "auto",
    n_queries: int | None = None,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> VectorIndex:
    """The cosine index of a vector set, built once per process and kept for reuse.

    ``n_queries`` (how many queries the caller will search) lets ``"auto"`` stay exact when
    an approximate index would not pay for its build. The :data:`INDEX_CACHE_SIZE` most
    recently used indexes stay in memory, keyed by the project location, the vector set and
    the concrete kind; :func:`clear_index_cache` drops them.
    """
    info = resolve_vector_set(project, dataset, vector_set)
    concrete = resolve_kind(kind, info.n_rows, n_queries)
    key = (_cache_key(project, info), concrete, device)
    with _cache_lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
    if kind == "auto" and concrete == "flat":
        existing = cached_index(project, info)  # an approximate one is fine for few queries
        if existing is not None:
            return existing
    progress = progress or NullProgress()
    if needs_streaming(info, memory_budget() // 2):
        # Loaded whole, the matrix and the index would both be in memory; over the budget,
        # add the stored chunks one at a time instead (only the index is held).
        index = build_index_from_chunks(
            lambda: vectors.iter_chunks(project, dataset, info.name), info.n_rows, info.dim,
            rows_at=lambda rows: vectors.read_rows(project, info, [int(r) for r in rows]),
            kind=concrete, metric=METRIC, device=device, progress=progress, cancel=cancel,
        )  # fmt: skip
    else:
        progress.start(f"loading vector set {info.name}", total=None)
        matrix = vectors.load(project, dataset, info.name)
        progress.finish()
        index = build_index(matrix, kind=concrete, metric=METRIC, device=device,
                            progress=progress, cancel=cancel)  # fmt: skip
        del matrix
    with _cache_lock:
        _cache[key] = index
        _cache.move_to_end(key)
        while len(_cache) > INDEX_CACHE_SIZE:
            _cache.popitem(last=False)
    return index


def clear_index_cache() -> None:
    with _cache_lock:
        _cache.clear()


# ----------------------------------------------------------------------------- embedder cache
_embedders: OrderedDict[str, Any] = OrderedDict()


def embed_texts(info: VectorSetInfo, texts: Sequence[str]) -> np.ndarray:
    """Embed ``texts`` as the vector set ``info`` was embedded (same plugin and parameters)."""
    import json

    from vendiscope.core.plugin_host.registry import default_registry

    name = info.params.get("embedder")
    if not name:
        raise VendiscopeError(
            f"vector set '{info.name}' ({info.kind}) was not made by an embedder, so text "
            "cannot be searched in it; use an embedding vector set (`vendiscope embed`)"
        )
    params = info.params.get("embedder_params") or {}
    key = json.dumps([name, params], sort_keys=True, default=str)
    with _cache_lock:
        embedder = _embedders.get(key)
    if embedder is None:
        embedder = default_registry().create("embedder", name, **params)
        with _cache_lock:
            _embedders[key] = embedder
            while len(_embedders) > 1:
                _embedders.popitem(last=False)
    expected = info.params.get("model_id")
    actual = getattr(embedder, "model_id", None)
    if expected is not None and actual is not None and actual != expected:
        raise VendiscopeError(
            f"vector set '{info.name}' was embedded with '{expected}', but its embedder now "
            f"loads '{actual}'; the query would not be comparable"
        )
    return embedder.embed(list(texts), progress=NullProgress(), cancel=CancelToken())
