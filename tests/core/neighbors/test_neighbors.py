"""Neighbours, near-duplicate groups and coverage over vector sets in real project files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.conftest import qa_rows, write_jsonl
from vendiscope.core.base.errors import ProjectError, VendiscopeError
from vendiscope.core.base.jobs import RecordingProgress
from vendiscope.core.io.importing import import_dataset
from vendiscope.core.neighbors import search as nb
from vendiscope.core.neighbors.algorithms.index import VectorIndexError
from vendiscope.core.store import subsets, vectors


def write_vector_set(
    project: Any,
    dataset: str,
    name: str,
    matrix: np.ndarray,
    *,
    kind: str = "embedding",
    params: dict[str, Any] | None = None,
    chunk_rows: int = 64,
) -> vectors.VectorSetInfo:
    """A complete vector set written straight from a matrix (no embedder involved)."""
    info = vectors.open_for_writing(
        project, dataset, name, kind=kind, model="synthetic",
        params=params if params is not None else {"model_id": "synthetic"},
        dim=matrix.shape[1], chunk_rows=chunk_rows,
    )  # fmt: skip
    for index in range(info.n_chunks):
        start, stop = info.chunk_range(index)
        vectors.write_chunk(project, info, index, matrix[start:stop])
    return vectors.mark_complete(project, info)


def unit(x: np.ndarray) -> np.ndarray:
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def planted(n: int = 300, dim: int = 32, seed: int = 0) -> np.ndarray:
    """Random vectors with near-copies: {3, 10, 11}, {40, 50} and the exact pair {7, 200}."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, dim)).astype(np.float32)
    for copy, original in ((10, 3), (11, 3), (50, 40)):
        x[copy] = x[original] + 0.05 * rng.standard_normal(dim)
    x[200] = x[7] * 3.0  # same direction, other length: cosine 1
    return x


def add_dataset(project: Any, tmp_path: Path, name: str, n: int) -> str:
    import_dataset(project, write_jsonl(tmp_path / f"{name}.jsonl", qa_rows(n)), name=name)
    return name


@pytest.fixture(autouse=True)
def fresh_cache():
    nb.clear_index_cache()
    yield
    nb.clear_index_cache()


@pytest.fixture
def data(project, tmp_path: Path) -> np.ndarray:
    add_dataset(project, tmp_path, "d", 300)
    matrix = planted()
    write_vector_set(project, "d", "emb", matrix)
    return matrix


# ----------------------------------------------------------------------------- neighbours
def test_neighbors_of_records_exclude_the_record_and_match_brute_force(project, data) -> None:
    found = nb.neighbors_of_records(project, "d", "emb", [3, 120], k=5)
    sims = unit(data) @ unit(data).T
    for position, row in zip([3, 120], found, strict=True):
        assert len(row) == 5 and all(n.position != position for n in row)
        order = [p for p in np.argsort(-sims[position], kind="stable") if p != position][:5]
        assert [n.position for n in row] == order
        assert [n.similarity for n in row] == pytest.approx(sims[position, order], abs=1e-5)
    assert {n.position for n in found[0][:2]} == {10, 11}
    # an exact copy elsewhere is a neighbour like any other
    assert nb.neighbors_of_records(project, "d", "emb", [7], k=1)[0][0].position == 200


def test_scan_and_index_paths_agree(project, data) -> None:
    queries = data[:80]  # more than SCAN_MAX_QUERIES: builds (and caches) an index
    by_scan = nb.neighbors_of_vectors(project, "d", "emb", queries[:5], k=4)
    assert nb.cached_index(project, vectors.get_set(project, "d", "emb")) is None
    by_index = nb.neighbors_of_vectors(project, "d", "emb", queries, k=4)[:5]
    assert nb.cached_index(project, vectors.get_set(project, "d", "emb")) is not None
    for a, b in zip(by_scan, by_index, strict=True):
        assert [n.position for n in a] == [n.position for n in b]
        assert [n.similarity for n in a] == pytest.approx([n.similarity for n in b], abs=1e-5)
    single = nb.neighbors_of_vectors(project, "d", "emb", data[9], k=2)
    assert len(single) == 1 and single[0][0].position == 9


