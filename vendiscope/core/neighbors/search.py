"""Nearest neighbours of records, vectors or text in a vector set (cosine similarity).

Every function takes a vector set by name (``None``: the dataset's preferred complete
embedding set, :func:`.cache.resolve_vector_set`). The indexes and the text embedder are
kept in this process by :mod:`vendiscope.core.neighbors.cache`; the near-duplicates job is
:mod:`.near_duplicates` and the coverage job :mod:`.coverage` (both importable from here
too, where the CLI, the app and the views import them).

>>> neighbors_of_records(project, "train", None, [12], k=5)     # doctest: +SKIP
[[Neighbor(position=4031, similarity=0.93), ...]]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from vendiscope.core.neighbors.algorithms.index import TopK, VectorIndexError, normalized
from vendiscope.core.neighbors.cache import (
    INDEX_CACHE_SIZE,
    METRIC,
    QUERY_BATCH_ROWS,
    cached_index,
    clear_index_cache,
    embed_texts,
    get_index,
    resolve_vector_set,
)
from vendiscope.core.neighbors.coverage import MAX_POSITIONS_IN_RUN, CoverageReport, coverage
from vendiscope.core.neighbors.near_duplicates import (
    MAX_GROUP_MEMBERS_IN_RUN,
    MAX_GROUPS_IN_RUN,
    RUN_PACKAGES,
    NearDuplicateGroup,
    NearDuplicateReport,
    find_near_duplicates,
    near_duplicate_subset_name,
)
from vendiscope.core.store import record_lookup, vectors
from vendiscope.core.store.models import RecordRow
from vendiscope.core.store.project import Project
from vendiscope.core.store.vectors import VectorSetInfo

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "INDEX_CACHE_SIZE",
    "MAX_GROUPS_IN_RUN",
    "MAX_GROUP_MEMBERS_IN_RUN",
    "MAX_POSITIONS_IN_RUN",
    "METRIC",
    "QUERY_BATCH_ROWS",
    "RUN_PACKAGES",
    "SCAN_MAX_QUERIES",
    "CoverageReport",
    "NearDuplicateGroup",
    "NearDuplicateReport",
    "Neighbor",
    "cached_index",
    "clear_index_cache",
    "coverage",
    "embed_texts",
    "find_near_duplicates",
    "get_index",
    "near_duplicate_subset_name",
    "neighbors_of_records",
    "neighbors_of_text",
    "neighbors_of_vectors",
    "records_at",
    "resolve_vector_set",
]

# At most this many queries are answered by an exact scan of the stored chunks when no index
# is cached: one query over 1,000,000 rows costs a read of the set, not an index build.
SCAN_MAX_QUERIES = 64


@dataclass(frozen=True)
class Neighbor:
    """A record (by dataset position) and its cosine similarity to the query."""

    position: int
    similarity: float


def records_at(project: Project, dataset: str, positions: Sequence[int]) -> dict[int, RecordRow]:
    """The records at these dataset positions, by position (for showing neighbours)."""
    return record_lookup.records_at(project, dataset, positions)


def neighbors_of_records(
    project: Project,
    dataset: str,
    vector_set: str | None,
    positions: Sequence[int],
    k: int = 10,
    *,
    index: str = "auto",
) -> list[list[Neighbor]]:
    """The ``k`` nearest records of each record at ``positions`` (the record itself left out;
    exact copies of it at other positions are neighbours like any other)."""
    info = resolve_vector_set(project, dataset, vector_set)
    wanted = [int(p) for p in positions]
    queries = vectors.read_rows(project, info, wanted)
    sims, found = _knn(project, dataset, info, queries, k + 1, index)
    out = []
    for position, row_sims, row_positions in zip(wanted, sims, found, strict=True):
        row = [
            Neighbor(int(p), float(s))
            for s, p in zip(row_sims, row_positions, strict=True)
            if p >= 0 and p != position
        ]
        out.append(row[:k])
    return out


def neighbors_of_vectors(
    project: Project,
    dataset: str,
    vector_set: str | None,
    queries: np.ndarray,
    k: int = 10,
    *,
    index: str = "auto",
) -> list[list[Neighbor]]:
    """The ``k`` nearest records of each query vector (a vector or an ``(n, dim)`` matrix)."""
    info = resolve_vector_set(project, dataset, vector_set)
    sims, found = _knn(project, dataset, info, queries, k, index)
    return [
        [Neighbor(int(p), float(s)) for s, p in zip(row_s, row_p, strict=True) if p >= 0]
        for row_s, row_p in zip(sims, found, strict=True)
    ]


def neighbors_of_text(
    project: Project,
    dataset: str,
    vector_set: str | None,
    text: str | Sequence[str],
    k: int = 10,
    *,
    index: str = "auto",
) -> list[list[Neighbor]]:
    """The ``k`` nearest records of free text, embedded with the vector set's own embedder
    and parameters (one list per text)."""
    info = resolve_vector_set(project, dataset, vector_set)
    texts = [text] if isinstance(text, str) else list(text)
    queries = embed_texts(info, texts)
    return neighbors_of_vectors(project, dataset, info.name, queries, k, index=index)


def _knn(
    project: Project,
    dataset: str,
    info: VectorSetInfo,
    queries: np.ndarray,
    k: int,
    kind: str,
) -> tuple[np.ndarray, np.ndarray]:
    import numpy as np

    q = np.asarray(queries)
    if q.ndim == 1:
        q = q.reshape(1, -1)
    if kind == "auto":
        existing = cached_index(project, info)
        if existing is not None:
            return existing.search(q, k)
        if len(q) <= SCAN_MAX_QUERIES:
            return _scan(project, dataset, info, q, k)
    return get_index(project, dataset, info.name, kind=kind, n_queries=len(q)).search(q, k)


def _scan(
    project: Project, dataset: str, info: VectorSetInfo, queries: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """Exact top-k by reading the stored chunks one at a time (memory-bounded, no index)."""
    if queries.ndim != 2 or queries.shape[1] != info.dim:
        raise VectorIndexError(
            f"queries have dimension {queries.shape[-1]}, but vector set '{info.name}' holds "
            f"{info.dim}-dimensional vectors; use vectors from the same model"
        )
    import numpy as np

    q_t = np.ascontiguousarray(normalized(queries).T)
    best = TopK(len(queries), min(k, info.n_rows))
    for start, chunk in vectors.iter_chunks(project, dataset, info.name):
        rows = chunk.astype(np.float32, copy=False)
        norms = np.sqrt(np.einsum("ij,ij->i", rows, rows))
        norms[norms == 0] = 1.0
        best.update(((rows @ q_t) / norms[:, None]).T, start)  # cosine, no normalised copy
    return best.result()
