"""Seed examples: from one sparse cluster, topped up from its neighbourhood, or uniform."""

from __future__ import annotations

import numpy as np
import pytest

from vendiscope.core.synthesis.seeds import choose_seeds


def _clusters() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Cluster 0: 6 rows along e0; cluster 1: 5 rows along e1; cluster 2: one row along e2,
    with a close row of cluster 1 leaning towards it."""
    rows = np.zeros((12, 3))
    rows[:6, 0] = 1
    rows[6:11, 1] = 1
    rows[10] = [0, 0.6, 0.8]  # in cluster 1, but nearest to cluster 2's centroid
    rows[11, 2] = 1
    labels = np.array([0] * 6 + [1] * 5 + [2])
    centroids = np.eye(3)
    return labels, np.bincount(labels), rows, centroids


def test_sparse_seeds_come_from_a_sparse_cluster_topped_up_by_its_neighbours() -> None:
    labels, sizes, rows, centroids = _clusters()
    rng = np.random.default_rng(0)
    seeds = choose_seeds(labels, sizes, float(np.median(sizes)), prompts=4, per_prompt=2,
                         rule="sparse", rng=rng, rows=rows, centroids=centroids)  # fmt: skip
    for chosen in seeds:  # only cluster 2 (size 1 < median 5) is sparse
        assert chosen[0] == 11 and chosen[1] == 10 and len(set(chosen)) == 2


def test_without_rows_a_small_cluster_gives_what_it_has() -> None:
    labels, sizes, _, _ = _clusters()
    seeds = choose_seeds(labels, sizes, 5.0, prompts=2, per_prompt=3, rule="sparse",
                         rng=np.random.default_rng(1))  # fmt: skip
    assert [list(s) for s in seeds] == [[11], [11]]


def test_uniform_seeds_and_the_fallback_draw_from_all_rows() -> None:
    labels = np.zeros(10, dtype=np.int64)
    sizes = np.array([10])
    for rule in ("uniform", "sparse"):  # one cluster: nothing is sparse
        seeds = choose_seeds(labels, sizes, 10.0, prompts=3, per_prompt=4, rule=rule,
                             rng=np.random.default_rng(2))  # fmt: skip
        assert all(len(set(s)) == 4 and max(s) < 10 for s in seeds)
    with pytest.raises(ValueError, match="seeds must be"):
        choose_seeds(labels, sizes, 10.0, prompts=1, per_prompt=1, rule="odd",
                     rng=np.random.default_rng(0))  # fmt: skip
