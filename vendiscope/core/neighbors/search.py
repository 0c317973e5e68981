"""Neighbours, near-duplicates and coverage over the vector sets of a project.

Every function takes a vector set by name (``None``: the dataset's most recent complete
embedding set) and works with cosine similarity. Indexes are built by
:func:`vendiscope.core.neighbors.index.build_index` and kept in this process (see
:func:`get_index`):
they are not stored in the project, because rebuilding one is cheap next to the bulk jobs
that need it (docs/benchmarks.md, "Nearest neighbours").

>>> neighbors_of_records(project, "train", None, [12], k=5)     # doctest: +SKIP
[[Neighbor(position=4031, similarity=0.93), ...]]
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import select

from vendiscope.core.base.errors import ProjectError, VendiscopeError
from vendiscope.core.base.jobs import CancelToken, NullProgress, Progress
from vendiscope.core.metrics.streaming import memory_budget, needs_streaming
from vendiscope.core.neighbors.index import (
    TopK,
    VectorIndex,
    VectorIndexError,
    build_index,
    build_index_from_chunks,
    normalized,
    resolve_kind,
)
from vendiscope.core.store import subsets, vectors
from vendiscope.core.store.models import RecordRow, SubsetInfo
from vendiscope.core.store.project import RECORD_COLUMNS, Project
from vendiscope.core.store.runs import fail_run, finish_run, start_run
from vendiscope.core.store.schema import Record
from vendiscope.core.store.vectors import VectorSetInfo

if TYPE_CHECKING:
    import numpy as np

METRIC = "cosine"
# At most this many queries are answered by an exact scan of the stored chunks when no index
# is cached: one query over 1,000,000 rows costs a read of the set, not an index build.
SCAN_MAX_QUERIES = 64
QUERY_BATCH_ROWS = 4096
INDEX_CACHE_SIZE = 2
MAX_GROUPS_IN_RUN = 10_000
MAX_GROUP_MEMBERS_IN_RUN = 1_000
MAX_POSITIONS_IN_RUN = 10_000
RUN_PACKAGES = ("faiss-cpu", "faiss-gpu-cu12", "scipy")


# ----------------------------------------------------------------------------- results
@dataclass(frozen=True)
class Neighbor:
    """A record (by dataset position) and its cosine similarity to the query."""

    position: int
    similarity: float


@dataclass(frozen=True)
class NearDuplicateGroup:
    """Records that are near-duplicates of each other (connected by similarity >= threshold).

    ``positions`` are sorted; the first is the representative that is kept.
    ``similarities[i]`` is the cosine similarity of ``positions[i]`` to the representative
    (1.0 for the representative itself; it can be below the threshold for a record that
    joined the group through another member).
    """

    positions: tuple[int, ...]
    similarities: tuple[float, ...]

    @property
    def representative(self) -> int:
        return self.positions[0]

    @property
    def redundant(self) -> tuple[int, ...]:
        return self.positions[1:]

    def __len__(self) -> int:
        return len(self.positions)


@dataclass(frozen=True)
class NearDuplicateReport:
    dataset: str
    vector_set: str
    threshold: float
    k: int
    n_records: int
    groups: list[NearDuplicateGroup]
    run_id: int
    subset: SubsetInfo | None
    index: dict[str, Any]
    seconds: float

    @property
    def redundant(self) -> int:
        """Records that are not their group's representative (what the subset holds)."""
        return sum(len(g) - 1 for g in self.groups)

    @property
    def records_in_groups(self) -> int:
        return sum(len(g) for g in self.groups)

    def summary(self) -> dict[str, Any]:
        return {
            "dataset": self.dataset,
            "vector_set": self.vector_set,
            "threshold": self.threshold,
            "k": self.k,
            "records": self.n_records,
            "groups": len(self.groups),
            "records_in_groups": self.records_in_groups,
            "redundant": self.redundant,
            "largest_group": max((len(g) for g in self.groups), default=0),
            "subset": self.subset.name if self.subset is not None else None,
            "run_id": self.run_id,
            "seconds": round(self.seconds, 3),
        }


