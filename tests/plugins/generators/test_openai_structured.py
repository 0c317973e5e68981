"""Structured output of the ``openai`` generator: asked for, detected, and the fallback.

A real loopback server plays three kinds of backend: one that honours ``response_format``
(vLLM, llama.cpp's server), one that refuses it (HTTP 400) and one that accepts and ignores
it (``transformers serve``). Each must end with well-formed examples and say how.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.plugins.generators.test_openai_faults import Seen, Server, completion
from vendiscope.api import CancelToken, NullProgress, PluginError
from vendiscope.plugins.generators._structured import field_value
from vendiscope.plugins.generators.openai_compat import OpenAIGenerator

SCHEMA = {
    "type": "object",
    "properties": {"prompt": {"type": "string", "minLength": 1},
                   "response": {"type": "string", "minLength": 1}},
    "required": ["prompt", "response"],
    "additionalProperties": False,
}  # fmt: skip
PROMPTS = [[{"role": "user", "content": f"Write example {i} as JSON."}] for i in range(3)]


@pytest.fixture
def server() -> Iterator[Server]:
    running = Server()
    yield running
    running.close()


def make(server: Server, **params: Any) -> OpenAIGenerator:
    params.setdefault("concurrency", 1)
    params.setdefault("timeout", 10.0)
    return OpenAIGenerator(base_url=server.url, model="tiny-model", **params)


def run(generator: OpenAIGenerator, prompts: Any = PROMPTS) -> list:
    return generator.generate(
        prompts, seed=0, progress=NullProgress(), cancel=CancelToken(), schema=SCHEMA
    )


def prose_or_field(number: int, seen: Seen) -> tuple[int, dict[str, str], bytes]:
    """A model that writes prose unless asked for one field, then writes it with a label."""
    last = seen.body["messages"][-1]["content"]
    if "'prompt'" in last:
        return 200, {}, json.dumps(completion("Prompt: Name a river in Peru.")).encode()
    if "'response'" in last:
        return 200, {}, json.dumps(completion('"The Amazon."')).encode()
    return 200, {}, json.dumps(completion("Sure! Here is a lovely example for you.")).encode()


def test_a_server_that_honours_the_schema_gets_it(server: Server) -> None:
    def structured(number: int, seen: Seen) -> tuple[int, dict[str, str], bytes]:
        """Whatever it is asked, the answer is an object of the schema (enum: its value)."""
        schema = seen.body["response_format"]["json_schema"]["schema"]
        answer = {
            key: spec["enum"][0] if "enum" in spec else f"{key}{number}"
            for key, spec in schema["properties"].items()
        }
        return 200, {}, json.dumps(completion(json.dumps(answer))).encode()

    server.script.respond = structured
    generator = make(server)
    out = run(generator)
    # one probe of the schema first (an unrelated question: only enforcement gives the object)
    probe = server.posts()[0].body
    assert probe["response_format"]["json_schema"]["schema"]["properties"]["ok"]["enum"]
    assert [json.loads(g.text)["prompt"] for g in out] == ["prompt2", "prompt3", "prompt4"]
    assert generator.structured_output_.startswith("json_schema")
    assert len(server.posts()) == 1 + 3
    assert server.posts()[1].body["response_format"]["json_schema"]["schema"] == SCHEMA
    run(generator, PROMPTS[:1])  # probed once per generator
    assert len(server.posts()) == 1 + 3 + 1
    body = server.posts()[1].body
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["strict"] is True


def test_a_server_that_refuses_the_schema_is_asked_field_by_field(server: Server) -> None:
    def refuse(number: int, seen: Seen) -> tuple[int, dict[str, str], bytes]:
        if "response_format" in seen.body:
            message = {"error": {"message": "response_format is not supported"}}
            return 400, {}, json.dumps(message).encode()
        return prose_or_field(number, seen)

    server.script.respond = refuse
    generator = make(server)
    out = run(generator)
    for generation in out:
        assert json.loads(generation.text) == {
            "prompt": "Name a river in Peru.",
            "response": "The Amazon.",
        }
        assert generation.finish_reason == "stop" and generation.tokens == 6
    note = generator.structured_output_
    assert note.startswith("fields") and "refused response_format" in note
    assert "HTTP 400: response_format is not supported" in note
    # one refusal, then two plain requests per example: never the schema again
    with_schema = [s for s in server.posts() if "response_format" in s.body]
    assert len(with_schema) == 1 and len(server.posts()) == 1 + 2 * 3
    # the second field's request carries the first field as the assistant's answer
    second = server.posts()[2].body["messages"]
    assert second[-2] == {"role": "assistant", "content": "Name a river in Peru."}
    # a later call knows already
    run(generator, PROMPTS[:1])
    assert len(server.posts()) == 7 + 2
    assert server.posts()[0].body["max_tokens"] == 16  # the probe was the refused one


def test_a_server_that_ignores_the_schema_is_detected(server: Server) -> None:
    server.script.respond = prose_or_field  # takes response_format, writes prose anyway
    generator = make(server)
    out = run(generator)
    assert all(json.loads(g.text)["response"] == "The Amazon." for g in out)
    note = generator.structured_output_
    assert note.startswith("fields") and "did not follow the schema" in note
    assert generator.describe()["structured_output"] == note


def test_json_schema_only_refused_is_an_error(server: Server) -> None:
    server.script.respond = lambda n, s: (400, {}, b'{"error": {"message": "unknown json_schema"}}')
    with pytest.raises(PluginError, match=r"does not give structured output.*unknown json_schema"):
        run(make(server, structured="json_schema"))


def test_structured_off_sends_the_prompt_alone(server: Server) -> None:
    generator = make(server, structured="off")
    out = run(generator, PROMPTS[:1])
    assert out[0].text == "WRITE EXAMPLE 0 AS JSON."
    assert "response_format" not in server.posts()[0].body
    assert generator.structured_output_.startswith("off")


def test_no_schema_no_response_format(server: Server) -> None:
    generator = make(server)
    generator.generate(PROMPTS[:1], seed=0, progress=NullProgress(), cancel=CancelToken())
    assert "response_format" not in server.posts()[0].body
    assert generator.structured_output_ is None


def test_a_bad_schema_names_the_field(server: Server) -> None:
    with pytest.raises(ValueError, match="schema must name the object's properties"):
        make(server).generate(PROMPTS, seed=0, progress=NullProgress(), cancel=CancelToken(),
                              schema={"type": "object"})  # fmt: skip
    assert server.posts() == []


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Name a river.", "Name a river."),
        ("Prompt: Name a river.", "Name a river."),
        ("**prompt**: Name a river.", "Name a river."),
        ('"Name a river."', "Name a river."),
        ("```\nName a river.\n```", "Name a river."),
        ('{"prompt": "Name a river.", "response": "x"}', "Name a river."),
        ('Here: ```json\n{"prompt": "Name a river."}\n```', "Name a river."),
        ("Question: why?", "Question: why?"),  # another label is the text itself
    ],
)
def test_a_field_is_read_out_of_plain_text(text: str, value: str) -> None:
    assert field_value(text, "prompt") == value


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('{"prompt": "Name a river.", "response": "The Ama', "Name a river."),
        ("Name a river. Then name a sea. And", "Name a river. Then name a sea."),
        ("Name a river and then", None),
        ('```json\n{\n  "prompt": "Say \\"hi\\".",\n  "resp', 'Say "hi".'),
    ],
)
def test_a_field_cut_at_the_token_limit_keeps_what_is_whole(text: str, value: str | None) -> None:
    assert field_value(text, "prompt", cut=True) == value
