"""Prismatic gap analysis: sparse gradient-space clusters, and filling them from candidates.

As in Prismatic Synthesis (Jung et al. 2025): the pool's normalised gradients are
clustered with spherical k-means (``k = N/10`` by default); clusters smaller than the median
size are *sparse*, i.e. under-represented. New candidate data (e.g. synthetic) is assigned
to the nearest pool centroid by cosine similarity, and only candidates landing in sparse
clusters are kept. The report says how much the kept candidates raise the pool's Vendi
score compared with the same number of random candidates.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from vendiscope.core.base.errors import ProjectError
from vendiscope.core.base.jobs import CancelToken, NullProgress, Progress
from vendiscope.core.clusters.options import ClusterOptions, FilterOptions
from vendiscope.core.clusters.run_result import ClusterResult
from vendiscope.core.metrics.algorithms import vendi
from vendiscope.core.store import subsets, vectors
from vendiscope.core.store.models import RunInfo, SubsetInfo
from vendiscope.core.store.project import Project
from vendiscope.core.store.runs import recorded_run
from vendiscope.core.store.vectors import VectorSetInfo
from vendiscope.core.vectors import resolve
from vendiscope.core.vectors.missing import MissingVectors

if TYPE_CHECKING:
    import numpy as np

CLUSTER_RUN = "clusters"
FILTER_RUN = "filter-candidates"
EXAMPLES_PER_CLUSTER = 3
LISTED_SPARSE = 50
"""Sparse clusters (smallest first) listed with example records in a cluster run's result."""
CLUSTER_KINDS = ("gradient", "embedding")
"""What is clustered by default (gradients first, as every job prefers); a named set may be
any feature set."""


def cluster_set(project: Project, dataset: str, name: str | None) -> VectorSetInfo:
    """The named complete feature set, or the one preferred (gradients, else embeddings)."""
    return resolve.resolve(project, dataset, name, CLUSTER_KINDS, named=resolve.PREFERENCE)


@dataclass(frozen=True)
class ClusterReport:
    dataset: str
    vector_set: str
    n_clusters: int
    sizes: list[int]
    sparse: list[int]
    median_size: float
    labels_set: str
    run_id: int
    seconds: float
    computed_on: str = ""
    """The vectors clustered, as :func:`vendiscope.core.vectors.resolve.describe` says."""

    @property
    def records_in_sparse(self) -> int:
        return sum(self.sizes[c] for c in self.sparse)

    def summary(self) -> dict[str, Any]:
        return {
            "dataset": self.dataset,
            "vector_set": self.vector_set,
            "computed_on": self.computed_on,
            "clusters": self.n_clusters,
            "median_size": self.median_size,
            "sparse_clusters": len(self.sparse),
            "records_in_sparse_clusters": self.records_in_sparse,
            "labels": self.labels_set,
            "run_id": self.run_id,
            "seconds": round(self.seconds, 3),
        }