@dataclass(frozen=True)
class CoverageReport:
    """How well ``train`` covers ``target``: each target record's nearest train record.

    ``nearest[i]`` is the train position nearest to target position ``i`` and
    ``similarities[i]`` its cosine similarity; a target record is covered when that is
    ``>= radius``.
    """

    train_dataset: str
    train_vector_set: str
    target_dataset: str
    target_vector_set: str
    radius: float
    nearest: np.ndarray
    similarities: np.ndarray
    run_id: int
    index: dict[str, Any]
    seconds: float
    train_subset: str | None = None

    @property
    def n_targets(self) -> int:
        return len(self.similarities)

    @property
    def covered(self) -> int:
        return int((self.similarities >= self.radius).sum())

    @property
    def fraction(self) -> float:
        return self.covered / self.n_targets if self.n_targets else 1.0

    @property
    def uncovered(self) -> list[int]:
        """Target positions without a train record within the radius, in position order."""
        import numpy as np

        return [int(p) for p in np.flatnonzero(self.similarities < self.radius)]

    def quantiles(self) -> dict[str, float]:
        import numpy as np

        if not self.n_targets:
            return {}
        levels = {"min": 0.0, "p10": 0.1, "p25": 0.25, "median": 0.5, "p75": 0.75, "max": 1.0}
        values = np.quantile(self.similarities.astype(np.float64), list(levels.values()))
        return {name: round(float(v), 4) for name, v in zip(levels, values, strict=True)}

    def summary(self) -> dict[str, Any]:
        return {
            "train_dataset": self.train_dataset,
            "train_vector_set": self.train_vector_set,
            "train_subset": self.train_subset,
            "target_dataset": self.target_dataset,
            "target_vector_set": self.target_vector_set,
            "radius": self.radius,
            "targets": self.n_targets,
            "covered": self.covered,
            "fraction": round(self.fraction, 6),
            "similarity_quantiles": self.quantiles(),
            "run_id": self.run_id,
            "seconds": round(self.seconds, 3),
        }


# ----------------------------------------------------------------------------- vector sets
def resolve_vector_set(project: Project, dataset: str, name: str | None) -> VectorSetInfo:
    """The complete vector set ``name``, or the dataset's most recent complete embedding set."""
    from vendiscope.core.metrics.scoring import default_vector_set

    if name is None:
        return default_vector_set(project, dataset, "embedding")
    return vectors.complete_set(project, dataset, name)


def records_at(project: Project, dataset: str, positions: Sequence[int]) -> dict[int, RecordRow]:
    """The records at these dataset positions, by position (for showing neighbours)."""
    info = project.dataset(dataset)
    wanted = sorted({int(p) for p in positions})
    found: dict[int, RecordRow] = {}
    with project.engine.connect() as connection:
        for start in range(0, len(wanted), 900):
            query = select(*RECORD_COLUMNS).where(
                Record.dataset_id == info.id, Record.seq.in_(wanted[start : start + 900])
            )
            for row in connection.execute(query):
                found[row.seq] = RecordRow(*row)
    return found


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


# ----------------------------------------------------------------------------- neighbours
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


_embedders: OrderedDict[str, Any] = OrderedDict()


def embed_texts(info: VectorSetInfo, texts: Sequence[str]) -> np.ndarray:
    """Embed ``texts`` as the vector set ``info`` was embedded (same plugin and parameters)."""
    import json

    from vendiscope.core.plugins.registry import default_registry

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


# ----------------------------------------------------------------------------- near-dups
def near_duplicate_subset_name(threshold: float) -> str:
    return f"near-duplicates@{threshold:g}"


