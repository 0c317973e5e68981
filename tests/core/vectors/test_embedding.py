"""The embedding job: chunked, resumable, reusing vectors of identical records."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from tests.conftest import qa_rows, write_jsonl
from vendiscope.core.base.errors import ProjectError
from vendiscope.core.base.jobs import Cancelled, CancelToken, RecordingProgress
from vendiscope.core.io.importing import import_dataset
from vendiscope.core.plugin_host import Embedder, PluginRegistry
from vendiscope.core.plugin_host.manifest import Contribution, PluginManifest
from vendiscope.core.store import vectors
from vendiscope.core.vectors.embedding import embed_dataset, resolve_field, text_of


class HashEmbedder(Embedder):
    """A deterministic toy encoder: each text maps to a fixed pseudo-random unit vector."""

    calls: list[int] = []

    def __init__(self, dim: int = 16, max_chars: int = 40) -> None:
        self.dim_ = dim
        self.max_chars = max_chars

    @property
    def dim(self) -> int:
        return self.dim_

    @property
    def model_id(self) -> str:
        return f"hash-{self.dim_}"

    def embed(self, texts, *, progress, cancel):
        HashEmbedder.calls.append(len(texts))
        rows = []
        for text in texts:
            seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")
            row = np.random.default_rng(seed).standard_normal(self.dim_)
            rows.append(row / np.linalg.norm(row))
        return np.asarray(rows, dtype=np.float32).reshape(len(texts), self.dim_)

    def count_truncated(self, texts) -> int:
        return sum(len(t) > self.max_chars for t in texts)


@pytest.fixture
def registry() -> PluginRegistry:
    registry = PluginRegistry.discover()
    registry.add_manifest(
        PluginManifest(
            "test-embedders",
            (Contribution("embedder", "hash", f"{__name__}:HashEmbedder"),),
        )
    )
    HashEmbedder.calls = []
    return registry


def expected_matrix(texts: list[str]) -> np.ndarray:
    return HashEmbedder().embed(texts, progress=None, cancel=None)


def test_embeds_every_record_in_order(project, tmp_path, registry) -> None:
    rows = qa_rows(250)
    import_dataset(project, write_jsonl(tmp_path / "d.jsonl", rows), name="d")
    progress = RecordingProgress()
    result = embed_dataset(
        project, "d", embedder="hash", chunk_rows=64, registry=registry, progress=progress
    )
    assert result.vector_set.name == "hash/prompt+response"
    assert (result.counts["embedded"], result.counts["reused"], result.resumed_from) == (250, 0, 0)
    texts = [f"{r['question']}\n\n{r['answer']}" for r in rows]
    assert np.array_equal(
        vectors.load(project, "d", result.vector_set.name), expected_matrix(texts)
    )
    assert progress.updates[-1] == (250, 250)
    run = project.runs("d")[-1]
    assert (run.kind, run.status, run.result["embedded"]) == ("embedding", "complete", 250)
    again = embed_dataset(project, "d", embedder="hash", chunk_rows=64, registry=registry)
    assert again.already_complete


def test_cancel_then_resume_gives_the_same_matrix(project, tmp_path, registry) -> None:
    import_dataset(project, write_jsonl(tmp_path / "d.jsonl", qa_rows(300)), name="d")
    token = CancelToken()

    class StopAfterTwoChunks(RecordingProgress):
        def update(self, completed, total=None):
            super().update(completed, total)
            if completed >= 128:
                token.cancel()

    with pytest.raises(Cancelled):
        embed_dataset(
            project,
            "d",
            embedder="hash",
            chunk_rows=64,
            registry=registry,
            progress=StopAfterTwoChunks(),
            cancel=token,
        )
    (partial,) = vectors.list_sets(project, "d")
    assert (partial.status, partial.committed_rows) == ("running", 128)
    assert project.runs("d")[-1].status == "cancelled"
    resumed = embed_dataset(project, "d", embedder="hash", chunk_rows=64, registry=registry)
    assert resumed.resumed_from == 128 and resumed.counts["embedded"] == 172

    import_dataset(project, write_jsonl(tmp_path / "e.jsonl", qa_rows(300)), name="e")
    straight = embed_dataset(
        project, "e", embedder="hash", chunk_rows=64, registry=registry, reuse=False
    )
    assert np.array_equal(
        vectors.load(project, "d", resumed.vector_set.name),
        vectors.load(project, "e", straight.vector_set.name),
    )


def test_identical_records_are_embedded_once(project, tmp_path, registry) -> None:
    import_dataset(project, write_jsonl(tmp_path / "a.jsonl", qa_rows(100)), name="a")
    embed_dataset(project, "a", embedder="hash", registry=registry)
    rows = qa_rows(100, start=50) + qa_rows(5, start=50)  # 50 old, 50 new, 5 repeated
    import_dataset(project, write_jsonl(tmp_path / "b.jsonl", rows), name="b")
    HashEmbedder.calls = []
    result = embed_dataset(project, "b", embedder="hash", registry=registry)
    assert (result.counts["reused"], result.counts["embedded"]) == (55, 50)
    assert sum(HashEmbedder.calls) == 50
    b = vectors.load(project, "b", result.vector_set.name)
    a = vectors.load(project, "a", result.vector_set.name)
    assert np.array_equal(b[:50], a[50:]) and np.array_equal(b[100:], a[50:55])


def test_fields_empty_and_truncated_texts(project, tmp_path, registry) -> None:
    rows = [{"prompt": "short", "response": ""}, {"prompt": "x" * 100, "response": "ok"}]
    import_dataset(project, write_jsonl(tmp_path / "f.jsonl", rows), name="f")
    result = embed_dataset(project, "f", embedder="hash", field="response", registry=registry)
    assert (result.counts["empty"], result.counts["truncated"]) == (1, 0)
    longer = embed_dataset(project, "f", embedder="hash", field="prompt", registry=registry)
    assert (longer.counts["empty"], longer.counts["truncated"]) == (0, 1)
    assert {s.name for s in vectors.list_sets(project, "f")} == {"hash/response", "hash/prompt"}


def test_field_choice(project, tmp_path) -> None:
    import_dataset(project, write_jsonl(tmp_path / "t.jsonl", [{"text": "doc"}]), name="t")
    assert resolve_field("auto", project.dataset("t").field_mapping) == "text"
    record = project.records("t", 0, 1)[0]
    assert text_of(record, "text") == "doc" and text_of(record, "prompt") == ""
    with pytest.raises(ProjectError, match="unknown field 'title'"):
        resolve_field("title", {})


def test_a_different_model_under_the_same_name_is_refused(project, tmp_path, registry) -> None:
    import_dataset(project, write_jsonl(tmp_path / "d.jsonl", qa_rows(10)), name="d")
    embed_dataset(project, "d", embedder="hash", name="vec", registry=registry)
    with pytest.raises(ProjectError, match="exists with other settings"):
        embed_dataset(
            project, "d", embedder="hash", params={"dim": 8}, name="vec", registry=registry
        )