def test_index_is_cached_per_project_and_set(project, data) -> None:
    first = nb.get_index(project, "d", "emb")
    assert nb.get_index(project, "d", None) is first  # the default set is the same set
    assert first.kind == "flat" and first.ntotal == 300
    nb.clear_index_cache()
    assert nb.get_index(project, "d", "emb") is not first


def test_dimension_mismatch_names_both_dimensions(project, data) -> None:
    with pytest.raises(VectorIndexError, match=r"dimension 7.*32-dimensional"):
        nb.neighbors_of_vectors(project, "d", "emb", np.ones((1, 7), np.float32))
    with pytest.raises(VectorIndexError, match="dimension 7, but the index holds 32"):
        nb.neighbors_of_vectors(project, "d", "emb", np.ones((100, 7), np.float32))


def test_default_vector_set_and_missing_one(project, tmp_path: Path) -> None:
    add_dataset(project, tmp_path, "d", 300)
    with pytest.raises(ProjectError, match=r"no complete embedding vector set.*vendiscope embed"):
        nb.neighbors_of_records(project, "d", None, [0])
    write_vector_set(project, "d", "old", planted(seed=1))
    write_vector_set(project, "d", "grads", planted(seed=2), kind="gradient")
    write_vector_set(project, "d", "new", planted(seed=3))
    assert nb.resolve_vector_set(project, "d", None).name == "new"
    with pytest.raises(VendiscopeError, match="not made by an embedder"):
        nb.neighbors_of_text(project, "d", None, "hello")


# ----------------------------------------------------------------------------- near-dups
def test_near_duplicates_on_planted_copies(project, data) -> None:
    report = nb.find_near_duplicates(project, "d", "emb", threshold=0.95)
    assert [g.positions for g in report.groups] == [(3, 10, 11), (7, 200), (40, 50)]
    assert [g.representative for g in report.groups] == [3, 7, 40]
    assert report.redundant == 4 and report.records_in_groups == 7
    sims = unit(data) @ unit(data).T
    assert report.groups[0].similarities == pytest.approx([1, sims[3, 10], sims[3, 11]], abs=1e-5)

    subset = report.subset
    assert subset is not None and subset.name == "near-duplicates@0.95" and subset.size == 4
    assert subset.run_id == report.run_id
    members = [r.seq for r in project.iter_records("d", subset=subset.name)]
    assert members == [10, 11, 50, 200]

    run = project.run(report.run_id)
    assert (run.kind, run.plugin, run.status) == ("near-duplicates", "core:near-duplicates",
                                                  "complete")  # fmt: skip
    assert run.params["threshold"] == 0.95 and run.params["vector_set"] == "emb"
    assert run.result["groups"] == 3 and run.result["redundant"] == 4
    assert run.result["group_positions"] == [[3, 10, 11], [7, 200], [40, 50]]
    assert run.result["groups_truncated"] is False and "faiss-cpu" in run.versions


def test_saved_gains_are_similarities_to_the_representative(project, data) -> None:
    report = nb.find_near_duplicates(project, "d", "emb", threshold=0.95)
    from sqlalchemy import select

    from vendiscope.core.store.schema import Record, SubsetMember

    with project.engine.connect() as connection:
        rows = connection.execute(
            select(Record.seq, SubsetMember.gain, SubsetMember.rank)
            .join(SubsetMember, SubsetMember.record_id == Record.id)
            .where(SubsetMember.subset_id == report.subset.id)
            .order_by(SubsetMember.rank)
        ).all()
    sims = unit(data) @ unit(data).T
    assert [r.seq for r in rows] == [10, 11, 50, 200]
    assert [r.gain for r in rows] == pytest.approx(
        [sims[3, 10], sims[3, 11], sims[40, 50], 1.0], abs=1e-5
    )


