"""The ``openai`` generator against the real ``transformers serve`` (the bundled SmolLM2)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.plugins.generators._serve import TransformersServe, bundled_folder
from vendiscope.api import CancelToken, NullProgress, PluginError
from vendiscope.plugins.generators.openai_compat import OpenAIGenerator
from vendiscope.testing import check_generator

pytestmark = pytest.mark.slow

PROMPTS = [
    [{"role": "user", "content": "Name a colour."}],
    [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "Say hi."}],
    [{"role": "user", "content": "What is 2 + 2?"}],
]


@pytest.fixture(scope="module")
def serve(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TransformersServe]:
    log = tmp_path_factory.mktemp("serve") / "transformers-serve.log"
    with TransformersServe(bundled_folder(), log) as running:
        yield running


def generator(serve: TransformersServe, **params: object) -> OpenAIGenerator:
    params.setdefault("model", serve.model)
    params.setdefault("max_new_tokens", 8)
    return OpenAIGenerator(base_url=serve.url, **params)


def test_generates_through_the_server(serve: TransformersServe) -> None:
    out = generator(serve, concurrency=2).generate(
        PROMPTS, seed=0, progress=NullProgress(), cancel=CancelToken()
    )
    assert len(out) == 3
    for generation in out:
        assert generation.error is None, generation.error
        assert isinstance(generation.text, str) and generation.text.strip()
        assert generation.finish_reason in ("stop", "length")
        assert 0 < generation.tokens <= 8
        if generation.finish_reason == "length":
            assert generation.tokens == 8


def test_check_names_the_model(serve: TransformersServe) -> None:
    line = generator(serve).check()
    assert serve.model in line and "127.0.0.1" in line


def test_an_unknown_model_is_named(serve: TransformersServe) -> None:
    with pytest.raises(PluginError, match=r"does not serve the model 'no-such/model'"):
        generator(serve, model="no-such/model").generate(
            PROMPTS[:1], seed=0, progress=NullProgress(), cancel=CancelToken()
        )
    with pytest.raises(PluginError, match=rf"no-such/model.*serves: {serve.model}"):
        generator(serve, model="no-such/model").check()


def test_passes_the_conformance_kit_live(serve: TransformersServe) -> None:
    check_generator(
        OpenAIGenerator,
        params={"base_url": serve.url, "model": serve.model, "max_new_tokens": 6},
        live=True,
        deterministic=False,
    )
