"""Prismatic gap analysis: sparse clusters of the pool, and the sparse-cluster candidate filter."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import table_counts
from tests.core._planted import N_ROWS, planted_dataset, planted_vectors, write_set
from vendiscope.core.base.errors import ProjectError
from vendiscope.core.clusters.jobs import (
    cluster_dataset,
    cluster_labels,
    filter_candidates,
    pool_centroids,
)
from vendiscope.core.store import subsets, vectors

EVEN = (40,) * 20
"""Candidates spread evenly over the same 20 directions as the pool."""


@pytest.fixture
def pool(project, tmp_path) -> str:
    planted_dataset(project, tmp_path)
    return "pool"


def test_clusters_mark_those_below_the_median_as_sparse(project, pool) -> None:
    report = cluster_dataset(project, pool, n_clusters=20, seed=0)
    assert report.n_clusters == 20 and sum(report.sizes) == N_ROWS
    median = float(np.median(report.sizes))
    assert report.median_size == median
    assert report.sparse == [c for c, s in enumerate(report.sizes) if s < median]
    labels = vectors.load(project, pool, report.labels_set)[:, 0]
    assert set(np.unique(labels).astype(int)) <= set(range(20))
    run = project.run(report.run_id)
    assert run.kind == "clusters" and run.result["sparse"] == report.sparse
    smallest = min(report.sparse, key=lambda c: report.sizes[c])
    examples = run.result["examples"][str(smallest)]
    assert examples and all(labels[p] == smallest for p in examples)


def test_default_cluster_count_is_a_tenth_of_the_records(project, pool) -> None:
    report = cluster_dataset(project, pool, seed=0)
    assert report.n_clusters == round(N_ROWS / 10)


def test_filter_keeps_only_candidates_in_sparse_clusters(project, pool, tmp_path) -> None:
    clustering = cluster_dataset(project, pool, n_clusters=20, seed=0)
    planted_dataset(project, tmp_path, "synthetic", seed=0, sizes=EVEN)
    new_rows, _ = planted_vectors(EVEN, seed=0)  # what planted_dataset stored: same centres
    report = filter_candidates(project, pool, "synthetic", seed=0)
    kept = subsets.members(project, "synthetic", report.subset.name).positions
    pool_rows = vectors.load(project, pool, "gradients/planted")
    labels = cluster_labels(project, pool, project.run(clustering.run_id))
    centroids = pool_centroids(pool_rows, labels, 20)
    unit = new_rows / np.linalg.norm(new_rows, axis=1, keepdims=True)
    nearest = np.argmax(unit @ centroids.T, axis=1)
    expected = [i for i, c in enumerate(nearest) if c in set(clustering.sparse)]
    assert kept == expected and 0 < len(kept) < len(new_rows)
    assert report.kept == len(kept) and report.n_candidates == len(new_rows)
    assert report.gain_kept > report.gain_random > 0
    run = project.run(report.run_id)
    assert run.kind == "filter-candidates" and run.result["kept"] == len(kept)


def test_filter_refuses_incomparable_vectors(project, project_path, pool, tmp_path) -> None:
    planted_dataset(project, tmp_path, "synthetic", seed=3)
    with pytest.raises(ProjectError, match="has no clustering yet"):
        filter_candidates(project, pool, "synthetic")
    cluster_dataset(project, pool, n_clusters=10)
    write_set(project, "synthetic", "other-model", planted_vectors(seed=3)[0], model="another")
    before = table_counts(project_path)
    with pytest.raises(ProjectError, match="not comparable"):
        filter_candidates(project, pool, "synthetic", candidate_vectors="other-model")
    with pytest.raises(ProjectError, match="n_clusters must be a whole number from 1 to"):
        cluster_dataset(project, pool, n_clusters=N_ROWS + 1)
    assert table_counts(project_path) == before