def test_existing_subset_is_refused_then_replaced_with_overwrite(project, data) -> None:
    first = nb.find_near_duplicates(project, "d", "emb", threshold=0.95)
    runs_before = len(project.runs("d"))
    with pytest.raises(ProjectError, match=r"already has a subset named 'near-duplicates@0\.95'"):
        nb.find_near_duplicates(project, "d", "emb", threshold=0.95)
    assert len(project.runs("d")) == runs_before  # refused before any work
    again = nb.find_near_duplicates(project, "d", "emb", threshold=0.95, k=5, overwrite=True)
    assert again.subset is not None and again.subset.run_id == again.run_id != first.run_id
    assert [s.name for s in project.subsets("d")] == ["near-duplicates@0.95"]
    assert [r.seq for r in project.iter_records("d", subset="near-duplicates@0.95")] == [
        10, 11, 50, 200,
    ]  # fmt: skip
    unsaved = nb.find_near_duplicates(project, "d", "emb", threshold=0.9, save=False)
    assert unsaved.subset is None and len(project.subsets("d")) == 1


def test_chains_beyond_k_form_one_group_and_none_found(project, tmp_path: Path) -> None:
    add_dataset(project, tmp_path, "d", 300)
    rng = np.random.default_rng(4)
    x = rng.standard_normal((300, 16)).astype(np.float32)
    x[100:140] = x[99] + 0.01 * rng.standard_normal((40, 16))  # 41 copies, k = 5
    write_vector_set(project, "d", "emb", x)
    report = nb.find_near_duplicates(project, "d", "emb", threshold=0.99, k=5, save=False)
    assert [g.positions for g in report.groups] == [tuple(range(99, 140))]
    none = nb.find_near_duplicates(project, "d", "emb", threshold=1.0, k=5)
    assert none.groups == [] and none.subset is not None and none.subset.size == 0


def test_near_duplicates_with_an_ivf_index_and_progress(project, tmp_path: Path) -> None:
    add_dataset(project, tmp_path, "d", 3000)
    rng = np.random.default_rng(5)
    centres = unit(rng.standard_normal((40, 24)))
    x = unit(centres[rng.integers(0, 40, 3000)] + 0.25 * rng.standard_normal((3000, 24)))
    x[2000] = x[5] + 0.001
    x[2500] = x[1200] + 0.001
    write_vector_set(project, "d", "emb", x, chunk_rows=512)
    progress = RecordingProgress()
    report = nb.find_near_duplicates(
        project, "d", "emb", threshold=0.995, index="ivf", save=False, progress=progress
    )
    assert report.index["kind"] == "ivf"
    assert [g.positions for g in report.groups] == [(5, 2000), (1200, 2500)]
    assert progress.updates[-1] == (3000, 3000)


# ----------------------------------------------------------------------------- coverage
def coverage_data(project: Any, tmp_path: Path) -> tuple[np.ndarray, np.ndarray]:
    add_dataset(project, tmp_path, "train", 200)
    add_dataset(project, tmp_path, "bench", 50)
    rng = np.random.default_rng(6)
    train = rng.standard_normal((200, 64)).astype(np.float32)
    target = rng.standard_normal((50, 64)).astype(np.float32)
    target[:30] = train[[i * 5 for i in range(30)]] + 0.1 * rng.standard_normal((30, 64))
    write_vector_set(project, "train", "emb", train)
    write_vector_set(project, "bench", "emb", target, chunk_rows=16)
    return train, target


def test_coverage_with_known_answers(project, tmp_path: Path) -> None:
    train, target = coverage_data(project, tmp_path)
    report = nb.coverage(project, "train", None, "bench", None, radius=0.8)
    assert report.n_targets == 50 and report.covered == 30 and report.fraction == 0.6
    assert report.nearest[:30].tolist() == [i * 5 for i in range(30)]
    assert report.uncovered == list(range(30, 50))
    exact = (unit(target) @ unit(train).T).max(axis=1)
    np.testing.assert_allclose(report.similarities, exact, atol=1e-5)
    run = project.run(report.run_id)
    assert (run.kind, run.plugin, run.status) == ("coverage", "core:coverage", "complete")
    assert run.result["covered"] == 30 and run.result["uncovered"] == list(range(30, 50))
    assert run.params["target_dataset"] == "bench" and run.params["radius"] == 0.8


