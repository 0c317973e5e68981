"""FAISS indexes against brute-force numpy: exact results, approximate recall, errors."""

from __future__ import annotations

import numpy as np
import pytest

from vendiscope.core.base.errors import VendiscopeError
from vendiscope.core.base.jobs import Cancelled, CancelToken, RecordingProgress
from vendiscope.core.neighbors.algorithms.index import (
    AUTO_THRESHOLD,
    TopK,
    VectorIndexError,
    build_index,
    ivf_build_cost,
    ivf_lists,
    resolve_kind,
)


def unit(x: np.ndarray) -> np.ndarray:
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def brute(queries: np.ndarray, base: np.ndarray, k: int, cosine: bool = True):
    q, b = (unit(queries), unit(base)) if cosine else (queries, base)
    sims = q.astype(np.float64) @ b.astype(np.float64).T
    order = np.argsort(-sims, axis=1, kind="stable")[:, :k]
    return np.take_along_axis(sims, order, axis=1), order


def mixture(n: int, dim: int, clusters: int, seed: int, spread: float = 1.0) -> np.ndarray:
    """Unit vectors around ``clusters`` random centres (same centres for the same seed)."""
    centres = unit(np.random.default_rng(seed).standard_normal((clusters, dim)))
    rng = np.random.default_rng(seed + 1000 + n)
    labels = rng.integers(0, clusters, n)
    noise = rng.standard_normal((n, dim)) * (spread / np.sqrt(dim))
    return unit(centres[labels] + noise).astype(np.float32)


def recall_at(found: np.ndarray, truth: np.ndarray) -> float:
    return float(
        np.mean([len(set(a) & set(b)) / len(b) for a, b in zip(found, truth, strict=True)])
    )


def test_flat_knn_equals_brute_force() -> None:
    rng = np.random.default_rng(0)
    base = (rng.standard_normal((3000, 48)) * rng.uniform(0.5, 3, (3000, 1))).astype(np.float32)
    queries = rng.standard_normal((40, 48)).astype(np.float32)
    before = base.copy()
    index = build_index(base, kind="flat")
    assert (index.kind, index.metric, index.dim, index.ntotal, index.device) == (
        "flat", "cosine", 48, 3000, "cpu",
    )  # fmt: skip
    sims, positions = index.search(queries, 10)
    want_sims, want_positions = brute(queries, base, 10)
    assert positions.dtype == np.int64 and positions.shape == (40, 10)
    assert np.array_equal(positions, want_positions)
    np.testing.assert_allclose(sims, want_sims, atol=1e-5)
    assert np.array_equal(base, before)  # the caller's array is not normalised in place


def test_inner_product_metric_is_not_normalised() -> None:
    rng = np.random.default_rng(1)
    base = rng.standard_normal((500, 16)).astype(np.float32)
    queries = rng.standard_normal((5, 16)).astype(np.float32)
    index = build_index(base, kind="flat", metric="inner_product")
    sims, positions = index.search(queries, 7)
    want_sims, want_positions = brute(queries, base, 7, cosine=False)
    assert np.array_equal(positions, want_positions)
    np.testing.assert_allclose(sims, want_sims, rtol=1e-4, atol=1e-4)


def test_single_vector_query_small_index_and_k_clamped() -> None:
    base = np.eye(4, dtype=np.float32)
    index = build_index(base)
    sims, positions = index.search(np.array([1, 0.1, 0, 0], dtype=np.float32), 10)
    assert positions.shape == (1, 4) and positions[0, 0] == 0
    assert sims[0, 0] == pytest.approx(1 / np.sqrt(1.01), abs=1e-6)
    with pytest.raises(VectorIndexError, match="k must be at least 1"):
        index.search(base, 0)


def test_dimension_mismatch_is_a_clear_error() -> None:
    index = build_index(np.ones((10, 8), dtype=np.float32))
    with pytest.raises(VectorIndexError, match="dimension 5, but the index holds 8-dimensional"):
        index.search(np.ones((2, 5), dtype=np.float32), 3)
    assert issubclass(VectorIndexError, VendiscopeError)
    with pytest.raises(VectorIndexError, match="unknown index kind 'annoy'"):
        build_index(np.ones((10, 8), dtype=np.float32), kind="annoy")
    with pytest.raises(VectorIndexError, match="2-D numeric array"):
        build_index(np.ones(10, dtype=np.float32))


def test_auto_kind_threshold_and_list_count() -> None:
    assert resolve_kind("auto", AUTO_THRESHOLD - 1) == "flat"
    assert resolve_kind("auto", AUTO_THRESHOLD) == "ivf"
    assert resolve_kind("hnsw", 10) == "hnsw"
    # few queries over many rows: an IVF build would cost more than exact search
    assert resolve_kind("auto", 1_000_000, n_queries=1_000) == "flat"
    assert resolve_kind("auto", 1_000_000, n_queries=100_000) == "ivf"
    assert 10_000 < ivf_build_cost(1_000_000) < 11_000
    assert ivf_lists(1_000_000) == 4000
    assert ivf_lists(20_000) == 512  # at least 39 training points per list
    assert ivf_lists(10) == 1
    assert build_index(mixture(2000, 16, 10, 0)).kind == "flat"


