"""Vector sets larger than the memory budget: the Vendi score and the kNN index from chunks
equal the in-memory results."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.conftest import qa_rows, write_jsonl
from tests.core._planted import planted_vectors
from vendiscope.core.base.errors import ProjectError
from vendiscope.core.io.importing import import_dataset
from vendiscope.core.metrics import streaming
from vendiscope.core.metrics.scoring import score_dataset
from vendiscope.core.neighbors import search as neighbors
from vendiscope.core.neighbors.algorithms.index import build_index, build_index_from_chunks
from vendiscope.core.store import vectors

N = 1800


@pytest.fixture
def stored(project, tmp_path: Path) -> np.ndarray:
    """1,800 records in 3 sources and a 16-d planted vector set in chunks of 128 rows."""
    import_dataset(project, write_jsonl(tmp_path / "d.jsonl", qa_rows(N)), name="d")
    sizes = (400, 300, 250, 200, 150, 120, 100, 90, 80, 60, 50)
    rows, _ = planted_vectors(sizes, dim=16, spread=0.3)
    vectors.write_matrix(project, "d", "g", rows, kind="gradient", model="planted", params={},
                         chunk_rows=128)  # fmt: skip
    return rows


@pytest.mark.parametrize("q", [1.0, 2.0, "inf"])
def test_streamed_vendi_equals_in_memory(project, stored, q) -> None:
    params = {"q": q, "per_record": "leverage"}
    loaded = score_dataset(project, "d", metric="gvendi", params=params)
    # A 1-byte budget: streamed, one pass per source (their Grams "do not fit" together).
    streamed = score_dataset(project, "d", metric="gvendi", params=params, memory_budget=1)
    assert "streamed" not in loaded.details and streamed.details["streamed"] is True
    assert streamed.value == pytest.approx(loaded.value, rel=1e-6)
    assert streamed.per_source.keys() == loaded.per_source.keys() == {"s0", "s1", "s2"}
    for source, part in loaded.per_source.items():
        assert streamed.per_source[source]["n"] == part["n"] == N // 3
        assert streamed.per_source[source]["value"] == pytest.approx(part["value"], rel=1e-6)
    np.testing.assert_allclose(
        streamed.details["spectrum_top"], loaded.details["spectrum_top"], rtol=1e-5, atol=1e-9
    )
    leverage = vectors.load(project, "d", streamed.per_record_set)
    np.testing.assert_allclose(leverage, vectors.load(project, "d", loaded.per_record_set),
                               rtol=1e-4, atol=1e-7)  # fmt: skip


def test_streamed_quality_weights_and_refusals(project, stored, monkeypatch) -> None:
    vectors.write_matrix(project, "d", "w", np.linspace(0.5, 1.5, N), kind="score", model=None,
                         params={})  # fmt: skip
    loaded = score_dataset(project, "d", metric="gvendi", quality="w")
    monkeypatch.setenv(streaming.ENV_BUDGET, "1K")  # the environment's budget, 1 KiB
    streamed = score_dataset(project, "d", metric="gvendi", quality="w")
    assert streamed.details["streamed"] and streamed.value == pytest.approx(loaded.value, 1e-6)
    with pytest.raises(ProjectError, match=r"per_record='uniqueness' needs the whole matrix"):
        score_dataset(project, "d", metric="gvendi", params={"per_record": "uniqueness"})
    with pytest.raises(ProjectError, match="a bootstrap interval needs the whole matrix"):
        score_dataset(project, "d", metric="gvendi", params={"bootstrap": 10})
    assert streaming.parse_bytes("1.5G") == int(1.5 * 2**30)
    monkeypatch.setenv(streaming.ENV_BUDGET, "lots")
    with pytest.raises(ProjectError, match="expected bytes"):
        streaming.memory_budget()


@pytest.mark.parametrize("kind", ["flat", "ivf"])
def test_index_from_stored_chunks_equals_index_of_the_matrix(project, stored, kind) -> None:
    info = vectors.get_set(project, "d", "g")
    chunked = build_index_from_chunks(
        lambda: vectors.iter_chunks(project, "d", "g"), info.n_rows, info.dim,
        rows_at=lambda rows: vectors.read_rows(project, info, [int(r) for r in rows]),
        kind=kind, device="cpu",
    )  # fmt: skip
    whole = build_index(stored, kind=kind, device="cpu")
    assert chunked.describe().keys() == whole.describe().keys()
    assert chunked.params.get("nprobe") == whole.params.get("nprobe")
    queries = stored[::37]
    sims_a, pos_a = chunked.search(queries, 10)
    sims_b, pos_b = whole.search(queries, 10)
    assert np.array_equal(pos_a, pos_b)
    np.testing.assert_allclose(sims_a, sims_b, atol=1e-6)


def test_get_index_streams_a_set_over_the_budget(project, stored, monkeypatch) -> None:
    neighbors.clear_index_cache()
    in_memory = neighbors.get_index(project, "d", "g", kind="flat", device="cpu")
    neighbors.clear_index_cache()
    monkeypatch.setenv(streaming.ENV_BUDGET, "1")
    streamed = neighbors.get_index(project, "d", "g", kind="flat", device="cpu")
    neighbors.clear_index_cache()
    assert streamed is not in_memory and streamed.ntotal == N
    assert np.array_equal(streamed.search(stored[:50], 5)[1], in_memory.search(stored[:50], 5)[1])