def test_coverage_by_a_subset_of_the_training_data(project, tmp_path: Path) -> None:
    coverage_data(project, tmp_path)
    subsets.save(project, "train", "evens", [i for i in range(200) if i % 10 == 0])
    report = nb.coverage(project, "train", "emb", "bench", "emb", train_subset="evens")
    covered = [i for i in range(30) if (i * 5) % 10 == 0]
    assert report.uncovered == sorted(set(range(50)) - set(covered))
    assert report.nearest[covered].tolist() == [i * 5 for i in covered]


def test_coverage_refuses_other_models_and_dimensions(project, tmp_path: Path) -> None:
    coverage_data(project, tmp_path)
    write_vector_set(project, "bench", "small", np.ones((50, 8), np.float32),
                     params={"model_id": "synthetic"})  # fmt: skip
    write_vector_set(project, "bench", "other", np.ones((50, 64), np.float32),
                     params={"model_id": "another-model"})  # fmt: skip
    with pytest.raises(VendiscopeError, match=r"'emb' of 'train'.*'small' of 'bench'.*dimensions"):
        nb.coverage(project, "train", "emb", "bench", "small")
    with pytest.raises(VendiscopeError, match=r"model synthetic\).*model another-model\)"):
        nb.coverage(project, "train", "emb", "bench", "other")


# ----------------------------------------------------------------------------- real embedder
PARAPHRASES = [
    "What is the capital of France?",
    "Which city is the capital of France?",
    "How many legs does a spider have?",
    "How many legs do spiders have?",
    "Explain how photosynthesis works in plants.",
    "Describe the process of photosynthesis in plants.",
]
UNRELATED = [
    "Write a haiku about autumn leaves.",
    "What is 17 multiplied by 23?",
    "Translate 'good morning' into Spanish.",
    "List three uses of a paperclip.",
    "Who wrote the novel Moby-Dick?",
    "What is the boiling point of water at sea level?",
    "Give me a recipe for pancakes.",
    "Summarise the plot of Romeo and Juliet.",
    "How do I reverse a list in Python?",
    "What causes the seasons on Earth?",
    "Name the largest planet in the solar system.",
    "Why is the sky blue?",
    "Suggest a name for a black cat.",
    "Convert 100 degrees Fahrenheit to Celsius.",
    "What does DNA stand for?",
    "Recommend a book about the history of Rome.",
]


def embedded_dataset(project: Any, tmp_path: Path) -> list[str]:
    """Unrelated questions, paraphrase pairs and exact copies, embedded with the real model."""
    from vendiscope.core.vectors.embedding import embed_dataset

    prompts = UNRELATED[:8] + PARAPHRASES + UNRELATED[8:] + [UNRELATED[2], UNRELATED[2]]
    rows = [{"prompt": p, "response": "", "id": i} for i, p in enumerate(prompts)]
    import_dataset(project, write_jsonl(tmp_path / "real.jsonl", rows), name="real")
    embed_dataset(project, "real", field="prompt", name="minilm", reuse=False)
    return prompts


@pytest.mark.slow
def test_near_duplicates_and_text_queries_with_the_real_embedder(project, tmp_path) -> None:
    prompts = embedded_dataset(project, tmp_path)
    report = nb.find_near_duplicates(project, "real", "minilm", threshold=0.85)
    groups = [{prompts[p] for p in g.positions} for g in report.groups]
    copies = {p for p, text in enumerate(prompts) if text == UNRELATED[2]}
    assert tuple(sorted(copies)) in [g.positions for g in report.groups]
    for first, second in zip(PARAPHRASES[::2], PARAPHRASES[1::2], strict=True):
        assert any({first, second} <= g for g in groups), (first, second, groups)
    grouped = set().union(*groups)
    assert grouped == set(PARAPHRASES) | {UNRELATED[2]}  # unrelated texts stay alone
    assert all(len(g) <= 3 for g in groups)

    hits = nb.neighbors_of_text(project, "real", None, "capital city of France", k=2)[0]
    assert {prompts[h.position] for h in hits} == set(PARAPHRASES[:2])
    assert hits[0].similarity > 0.7