def find_near_duplicates(
    project: Project,
    dataset: str,
    vector_set: str | None = None,
    *,
    threshold: float = 0.95,
    k: int = 20,
    save: bool = True,
    overwrite: bool = False,
    index: str = "auto",
    device: str = "auto",
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> NearDuplicateReport:
    """Groups of records whose cosine similarity is ``>= threshold``.

    Each record is linked to those of its ``k`` nearest neighbours at or above the threshold;
    linked records form groups (connected components, i.e. union-find), so a group larger
    than ``k + 1`` is still found whole as long as its members are linked in a chain. The
    lowest position of each group is its representative; the others are redundant.

    Records a run (kind ``near-duplicates``). With ``save``, the redundant records are saved
    as the subset ``near-duplicates@THRESHOLD`` (gain = similarity to the representative),
    so a selection can exclude them; an existing subset of that name is refused (before any
    work) unless ``overwrite``, which deletes it and writes the new one in one transaction.
    The run's result lists the first :data:`MAX_GROUPS_IN_RUN` groups (largest first), each
    cut to :data:`MAX_GROUP_MEMBERS_IN_RUN` positions; the subset holds every redundant record.
    """
    import numpy as np

    started = time.perf_counter()
    progress = progress or NullProgress()
    cancel = cancel or CancelToken()
    if not 0.0 < threshold <= 1.0:
        raise VendiscopeError(f"threshold must be in (0, 1] (a cosine similarity), got {threshold}")
    if k < 1:
        raise VendiscopeError(f"k must be at least 1, got {k}")
    info = resolve_vector_set(project, dataset, vector_set)
    subset_name = near_duplicate_subset_name(threshold)
    if save and not overwrite:
        _refuse_existing_subset(project, dataset, subset_name)
    params = {
        "vector_set": info.name,
        "vector_set_id": info.id,
        "threshold": threshold,
        "k": k,
        "metric": METRIC,
        "index": index,
        "save": save,
        "subset": subset_name if save else None,
    }
    run_id = start_run(
        project,
        key=f"near-duplicates:{dataset}:{info.name}",
        kind="near-duplicates",
        plugin="core:near-duplicates",
        dataset_id=project.dataset(dataset).id,
        params=params,
        packages=RUN_PACKAGES,
    )
    try:
        built = get_index(project, dataset, info.name, kind=index, device=device,
                          n_queries=info.n_rows, progress=progress, cancel=cancel)  # fmt: skip
        edges_a: list[np.ndarray] = []
        edges_b: list[np.ndarray] = []
        progress.start(f"finding near-duplicates in {dataset}", total=info.n_rows, unit="records")
        for start, rows in _query_batches(project, dataset, info, cancel):
            sims, found = built.search(rows, k + 1)
            own = np.arange(start, start + len(rows), dtype=np.int64)[:, None]
            hit = (sims >= threshold) & (found >= 0) & (found != own)
            edges_a.append(np.broadcast_to(own, found.shape)[hit])
            edges_b.append(found[hit])
            progress.update(start + len(rows))
        progress.finish()
        groups = _groups(project, info, info.n_rows, edges_a, edges_b)
        seconds = time.perf_counter() - started
        report_subset = None
        if save:
            redundant = [p for g in groups for p in g.redundant]
            gains = [s for g in groups for s in g.similarities[1:]]
            order = np.argsort(redundant, kind="stable")
            report_subset = subsets.save(
                project,
                dataset,
                subset_name,
                [redundant[i] for i in order],
                gains=[gains[i] for i in order],
                run_id=run_id,
                overwrite=overwrite,
                description=(
                    f"records whose {info.name} embedding has cosine similarity >= {threshold:g} "
                    "to a lower-position record of their group (redundant near-duplicates)"
                ),
            )
        report = NearDuplicateReport(
            dataset, info.name, threshold, k, info.n_rows, groups, run_id, report_subset,
            built.describe(), seconds,
        )  # fmt: skip
    except BaseException as error:
        fail_run(project, run_id, error, cancelled=cancel.cancelled, started=started)
        raise
    listed = groups[:MAX_GROUPS_IN_RUN]
    result = {
        **report.summary(),
        "index": report.index,
        "groups_listed": len(listed),
        "groups_truncated": len(groups) > len(listed),
        "group_sizes": [len(g) for g in listed],
        "group_positions": [list(g.positions[:MAX_GROUP_MEMBERS_IN_RUN]) for g in listed],
    }
    finish_run(project, run_id, status="complete", result=result, seconds=report.seconds)
    return report


def _query_batches(
    project: Project, dataset: str, info: VectorSetInfo, cancel: CancelToken
) -> Iterator[tuple[int, np.ndarray]]:
    for start, chunk in vectors.iter_chunks(project, dataset, info.name):
        for offset in range(0, len(chunk), QUERY_BATCH_ROWS):
            cancel.raise_if_cancelled()
            yield start + offset, chunk[offset : offset + QUERY_BATCH_ROWS]


def _groups(
    project: Project,
    info: VectorSetInfo,
    n: int,
    edges_a: list[np.ndarray],
    edges_b: list[np.ndarray],
) -> list[NearDuplicateGroup]:
    """Connected components of the similarity graph, largest first (then by position)."""
    import numpy as np
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    a = np.concatenate(edges_a) if edges_a else np.empty(0, dtype=np.int64)
    b = np.concatenate(edges_b) if edges_b else np.empty(0, dtype=np.int64)
    if len(a) == 0:
        return []
    graph = coo_matrix((np.ones(len(a), dtype=np.int8), (a, b)), shape=(n, n)).tocsr()
    _, labels = connected_components(graph, directed=True, connection="weak")
    sizes = np.bincount(labels)
    in_groups = np.flatnonzero(sizes[labels] > 1)  # sorted positions
    members_by_label: dict[int, list[int]] = {}
    for position in in_groups:
        members_by_label.setdefault(int(labels[position]), []).append(int(position))
    rows = normalized(vectors.read_rows(project, info, [int(p) for p in in_groups]))
    row_of = {int(p): i for i, p in enumerate(in_groups)}
    groups = []
    for members in members_by_label.values():
        rep = rows[row_of[members[0]]]
        sims = rows[[row_of[p] for p in members]] @ rep
        sims[0] = 1.0
        groups.append(NearDuplicateGroup(tuple(members), tuple(round(float(s), 6) for s in sims)))
    groups.sort(key=lambda g: (-len(g), g.representative))
    return groups


def _refuse_existing_subset(project: Project, dataset: str, name: str) -> None:
    if any(s.name == name for s in project.subsets(dataset)):
        raise ProjectError(
            f"dataset '{dataset}' already has a subset named '{name}'; replace it with "
            "overwrite=True (`--overwrite`), or do not save (`--no-save`)"
        )


# ----------------------------------------------------------------------------- coverage
def coverage(
    project: Project,
    train_dataset: str,
    train_vector_set: str | None,
    target_dataset: str,
    target_vector_set: str | None,
    *,
    radius: float = 0.8,
    train_subset: str | None = None,
    index: str = "auto",
    device: str = "auto",
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> CoverageReport:
    """For each target record, its nearest train record and their cosine similarity.

    A target record is *covered* when that similarity is ``>= radius``. Both vector sets must
    come from the same model (``params["model_id"]``) and have the same dimension. With
    ``train_subset``, only that subset of the train dataset counts as training data (e.g.
    how well a selection covers the full data). Records a run (kind ``coverage``).
    """
    import numpy as np

    started = time.perf_counter()
    progress = progress or NullProgress()
    cancel = cancel or CancelToken()
    if not -1.0 <= radius <= 1.0:
        raise VendiscopeError(f"radius must be a cosine similarity in [-1, 1], got {radius}")
    train = resolve_vector_set(project, train_dataset, train_vector_set)
    target = resolve_vector_set(project, target_dataset, target_vector_set)
    _check_comparable(train_dataset, train, target_dataset, target)
    params = {
        "train_dataset": train_dataset,
        "train_vector_set": train.name,
        "train_subset": train_subset,
        "target_dataset": target_dataset,
        "target_vector_set": target.name,
        "radius": radius,
        "metric": METRIC,
        "index": index,
    }
    run_id = start_run(
        project,
        key=f"coverage:{train_dataset}:{target_dataset}",
        kind="coverage",
        plugin="core:coverage",
        dataset_id=project.dataset(train_dataset).id,
        params=params,
        packages=RUN_PACKAGES,
    )
    try:
        if train_subset is None:
            built = get_index(
                project, train_dataset, train.name, kind=index, device=device,
                n_queries=target.n_rows, progress=progress, cancel=cancel,
            )  # fmt: skip
            mapping = None
        else:
            mapping = np.array(
                [r.seq for r in project.iter_records(train_dataset, subset=train_subset)],
                dtype=np.int64,
            )
            if len(mapping) == 0:
                raise VendiscopeError(f"subset '{train_subset}' of '{train_dataset}' is empty")
            rows = vectors.read_rows(project, train, [int(p) for p in mapping])
            built = build_index(
                rows, kind=index, metric=METRIC, device=device, n_queries=target.n_rows,
                progress=progress, cancel=cancel,
            )  # fmt: skip
        nearest = np.full(target.n_rows, -1, dtype=np.int64)
        sims = np.full(target.n_rows, -np.inf, dtype=np.float32)
        progress.start(f"coverage of {target_dataset} by {train_dataset}", total=target.n_rows,
                       unit="records")  # fmt: skip
        for start, rows in _query_batches(project, target_dataset, target, cancel):
            s, p = built.search(rows, 1)
            nearest[start : start + len(rows)] = p[:, 0]
            sims[start : start + len(rows)] = s[:, 0]
            progress.update(start + len(rows))
        progress.finish()
        if mapping is not None:
            nearest = np.where(nearest >= 0, mapping[np.maximum(nearest, 0)], -1)
        report = CoverageReport(
            train_dataset, train.name, target_dataset, target.name, radius, nearest, sims,
            run_id, built.describe(), time.perf_counter() - started, train_subset,
        )  # fmt: skip
    except BaseException as error:
        fail_run(project, run_id, error, cancelled=cancel.cancelled, started=started)
        raise
    uncovered = report.uncovered
    result = {
        **report.summary(),
        "index": report.index,
        "uncovered": uncovered[:MAX_POSITIONS_IN_RUN],
        "uncovered_count": len(uncovered),
        "uncovered_truncated": len(uncovered) > MAX_POSITIONS_IN_RUN,
    }
    finish_run(project, run_id, status="complete", result=result, seconds=report.seconds)
    return report


def _check_comparable(
    train_dataset: str, train: VectorSetInfo, target_dataset: str, target: VectorSetInfo
) -> None:
    def name(dataset: str, info: VectorSetInfo) -> str:
        model = info.params.get("model_id") or info.model or "no model recorded"
        return f"'{info.name}' of '{dataset}' ({info.kind}, {info.dim} dims, model {model})"

    problems = []
    if train.dim != target.dim:
        problems.append("dimensions differ")
    if train.params.get("model_id") != target.params.get("model_id"):
        problems.append("models differ")
    elif train.kind != target.kind:
        problems.append("kinds differ")
    if problems:
        raise VendiscopeError(
            f"cannot compare vector set {name(train_dataset, train)} with "
            f"{name(target_dataset, target)}: {' and '.join(problems)}; embed both datasets "
            "with the same model"
        )