@pytest.mark.slow
def test_ivf_reaches_recall_on_clustered_data() -> None:
    base = mixture(20_000, 96, 200, seed=3)
    queries = mixture(300, 96, 200, seed=3)  # same centres, other points
    progress = RecordingProgress()
    index = build_index(base, kind="ivf", progress=progress)
    assert index.kind == "ivf" and "fallback" not in index.params
    assert index.params["nlist"] == ivf_lists(20_000)
    assert 1 <= index.params["nprobe"] < index.params["nlist"]
    assert index.params["calibrated_recall"] >= 0.95
    assert any("training the index" in d for d in progress.descriptions)
    _, found = index.search(queries, 10)
    _, truth = brute(queries, base, 10)
    assert recall_at(found, truth) >= 0.9


def test_hnsw_reaches_recall_on_clustered_data() -> None:
    base = mixture(8_000, 64, 100, seed=4)
    queries = mixture(200, 64, 100, seed=4)
    index = build_index(base, kind="hnsw")
    assert index.kind == "hnsw" and index.params["ef_search"] >= 16
    _, found = index.search(queries, 10)
    _, truth = brute(queries, base, 10)
    assert recall_at(found, truth) >= 0.9
    # HNSW has no range search of its own: it is emulated with growing k-NN searches.
    got = index.range_search(queries[:3], 0.5)
    for (sims, positions), query in zip(got, queries[:3], strict=True):
        exact = unit(base) @ unit(query[None])[0]
        assert set(positions) <= set(np.flatnonzero(exact >= 0.5 - 1e-6))
        assert np.all(sims >= 0.5) and np.all(np.diff(sims) <= 0)


def test_unstructured_data_falls_back_to_exact_search() -> None:
    base = unit(np.random.default_rng(5).standard_normal((4000, 128))).astype(np.float32)
    index = build_index(base, kind="ivf")
    assert index.kind == "flat"
    assert "lack the structure" in index.params["fallback"]
    assert index.params["calibrated_recall"] < 0.95
    _, found = index.search(base[:20], 5)
    _, truth = brute(base[:20], base, 5)
    assert np.array_equal(found, truth)


@pytest.mark.parametrize("kind", ["flat", "ivf"])
def test_range_search_equals_brute_force(kind: str) -> None:
    base = mixture(3000, 32, 30, seed=6, spread=0.6)
    index = build_index(base, kind=kind)
    queries = base[:25]
    got = index.range_search(queries, 0.9)
    exact = unit(queries) @ unit(base).T
    for row, (sims, positions) in enumerate(got):
        want = set(np.flatnonzero(exact[row] >= 0.9))
        assert np.all(np.diff(sims) <= 0)
        if kind == "flat":
            assert set(positions.tolist()) == want
        else:
            assert set(positions.tolist()) <= want and row in positions
    emulated = index._range_by_knn(index.prepare_queries(queries), 0.9)
    for (_, p1), (_, p2) in zip(got, emulated, strict=True):
        if kind == "flat":
            assert set(p1.tolist()) == set(p2.tolist())


def test_topk_merges_blocks_like_a_full_sort() -> None:
    rng = np.random.default_rng(7)
    sims = rng.standard_normal((6, 1000)).astype(np.float32)
    best = TopK(6, 12)
    for start in range(0, 1000, 128):
        best.update(sims[:, start : start + 128], start)
    got_sims, got_positions = best.result()
    order = np.argsort(-sims, axis=1)[:, :12]
    assert np.array_equal(got_positions, order)
    assert np.array_equal(got_sims, np.take_along_axis(sims, order, axis=1))


def test_build_can_be_cancelled() -> None:
    cancel = CancelToken()
    cancel.cancel()
    with pytest.raises(Cancelled):
        build_index(np.ones((100, 4), dtype=np.float32), cancel=cancel)


def test_gpu_request_without_gpu_is_refused() -> None:
    from vendiscope.core.neighbors.algorithms.index import gpu_count

    if gpu_count() > 0:
        pytest.skip("a GPU is visible")
    with pytest.raises(VectorIndexError, match="faiss-gpu-cu12"):
        build_index(np.ones((10, 4), dtype=np.float32), device="gpu")


def test_gpu_path_wiring_with_a_stand_in(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a GPU here, the GPU code path runs against CPU stand-ins for faiss's GPU calls."""
    import faiss

    moved = []

    def to_gpus(index):
        moved.append(type(index).__name__)
        return index

    monkeypatch.setattr(faiss, "get_num_gpus", lambda: 1)
    monkeypatch.setattr(faiss, "index_cpu_to_all_gpus", to_gpus)
    monkeypatch.setattr(faiss, "GpuParameterSpace", faiss.ParameterSpace, raising=False)
    base = mixture(4000, 32, 40, seed=8)
    index = build_index(base, kind="ivf")
    assert index.device == "gpu" and index.kind == "ivf" and moved == ["IndexIVFFlat"]
    got = index.range_search(base[:5], 0.8)  # emulated: GPU indexes have no range search
    exact = unit(base[:5]) @ unit(base).T
    for row, (sims, positions) in enumerate(got):
        assert set(positions.tolist()) <= set(np.flatnonzero(exact[row] >= 0.8 - 1e-6))
        assert row in positions and np.all(sims >= 0.8)
    with pytest.raises(VectorIndexError, match="at most 2048"):
        index.search(base[:1], 3000)
    assert build_index(base, kind="hnsw", device="auto").device == "cpu"  # no GPU HNSW
    assert build_index(base, kind="flat", device="cpu").device == "cpu"
