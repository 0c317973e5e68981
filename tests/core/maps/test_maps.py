"""2-D maps: UMAP on the FAISS kNN graph keeps the neighbour structure; PCA; stored sets."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.manifold import trustworthiness

from tests.core._planted import N_ROWS, planted_dataset, planted_vectors
from vendiscope.core.base.errors import ProjectError
from vendiscope.core.maps.algorithms import projection
from vendiscope.core.maps.jobs import latest_map, map_dataset
from vendiscope.core.plugin_host.params import ParamError
from vendiscope.core.store import vectors


def test_knn_graph_matches_brute_force_and_puts_self_first() -> None:
    rows, _ = planted_vectors(dim=8)
    rows = np.vstack([rows, rows[:5]])  # exact duplicates tie with their originals
    indices, distances, _ = projection.knn_graph(rows, 6)
    assert (indices[:, 0] == np.arange(len(rows))).all()
    assert np.allclose(distances[:, 0], 0.0, atol=1e-5)
    unit = rows / np.linalg.norm(rows, axis=1, keepdims=True)
    sims = unit @ unit.T
    kth = np.sort(sims, axis=1)[:, -6]
    found = np.take_along_axis(sims, indices, axis=1)
    assert (found >= kth[:, None] - 1e-5).all()  # every neighbour is among the true top 6


@pytest.mark.slow
def test_umap_with_precomputed_knn_keeps_neighbourhoods(project, tmp_path) -> None:
    labels = planted_dataset(project, tmp_path)
    report = map_dataset(project, "pool", method="umap", n_neighbors=15, seed=0)
    coords = vectors.load(project, "pool", report.name)
    assert coords.shape == (N_ROWS, 2) and np.isfinite(coords).all()
    matrix = vectors.load(project, "pool", "gradients/planted")
    assert trustworthiness(matrix, coords, n_neighbors=10, metric="cosine") > 0.9
    assert report.trustworthiness > 0.9 and report.fitted_rows == N_ROWS
    # points of one planted cluster sit together: each point's map neighbour shares its label
    from sklearn.neighbors import NearestNeighbors

    nearest = NearestNeighbors(n_neighbors=2).fit(coords).kneighbors(coords)[1][:, 1]
    assert (labels[nearest] == labels).mean() > 0.95
    assert latest_map(project, "pool").name == report.name
    run = project.run(report.run_id)
    assert run.kind == "projection" and run.result["map"] == report.name


@pytest.mark.slow
def test_large_sets_fit_on_a_sample_and_say_so(project, tmp_path) -> None:
    planted_dataset(project, tmp_path)
    report = map_dataset(project, "pool", method="umap", fit_sample=400, seed=1)
    assert report.fitted_rows == 400 and report.placed_rows == N_ROWS - 400
    assert "fitted on a random sample of 400" in report.details["note"]
    assert report.trustworthiness > 0.85
    assert "fitted on a random sample" in project.run(report.run_id).result["note"]


def test_pca_map_and_errors(project, tmp_path) -> None:
    planted_dataset(project, tmp_path)
    report = map_dataset(project, "pool", method="pca")
    coords = vectors.load(project, "pool", report.name)
    assert coords.shape == (N_ROWS, 2)
    assert len(project.run(report.run_id).result["explained_variance_ratio"]) == 2
    with pytest.raises(ParamError, match="method: expected one of 'umap', 'pca', got 'tsne'"):
        map_dataset(project, "pool", method="tsne")
    with pytest.raises(ProjectError, match="no vector set named 'nope'"):
        map_dataset(project, "pool", vector_set="nope")
