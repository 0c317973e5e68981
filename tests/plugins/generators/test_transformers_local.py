"""The ``transformers`` generator on the real bundled SmolLM2-135M-Instruct, on the CPU."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from vendiscope.api import Cancelled, CancelToken, NullProgress, RecordingProgress
from vendiscope.plugins.generators.transformers_local import TransformersGenerator

pytestmark = pytest.mark.slow

PROMPTS = [
    [{"role": "user", "content": "Write one sentence about rivers."}],
    [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "Name a prime."}],
    [{"role": "user", "content": "Give me a word that rhymes with cat, then explain why."}],
]


@pytest.fixture(scope="module")
def generator() -> Iterator[TransformersGenerator]:
    """One instance (the model loads once); tests change its sampling attributes and restore.

    One torch thread: on a shared, busy CPU two spinning OpenMP threads run 10x slower.
    """
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield TransformersGenerator(device="cpu", batch_size=2, max_new_tokens=12)
    finally:
        torch.set_num_threads(threads)


def texts(generator: TransformersGenerator, prompts: Any = PROMPTS, seed: int = 0) -> list:
    out = generator.generate(prompts, seed=seed, progress=NullProgress(), cancel=CancelToken())
    return [g.text for g in out]


def test_results_and_finish_reasons(generator: TransformersGenerator) -> None:
    progress = RecordingProgress()
    out = generator.generate(PROMPTS, seed=0, progress=progress, cancel=CancelToken())
    assert len(out) == 3 and progress.updates == [(2, 3), (3, 3)]  # one update per batch
    for generation in out:
        assert isinstance(generation.text, str) and generation.error is None
        if generation.finish_reason == "length":
            assert generation.tokens == 12
        else:
            assert generation.finish_reason == "stop" and 0 < generation.tokens <= 12
    assert any(g.finish_reason == "length" for g in out)  # 12 tokens cut the long answers


def test_the_same_seed_gives_the_same_texts(generator: TransformersGenerator) -> None:
    first = texts(generator, seed=3)
    assert texts(generator, seed=3) == first
    assert texts(generator, seed=4) != first


def test_greedy_left_padding_gives_a_prompt_the_same_text_alone(
    generator: TransformersGenerator,
) -> None:
    """Left padding (and the attention mask) keep a batched prompt's greedy text unchanged."""
    generator.temperature, generator.batch_size = 0.0, 8
    try:
        batched = texts(generator)
        alone = [texts(generator, [prompt])[0] for prompt in PROMPTS]
    finally:
        generator.temperature, generator.batch_size = 0.8, 2
    assert batched == alone
    assert len({len(p[-1]["content"]) for p in PROMPTS}) == 3  # so the batch really was padded


def test_cancel_is_checked_between_batches(generator: TransformersGenerator) -> None:
    cancel = CancelToken()

    class CancelAfterFirstBatch(RecordingProgress):
        def update(self, completed: float, total: float | None = None) -> None:
            super().update(completed, total)
            cancel.cancel()

    progress = CancelAfterFirstBatch()
    with pytest.raises(Cancelled):
        generator.generate(PROMPTS, seed=0, progress=progress, cancel=cancel)
    assert progress.updates == [(2, 3)]


def test_no_model_is_loaded_for_nothing_or_bad_input() -> None:
    fresh = TransformersGenerator(device="cpu")
    assert fresh.generate([], seed=0, progress=NullProgress(), cancel=CancelToken()) == []
    with pytest.raises(ValueError, match="prompt 1"):
        fresh.generate([PROMPTS[0], [{"role": "robot", "content": "x"}]], seed=0,
                       progress=NullProgress(), cancel=CancelToken())  # fmt: skip
    assert "_loaded" not in fresh.__dict__
    model_id = fresh.model_id
    assert "SmolLM2-135M-Instruct" in model_id
    assert "temperature=0.8 top_p=0.95 max_new_tokens=256 batch_size=8" in model_id