def cluster_dataset(
    project: Project,
    dataset: str,
    *,
    vector_set: str | None = None,
    n_clusters: int | None = ClusterOptions.n_clusters,
    seed: int = ClusterOptions.seed,
    niter: int = 20,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> ClusterReport:
    """Spherical k-means of a vector set (gradients by default); sparse clusters marked.

    The labels are stored as the one-column vector set ``clusters/run-N`` (kind
    ``cluster``); the run's result holds the cluster sizes, which clusters are sparse, and
    example records of the smallest sparse clusters.
    """
    import numpy as np

    from vendiscope.core.clusters.algorithms.kmeans import default_k, spherical_kmeans

    started = time.perf_counter()
    progress = progress or NullProgress()
    cancel = cancel or CancelToken()
    chosen = ClusterOptions(n_clusters=n_clusters, seed=seed)
    n_clusters, seed = chosen.n_clusters, chosen.seed
    target = cluster_set(project, dataset, vector_set)
    k = default_k(target.n_rows) if n_clusters is None else n_clusters
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= target.n_rows:
        raise ProjectError(
            f"n_clusters must be a whole number from 1 to {target.n_rows} (the records of "
            f"'{dataset}'); got {n_clusters!r}"
        )
    params = {"vector_set": target.name, "n_clusters": k, "seed": seed, "niter": niter}
    with recorded_run(
        project, key=f"clusters:{dataset}:{target.name}", kind=CLUSTER_RUN,
        plugin="core:spherical-kmeans", dataset_id=project.dataset(dataset).id,
        params=params, seed=seed, packages=("numpy", "faiss-cpu"), cancel=cancel,
        started=started,
    ) as run:  # fmt: skip
        progress.start(f"clustering {dataset} into {k} clusters", total=None)
        matrix = vectors.load(project, dataset, target.name)
        cancel.raise_if_cancelled()
        clustering = spherical_kmeans(matrix, k, seed=seed, niter=niter)
        cancel.raise_if_cancelled()
        labels_set = _store_labels(project, dataset, run.id, target, clustering.labels)
        progress.finish()
        sizes = [int(s) for s in clustering.sizes]
        sparse = [int(c) for c in np.flatnonzero(clustering.sparse)]
        report = ClusterReport(
            dataset, target.name, k, sizes, sparse, float(np.median(sizes)), labels_set, run.id,
            run.seconds, resolve.describe(target, run.id),
        )  # fmt: skip
        stored = ClusterResult(
            dataset, target.name, labels_set, sizes, sparse, report.median_size, run.id,
            report.seconds, report.computed_on, _examples(clustering.labels, sizes, sparse),
        )  # fmt: skip
        run.finish(stored.to_json(), seconds=report.seconds)
    return report


def _store_labels(
    project: Project, dataset: str, run_id: int, source: VectorSetInfo, labels: np.ndarray
) -> str:
    name = f"clusters/run-{run_id}"
    params = {"run_id": run_id, "vector_set": source.name}
    vectors.write_matrix(project, dataset, name, labels, kind="cluster", model=source.model,
                         params=params, run_id=run_id)  # fmt: skip
    return name


def _examples(labels: np.ndarray, sizes: list[int], sparse: list[int]) -> dict[int, list[int]]:
    """A few member positions of the smallest sparse clusters, for the report and the GUI."""
    import numpy as np

    listed = sorted(sparse, key=lambda c: (sizes[c], c))[:LISTED_SPARSE]
    return {c: np.flatnonzero(labels == c)[:EXAMPLES_PER_CLUSTER].tolist() for c in listed}


def latest_cluster_run(project: Project, dataset: str) -> RunInfo:
    """The most recent complete clustering run of ``dataset``."""
    runs = [
        r
        for r in project.runs(dataset)
        if r.kind == CLUSTER_RUN and r.status == "complete" and r.result
    ]
    if not runs:
        raise ProjectError(
            f"dataset '{dataset}' has no clustering yet; run `vendiscope clusters` first"
        )
    return runs[-1]


def cluster_labels(project: Project, dataset: str, run: RunInfo) -> np.ndarray:
    """The cluster label of each record from a clustering run (int64)."""
    import numpy as np

    column = vectors.load(project, dataset, ClusterResult.from_json(run.result).labels)[:, 0]
    return column.astype(np.int64)


# ----------------------------------------------------------------------------- candidates
@dataclass(frozen=True)
class FilterReport:
    pool: str
    candidates: str
    pool_vectors: str
    candidate_vectors: str
    n_candidates: int
    kept: int
    pool_vendi: float
    with_kept: float
    with_random: float
    random_trials: int
    subset: SubsetInfo | None
    run_id: int
    seconds: float
    computed_on: str = ""
    """The pool's and the candidates' vectors, as :func:`.resolve.describe` says."""

    @property
    def gain_kept(self) -> float:
        return self.with_kept - self.pool_vendi

    @property
    def gain_random(self) -> float:
        return self.with_random - self.pool_vendi

    def summary(self) -> dict[str, Any]:
        return {
            "pool": self.pool,
            "candidates": self.candidates,
            "pool_vectors": self.pool_vectors,
            "candidate_vectors": self.candidate_vectors,
            "computed_on": self.computed_on,
            "candidates_total": self.n_candidates,
            "kept": self.kept,
            "pool_vendi": round(self.pool_vendi, 6),
            "pool_plus_kept_vendi": round(self.with_kept, 6),
            "pool_plus_random_vendi": round(self.with_random, 6),
            "gain_kept": round(self.gain_kept, 6),
            "gain_random": round(self.gain_random, 6),
            "random_trials": self.random_trials,
            "subset": self.subset.name if self.subset is not None else None,
            "run_id": self.run_id,
            "seconds": round(self.seconds, 3),
        }


def filter_candidates(
    project: Project,
    pool: str,
    candidates: str,
    *,
    candidate_vectors: str | None = None,
    cluster_run: int | None = None,
    name: str | None = None,
    overwrite: bool = False,
    random_trials: int = FilterOptions.random_trials,
    seed: int = FilterOptions.seed,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> FilterReport:
    """Keep the candidates that land in the pool's sparse clusters; measure what they add.

    Candidates are assigned to the nearest pool centroid (cosine; centroids are the
    normalised means of each cluster's normalised rows, which is what spherical k-means
    converges to). The kept candidates are saved as a subset of ``candidates`` (default
    name ``sparse-fill@run-N``). The Vendi score (q = 1) of the pool plus the kept rows is
    compared with the pool plus the same number of random candidates, averaged over
    ``random_trials`` draws.
    """

    started = time.perf_counter()
    progress = progress or NullProgress()
    cancel = cancel or CancelToken()
    run = project.run(cluster_run) if cluster_run is not None else latest_cluster_run(project, pool)
    if run.kind != CLUSTER_RUN or not run.result:
        raise ProjectError(f"run {run.id} is not a complete clustering run")
    if project.dataset(pool).id != run.dataset_id:
        raise ProjectError(f"clustering run {run.id} belongs to another dataset than '{pool}'")
    pool_set = vectors.get_set(project, pool, run.params["vector_set"])
    candidate_set = _matching_set(project, candidates, pool_set, candidate_vectors)
    chosen = FilterOptions(random_trials=random_trials, seed=seed)
    random_trials, seed = chosen.random_trials, chosen.seed
    if name is not None and not overwrite:
        subsets.check_name(name)
        subsets.refuse_existing(project, candidates, name)
    with recorded_run(
        project, key=f"filter-candidates:{candidates}:{pool}", kind=FILTER_RUN,
        plugin="core:sparse-cluster-filter", dataset_id=project.dataset(candidates).id,
        params={"pool": pool, "cluster_run": run.id, "pool_vectors": pool_set.name,
                "candidate_vectors": candidate_set.name, "random_trials": random_trials},
        seed=seed, packages=("numpy", "faiss-cpu"), cancel=cancel, started=started,
    ) as recorded:  # fmt: skip
        progress.start(f"filtering {candidates} against {pool}'s sparse clusters", total=None)
        labels = cluster_labels(project, pool, run)
        pool_rows = vectors.load(project, pool, pool_set.name)
        new_rows = vectors.load(project, candidates, candidate_set.name)
        cancel.raise_if_cancelled()
        kept = _kept(pool_rows, labels, ClusterResult.from_json(run.result).sparse, new_rows)
        cancel.raise_if_cancelled()
        base, with_kept, with_random = _vendi_gains(pool_rows, new_rows, kept, random_trials, seed)
        subset = None
        if len(kept):
            subset = subsets.save(
                project, candidates, name or f"sparse-fill@run-{recorded.id}", kept.tolist(),
                run_id=recorded.id, overwrite=overwrite,
                description=f"candidates landing in sparse clusters of '{pool}' (run {run.id})",
            )  # fmt: skip
        progress.finish()
        computed_on = (
            f"pool {resolve.describe(pool_set)}, candidates {resolve.describe(candidate_set)}, "
            f"run {recorded.id}"
        )
        report = FilterReport(
            pool, candidates, pool_set.name, candidate_set.name, len(new_rows), len(kept), base,
            with_kept, with_random, random_trials, subset, recorded.id, recorded.seconds,
            computed_on,
        )  # fmt: skip
        recorded.finish(report.summary(), seconds=report.seconds)
    return report


def _matching_set(
    project: Project, candidates: str, pool_set: VectorSetInfo, name: str | None
) -> VectorSetInfo:
    """The candidates' vector set, made by the same model as the pool's."""
    if name is not None:
        found = cluster_set(project, candidates, name)
    else:
        same = [
            s
            for s in vectors.complete_sets(project, candidates, pool_set.kind)
            if s.model == pool_set.model and s.dim == pool_set.dim
        ]
        if not same:
            raise MissingVectors(candidates, (pool_set.kind,), pool_set.model, pool_set.name)
        found = same[-1]
    if found.model != pool_set.model or found.dim != pool_set.dim:
        raise ProjectError(
            f"candidate vectors '{found.name}' ({found.model}, dim {found.dim}) are not "
            f"comparable with the pool's '{pool_set.name}' ({pool_set.model}, dim {pool_set.dim})"
        )
    return found


def pool_centroids(rows: np.ndarray, labels: np.ndarray, n_clusters: int) -> np.ndarray:
    """Unit-length mean direction of each cluster's unit rows (spherical k-means centroids)."""
    import numpy as np

    unit = rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-12)
    sums = np.zeros((n_clusters, rows.shape[1]), dtype=np.float64)
    np.add.at(sums, labels, unit)
    norms = np.linalg.norm(sums, axis=1, keepdims=True)
    return (sums / np.maximum(norms, 1e-12)).astype(np.float32)


def _kept(
    pool_rows: np.ndarray, labels: np.ndarray, sparse: list[int], new_rows: np.ndarray
) -> np.ndarray:
    import numpy as np

    from vendiscope.core.clusters.algorithms.kmeans import assign_to_centroids

    n_clusters = int(labels.max()) + 1
    centroids = pool_centroids(pool_rows, labels, n_clusters)
    assigned, _ = assign_to_centroids(new_rows, centroids)
    is_sparse = np.zeros(n_clusters, dtype=bool)
    is_sparse[np.asarray(sparse, dtype=np.int64)] = True
    return np.flatnonzero(is_sparse[assigned])


def _vendi_gains(
    pool_rows: np.ndarray, new_rows: np.ndarray, kept: np.ndarray, trials: int, seed: int
) -> tuple[float, float, float]:
    """Vendi of the pool, of pool + kept, and of pool + as many random candidates (mean)."""
    import numpy as np

    xtx, n = vendi.gram_dual([pool_rows])
    base = vendi.vendi_from_gram(xtx, n)
    if len(kept) == 0:
        return base, base, base

    def with_rows(rows: np.ndarray) -> float:
        extra, m = vendi.gram_dual([rows])
        return vendi.vendi_from_gram(xtx + extra, n + m)

    rng = np.random.default_rng(seed)
    random_values = [
        with_rows(new_rows[rng.choice(len(new_rows), size=len(kept), replace=False)])
        for _ in range(trials)
    ]
    return base, with_rows(new_rows[kept]), float(np.mean(random_values))
