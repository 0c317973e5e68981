"""The groups a resolution check tells apart: the dataset's sources, else embedding clusters.

Sources when at least two hold rows. Without them, :data:`CLUSTERS` clusters of the newest
complete embedding set (spherical k-means in NumPy over a seeded sample of at most
:data:`SAMPLE_ROWS` rows, enough for a check of :data:`.group_check.MAX_ROWS` rows). No
sources and no embeddings: no groups.
"""

from __future__ import annotations

import numpy as np

from vendiscope.core.base.errors import ProjectError
from vendiscope.core.metrics.algorithms.group_check import MAX_ROWS
from vendiscope.core.store import record_lookup, vectors
from vendiscope.core.store.project import Project
from vendiscope.core.vectors import resolve

CLUSTERS = 8
"""Clusters of the embeddings when the data has no sources."""

SAMPLE_ROWS = 8 * MAX_ROWS
"""Rows clustered at most (a seeded sample of a larger dataset)."""

ITERATIONS = 20


def dataset_groups(
    project: Project, dataset: str, *, seed: int = 0
) -> tuple[dict[str, list[int]], str]:
    """``(positions of each group, "sources" | "embedding clusters")``; empty when none."""
    sources = {k: v for k, v in record_lookup.source_positions(project, dataset).items() if v}
    if len(sources) >= 2:
        return sources, "sources"
    try:
        target = resolve.resolve(project, dataset, None, ("embedding",))
    except ProjectError:
        return {}, "sources"
    rng = np.random.default_rng(seed)
    positions = np.arange(target.n_rows)
    if len(positions) > SAMPLE_ROWS:
        positions = np.sort(rng.choice(positions, size=SAMPLE_ROWS, replace=False))
    rows = np.asarray(vectors.read_rows(project, target, positions.tolist()), dtype=np.float64)
    labels = spherical_clusters(rows, min(CLUSTERS, len(rows)), rng)
    return {
        f"cluster {c + 1}": positions[labels == c].tolist()
        for c in range(labels.max() + 1)
        if (labels == c).any()
    }, "embedding clusters"


def spherical_clusters(rows: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """Cluster of each row: k-means on the unit sphere, seeded k-means++ start."""
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    unit = rows / np.where(norms > 0, norms, 1.0)
    centres = [unit[rng.integers(len(unit))]]
    for _ in range(1, k):
        distance = np.clip(1.0 - np.max(unit @ np.array(centres).T, axis=1), 0.0, None)
        weights = distance / distance.sum() if distance.sum() > 0 else None
        centres.append(unit[rng.choice(len(unit), p=weights)])
    centroids = np.array(centres)
    labels = np.zeros(len(unit), dtype=np.int64)
    for _ in range(ITERATIONS):
        labels = np.argmax(unit @ centroids.T, axis=1)
        for c in range(k):
            members = unit[labels == c]
            if len(members):
                total = members.sum(axis=0)
                centroids[c] = total / (np.linalg.norm(total) or 1.0)
    return labels
