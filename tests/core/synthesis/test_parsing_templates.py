"""Reading examples out of generated text, and the prompt templates."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vendiscope.core.synthesis.algorithms import parsing
from vendiscope.core.synthesis.algorithms.parsing import parse_example
from vendiscope.core.synthesis.algorithms.templates import (
    FAMILIES,
    family_for,
    load_template,
    parse_template,
    render,
)
from vendiscope.core.synthesis.records import Keys

KEYS = ["prompt", "response"]
GOOD = {"prompt": "Name a prime.", "response": "7"}


@pytest.mark.parametrize(
    "text",
    [
        json.dumps(GOOD),
        "```json\n" + json.dumps(GOOD) + "\n```",
        "Sure! Here is one:\n" + json.dumps(GOOD) + "\nHope it helps.",
        '{"note": 1}\n' + json.dumps(GOOD),  # the first object with every key wins
        json.dumps({**GOOD, "extra": "ignored"}),
    ],
)
def test_an_example_is_found_bare_fenced_or_embedded(text: str) -> None:
    assert parse_example(text, KEYS).values == GOOD


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", parsing.EMPTY),
        ("   ", parsing.EMPTY),
        ("no json here at all", parsing.NO_JSON),
        ('{"prompt": "unclosed', parsing.NO_JSON),
        ('{"prompt": "only"}', parsing.MISSING_KEY),
        ('{"prompt": "x", "response": ""}', parsing.EMPTY_VALUE),
        ('{"prompt": "x", "response": ["a"]}', parsing.NOT_TEXT),
        ('{"prompt": "x", "response": true}', parsing.NOT_TEXT),
    ],
)
def test_everything_else_is_a_reject_with_a_reason(text: str, reason: str) -> None:
    found = parse_example(text, KEYS)
    assert found.values is None and found.reason == reason


def test_a_cut_off_output_is_truncated_but_a_whole_object_survives_the_limit() -> None:
    cut = parse_example('{"prompt": "a", "respon', KEYS, finish_reason="length")
    assert cut.reason == parsing.TRUNCATED
    whole = parse_example(json.dumps(GOOD) + " and then it rambled on", KEYS,
                          finish_reason="length")  # fmt: skip
    assert whole.values == GOOD


def test_numbers_are_text_and_values_are_stripped() -> None:
    found = parse_example('{"prompt": " 2+2? ", "response": 4}', KEYS)
    assert found.values == {"prompt": "2+2?", "response": "4"}


def test_keys_follow_the_datasets_columns() -> None:
    mapping = {"roles": {"prompt": "question", "response": "answer", "source": "domain"}}
    keys = Keys.of(mapping)
    assert keys.names == ["question", "answer"]
    assert keys.roles == {"prompt": "question", "response": "answer"}
    joined = Keys.of({"roles": {"prompt": {"join": ["a", "b"]}, "response": "meta.out"}})
    assert joined.names == ["prompt", "response"]
    with pytest.raises(ValueError, match="no prompt, response or text"):
        Keys.of({"roles": {"source": "domain"}})


def test_the_family_fits_the_dataset() -> None:
    assert family_for(["question", "answer"], {}) == "qa"
    assert family_for(["premise", "hypothesis", "label"], {"label": "label"}) == "nli"
    assert family_for(["problem", "solution"], {}) == "math"
    assert family_for(["prompt", "response"], {}) == "instruction"


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_every_family_renders_the_examples_and_the_answer_format(family: str) -> None:
    template = load_template(family, ["premise", "label"], {"label": "label"})
    examples = [{"premise": "A cat sleeps.", "label": "entailment"},
                {"premise": "Rain", "label": "neutral"}]  # fmt: skip
    messages = render(template, examples, ["premise", "label"], label_key="label")
    assert [m["role"] for m in messages] == ["system", "user"]
    user = messages[-1]["content"]
    assert '"premise": "A cat sleeps."' in user
    assert '{"premise": "...", "label": "..."}' in user
    if family == "nli":
        assert "entailment, neutral" in user


def test_a_template_file_is_checked(tmp_path: Path) -> None:
    path = tmp_path / "mine.txt"
    path.write_text("[user]\nMake one like these:\n{examples}\nKeys: {keys} {{literal}}\n")
    template = load_template(str(path), KEYS, {})
    assert template.name == "mine.txt" and not template.system
    content = render(template, [GOOD], KEYS)[0]["content"]
    assert "{literal}" in content and '"prompt", "response"' in content
    with pytest.raises(ValueError, match=r"unknown placeholder \{topic\}"):
        parse_template("[user]\n{examples} {topic}", "bad.txt")
    with pytest.raises(ValueError, match="must contain"):
        parse_template("[user]\nno examples", "bad.txt")
    with pytest.raises(ValueError, match="before the first"):
        parse_template("hello\n[user]\n{examples}", "bad.txt")
    with pytest.raises(ValueError, match="neither a family"):
        load_template(str(tmp_path / "missing.txt"), KEYS, {})
    (tmp_path / "latin1.txt").write_bytes("[user]\n{examples} caf\xe9".encode("latin-1"))
    with pytest.raises(ValueError, match="not UTF-8"):
        load_template(str(tmp_path / "latin1.txt"), KEYS, {})


def test_raw_line_breaks_in_a_value_are_taken() -> None:
    """Models (and constrained decoders) write raw line breaks inside strings."""
    from vendiscope.core.synthesis.algorithms.parsing import parse_example

    found = parse_example(
        '{"prompt": "Two lines:\nhere", "response": "ok\tdone"}', ["prompt", "response"]
    )
    assert found.values == {"prompt": "Two lines:\nhere", "response": "ok\tdone"}


def test_the_example_schema_names_every_key() -> None:
    from vendiscope.core.synthesis.algorithms.templates import example_schema

    schema = example_schema(["question", "answer"])
    assert schema["required"] == ["question", "answer"]
    assert schema["properties"]["answer"] == {"type": "string", "minLength": 1}
    assert schema["additionalProperties"] is False
