"""The ``transformers`` generator on the real bundled SmolLM2-135M-Instruct, on the CPU."""

from __future__ import annotations

import json
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
    assert len(out) == 3 and progress.updates[-1] == (3, 3)
    done = [completed for completed, _ in progress.updates]
    assert done == sorted(done) and 2 in done  # per example as each ends, and per batch
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


def test_cancel_stops_a_batch_within_a_token_step(generator: TransformersGenerator) -> None:
    cancel = CancelToken()

    class CancelAtFirstUpdate(RecordingProgress):
        def update(self, completed: float, total: float | None = None) -> None:
            super().update(completed, total)
            cancel.cancel()

    progress = CancelAtFirstUpdate()
    with pytest.raises(Cancelled):
        generator.generate(PROMPTS, seed=0, progress=progress, cancel=cancel)
    assert len(progress.updates) == 1 and progress.updates[0][0] <= 2  # the first batch


SCHEMA = {
    "type": "object",
    "properties": {"prompt": {"type": "string"}, "response": {"type": "string"}},
    "required": ["prompt", "response"],
    "additionalProperties": False,
}
ASK_JSON = [
    [{"role": "user", "content": 'Write a new example like {"prompt": "Name a fruit", '
                                 '"response": "Apple"} as one JSON object.'}],
    [{"role": "user", "content": "Tell me a story about a dragon."}],
]  # fmt: skip


def test_a_schema_constrains_the_bundled_model_to_it(generator: TransformersGenerator) -> None:
    """Even a prompt that asks for prose gets the object (lm-format-enforcer masks tokens)."""
    generator.max_new_tokens = 64
    try:
        out = generator.generate(
            ASK_JSON, seed=1, progress=NullProgress(), cancel=CancelToken(), schema=SCHEMA
        )
    finally:
        generator.max_new_tokens = 12
    assert generator.structured_output_.startswith("json_schema")
    assert generator.describe()["structured_output"] == generator.structured_output_
    for generation in out:
        if generation.finish_reason == "stop":
            found = json.loads(generation.text)
            assert set(found) == {"prompt", "response"}
            assert all(isinstance(v, str) for v in found.values())
        else:  # cut at the token limit: the object's start, never prose
            assert generation.text.lstrip().startswith("{")
    assert any(g.finish_reason == "stop" for g in out)


def test_structured_off_and_a_bad_schema(generator: TransformersGenerator) -> None:
    bad = {"type": "object", "properties": {"x": {"type": "int"}}}
    with pytest.raises(ValueError, match="schema property 'x' must be a string"):
        generator.generate(ASK_JSON, seed=0, progress=NullProgress(), cancel=CancelToken(),
                           schema=bad)  # fmt: skip
    generator.structured = "off"
    try:
        generator.generate(ASK_JSON[:1], seed=0, progress=NullProgress(), cancel=CancelToken(),
                           schema=SCHEMA)  # fmt: skip
    finally:
        generator.structured = "auto"
    assert generator.structured_output_.startswith("off")


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


def test_the_enforcer_offers_whole_characters_only(generator: TransformersGenerator) -> None:
    """A byte of a character (half an emoji) would end a constrained string mid-way."""
    from vendiscope.plugins.generators.transformers_local import _tokenizer_data

    data = _tokenizer_data(generator._load()[1])
    assert data.regular_tokens and all("\ufffd" not in text for _, text, _ in data.regular_tokens)
