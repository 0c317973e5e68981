"""The ``openai`` generator against the real ``transformers serve`` (the bundled SmolLM2)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.plugins.generators._serve import TransformersServe, bundled_folder
from vendiscope.api import CancelToken, NullProgress, PluginError
from vendiscope.core.store.project import Project
from vendiscope.core.synthesis.job import synthesize
from vendiscope.core.synthesis.options import SynthesisOptions
from vendiscope.core.synthesis.probe import probe
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


SCHEMA = {
    "type": "object",
    "properties": {"prompt": {"type": "string"}, "response": {"type": "string"}},
    "required": ["prompt", "response"],
}


def test_structured_output_is_detected_as_ignored(serve: TransformersServe) -> None:
    """transformers serve takes ``response_format`` and ignores it (a warning in its log):
    the generator sees prose, says so, and asks field by field."""
    ask = [[{"role": "user", "content": "Tell me about the sea."}]]
    made = generator(serve, max_new_tokens=24, concurrency=1, timeout=120.0)
    out = made.generate(ask, seed=0, progress=NullProgress(), cancel=CancelToken(), schema=SCHEMA)
    note = made.structured_output_
    assert note.startswith("fields") and "did not follow the schema" in note
    if out[0].finish_reason == "stop":
        assert set(json.loads(out[0].text)) == {"prompt", "response"}


def test_a_synthesis_run_keeps_an_example(
    serve: TransformersServe, synthesis_project: Path
) -> None:
    """End to end: the job, the real server, the bundled model, measured timeout and
    concurrency, structured output (field by field here), a kept example, and --check."""
    params = {"base_url": serve.url, "model": serve.model, "max_new_tokens": 96}
    options = SynthesisOptions(
        generator="openai", generator_params=params, budget=2, filter="none", seed=1
    )
    with Project.open(synthesis_project) as project:
        checked = probe(project, "pool", options)
        assert checked.tokens > 0 and checked.seconds > 0 and "127.0.0.1" in checked.check
        assert checked.ok or checked.reason in ("truncated (token limit)", "empty output")
        report = synthesize(project, "pool", options)
        assert report.accepted >= 1
        kept = list(project.iter_records(report.name))
        assert kept and all(r.prompt and r.response for r in kept)
        first = report.rounds[0]
        assert first["prompts"] == 2  # sized to -n 2, not a full round of 8
        assert first["structured"].startswith("fields")
        run = project.runs()[-1]
        measured = run.result["generator_details"]
        assert measured["base_url"].startswith(serve.url)
