"""The LLM judge's rubric file and the reading of its replies: the built-in rubric parses and
renders a record; every kind of error is refused with the file and the line; replies are read
as JSON, as plain text, or not at all (with the reason)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from vendiscope.core.base.errors import PluginError
from vendiscope.core.signals.algorithms.judgement import failure_of, parse_judgement
from vendiscope.core.signals.algorithms.rubric import (
    ANSWER,
    MISSING,
    RubricError,
    builtin_rubric_text,
    load_rubric,
    parse_rubric,
)
from vendiscope.core.signals.judge import parse_generator_params

GOOD = """notes for people {ignored}

## Instructions
Rate the answer.

## Scale
- 1: bad
- 2: poor
3 = fair
4: good
5: great

## Template
Q: {prompt}
A: {response}
Braces: {{literal}}
"""


def test_the_builtin_rubric_parses_and_renders_a_record() -> None:
    rubric = load_rubric()
    assert rubric.name == "built-in" and [s for s, _ in rubric.scale] == [1, 2, 3, 4, 5]
    assert load_rubric("") == rubric  # empty: the built-in one
    messages = rubric.messages({"prompt": "Add 2 and 2.", "response": "4"}, max_chars=1000)
    assert [m["role"] for m in messages] == ["system", "user"]
    assert messages[0]["content"].endswith(ANSWER) and "5: Excellent" in messages[0]["content"]
    assert "Add 2 and 2." in messages[1]["content"] and "{" not in messages[1]["content"]


def test_a_rubric_file_with_its_own_scale_and_template(tmp_path: Path) -> None:
    path = tmp_path / "mine.md"
    path.write_text(GOOD, encoding="utf-8")
    rubric = load_rubric(path)
    assert rubric.name == "mine.md" and rubric.scale[2] == (3, "fair")
    text = rubric.user_prompt({"prompt": "x" * 50, "response": None}, max_chars=10)
    assert text == f"Q: {'x' * 10} [...]\nA: {MISSING}\nBraces: {{literal}}"
    assert rubric.digest != load_rubric().digest


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda t: t.replace("## Scale", "## Grades"), r"mine\.md, line 6: unknown section"),
        (lambda t: t.replace("4: good\n", ""), r"mine\.md, line 6: .*no line for score 4"),
        (lambda t: t.replace("5: great", "6: perfect"), r"mine\.md, line 11: score 6 is not"),
        (lambda t: t.replace("5: great", "3: again"), r"mine\.md, line 11: score 3 appears twice"),
        (lambda t: t.replace("5: great", "five is great"), r"mine\.md, line 11: a scale line"),
        (lambda t: t.replace("A: {response}", "A: {answer}"), r"line 15: unknown placeholder"),
        (lambda t: t.replace("A: {response}", "A: none"), r"line 13: .*neither {response}"),
        (lambda t: t.replace("{{literal}}", "{literal"), r"mine\.md, line 16: .*brace"),
        (lambda t: t.replace("Rate the answer.", ""), r"line 3: .*Instructions' section is empty"),
        (lambda t: t.split("## Template")[0], r"rubric mine\.md: no '## Template' section"),
        (lambda t: t + "## Scale\n1: x\n", r"line 17: .*'## Scale' appears twice"),
    ],
)
def test_a_rubric_with_an_error_is_refused_with_file_and_line(tmp_path, edit, message) -> None:
    path = tmp_path / "mine.md"
    path.write_text(edit(GOOD), encoding="utf-8")
    with pytest.raises(RubricError, match=message):
        load_rubric(path)


def test_an_unreadable_rubric_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(RubricError, match=r"rubric .*nothing\.md: cannot be read"):
        load_rubric(tmp_path / "nothing.md")
    binary = tmp_path / "binary.md"
    binary.write_bytes(b"\xff\xfe\x00bad")
    with pytest.raises(RubricError, match=r"binary\.md: not UTF-8"):
        load_rubric(binary)
    with pytest.raises(RubricError, match="rubric x: no '## Instructions'"):
        parse_rubric("", "x")


@pytest.mark.parametrize(
    ("reply", "rating", "reason"),
    [
        ('{"rating": "4", "reason": "Correct and clear."}', 4, "Correct and clear."),
        ('```json\n{"rating": 2, "reason": "Wrong sum."}\n```', 2, "Wrong sum."),
        ('Sure! {"rating": "5/5", "reason": "ok"} Hope that helps.', 5, "ok"),
        ("Rating: 3\nReason: partly right", 3, "partly right"),
        ("I would give it 4/5 because it is fine.", 4, "I would give it 4/5 because it is fine."),
        ("2 - misses the question", 2, "2 - misses the question"),
    ],
)
def test_replies_are_read_as_json_or_plain_text(reply, rating, reason) -> None:
    judged = parse_judgement(reply)
    assert judged.failure is None
    assert judged.rating == rating and judged.reason == reason
    assert failure_of(judged.text) is None


@pytest.mark.parametrize(
    ("reply", "finish", "failure"),
    [
        ("", "stop", "the reply was empty"),
        ('{"rating": "4.5", "reason": "x"}', "stop", "the rating '4.5' is not a whole number 1-5"),
        ('{"rating": 9, "reason": "x"}', "stop", "the rating 9 is not a whole number 1-5"),
        ("It is a nice answer overall", "stop", "no rating 1-5 in the reply"),
        ('{"reason": "The response is', "length", "cut at max_new_tokens before a rating"),
    ],
)
def test_an_unreadable_reply_is_nan_with_its_reason(reply, finish, failure) -> None:
    judged = parse_judgement(reply, finish)
    assert math.isnan(judged.rating)
    assert judged.failure is not None and failure in judged.failure
    assert failure_of(judged.text) == judged.failure


def test_generator_params_are_name_value_pairs() -> None:
    found = parse_generator_params("base_url=http://h:8/v1?a=b, model=m ;max-new-tokens=9\n")
    assert found == {"base_url": "http://h:8/v1?a=b", "model": "m", "max_new_tokens": "9"}
    assert parse_generator_params("") == {}
    with pytest.raises(PluginError, match="'model' is not NAME=VALUE"):
        parse_generator_params("base_url=x, model")


def test_the_builtin_rubric_text_is_the_shipped_file() -> None:
    assert builtin_rubric_text().startswith("# Response quality")
    assert parse_rubric(builtin_rubric_text(), "copy").digest == load_rubric().digest


def test_the_guide_shows_the_builtin_rubric_as_shipped() -> None:
    guide = (Path(__file__).resolve().parents[3] / "docs" / "signals.md").read_text("utf-8")
    assert builtin_rubric_text().strip() in guide


def test_a_record_with_nothing_to_judge_is_not_sent() -> None:
    from tests.plugins._judge_server import JudgeServer, judge_params
    from vendiscope.api import CancelToken, NullProgress
    from vendiscope.core.signals.judge import JudgeSettings

    server = JudgeServer()
    try:
        params = judge_params(server)
        settings = JudgeSettings(params["generator"], params["generator_params"], "", 4000)
        records = [
            {"prompt": "Say something.", "response": "  "},
            {"prompt": "What is 3 + 3?", "response": "6"},
        ]
        judged = settings.judge(
            settings.create_generator(), records, progress=NullProgress(), cancel=CancelToken()
        )
    finally:
        server.close()
    assert (
        math.isnan(judged[0].rating) and judged[0].text == "not judged: the record has no response"
    )
    assert failure_of(judged[0].text) is None  # not counted as an unreadable reply
    assert judged[1].rating == 4 and server.judged == [3]  # only the other record was sent
