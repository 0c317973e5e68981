"""`vendiscope signals` and `clean` on real records, driven as a user drives them: the built-in
signals flag what they should, the clean-up keeps the rest as a subset and says what each rule
removed, a stopped run resumes, bad input is refused by name with the project unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from tests.conftest import table_counts, write_jsonl
from vendiscope.cli import app
from vendiscope.core.store.project import Project

runner = CliRunner()
BENCHMARK = (
    "A farmer has seventeen sheep and all but nine run away through a gap in the fence one "
    "night; how many sheep does the farmer have left in the field in the morning?"
)
ROWS = [
    {"prompt": "How do I reach support?", "response": "Write to jane.doe@example.com today."},
    {"prompt": "Call me", "response": "My number is +44 20 7946 0958, call after six."},
    {"prompt": "Pay", "response": "Use card 4111 1111 1111 1111 for the test payment."},
    {"prompt": "Welche Farbe hat der Himmel?", "response": "Der Himmel ist an klaren Tagen blau."},
    {"prompt": "Quiz", "response": BENCHMARK.replace("A farmer", "Puzzle: a farmer")},
    {"prompt": "Tell me about rivers.", "response": "Rivers carry water from hills to the sea."},
    {"prompt": "Say nothing", "response": ""},
    {"prompt": "Name three colours.", "response": "Red, green and blue are three colours."},
]


def run(*args: object, ok: bool = True):
    result = runner.invoke(app, [str(a) for a in args])
    if ok:
        assert result.exit_code == 0, result.output
    return result


@pytest.fixture
def project(tmp_path: Path) -> Path:
    location = tmp_path / "p.vscope"
    run("new", location)
    run("import", location, write_jsonl(tmp_path / "chat.jsonl", ROWS), "--name", "chat")
    bench = [{"question": BENCHMARK, "answer": "nine"}]
    run("import", location, write_jsonl(tmp_path / "bench.jsonl", bench), "--name", "bench")
    return location


def test_signals_flag_pii_language_and_contamination_then_clean_keeps_the_rest(project) -> None:
    found = json.loads(run("signals", project, "chat", "--json").output)
    assert found["signals"] == [
        "signals/text-stats", "signals/pii", "signals/language", "signals/lexical-dups",
    ]  # fmt: skip
    summary = {c["column"]: c["summary"] for c in found["columns"]}
    assert summary["pii.pii"].startswith("3 flagged")
    assert summary["text-stats.empty-response"].startswith("1 flagged")
    run("signals", project, "chat", "-s", "contamination", "--target", "bench")
    with Project.open(project) as opened:
        from vendiscope.core.signals.reading import signal_columns, where

        columns = signal_columns(opened, "chat")
        assert where(opened, "chat", "email").tolist() == [True] + [False] * 7
        assert (
            where(opened, "chat", "phone").tolist()[1] and where(opened, "chat", "payment-card")[2]
        )
        assert columns["language"].labels()[3] == "de"
        assert where(opened, "chat", "contaminated").tolist() == [False] * 4 + [True] + [False] * 3
    cleaned = json.loads(run(
        "clean", project, "chat", "--drop", "pii,contaminated", "--drop", "empty-response",
        "--keep", "language == en", "--name", "clean", "--json",
    ).output)  # fmt: skip
    assert [r["removed"] for r in cleaned["rules"]] == [3, 1, 1, 1]
    assert cleaned["kept"] == 2 and cleaned["subset"] == "clean"
    with Project.open(project) as opened:
        assert opened.dataset("chat").row_count == 8  # never deleted
        assert opened.subset("chat", "clean").size == 2


def test_bad_input_is_refused_by_name_and_leaves_the_project_unchanged(project) -> None:
    counts = table_counts(project)
    cases = [
        (("signals", project, "chat", "-s", "nope"), "no signal named 'nope'"),
        (("signals", project, "chat", "-s", "contamination"), "--target"),
        (("signals", project, "chat", "-s", "contamination", "--target", "gone"), "gone"),
        (("signals", project, "chat", "-s", "pii", "-p", "role=poem"), "role"),
        (("clean", project, "chat", "--drop", "pii", "--name", "x"), "no signal column 'pii'"),
        (("clean", project, "chat", "--name", "x"), "nothing to clean by"),
    ]
    for args, message in cases:
        result = run(*args, ok=False)
        assert result.exit_code != 0 and message in result.output, (args, result.output)
    assert table_counts(project) == counts


def test_the_python_api_computes_filters_and_cleans(project) -> None:
    import vendiscope as vs

    with vs.open(project, progress=False) as p:
        (done,) = p.signals("chat", "pii")
        assert done.vector_set.name == "signals/pii"
        assert p.where("chat", "pii").sum() == 3
        report = p.clean("chat", drop=["pii"], name="no-pii")
        assert report.kept == 5 and [r.removed for r in report.rules] == [3]


def test_lexical_duplicates_flag_every_copy_but_the_first(project, tmp_path) -> None:
    story = "The old lighthouse keeper climbed the spiral stairs every evening to light the lamp"
    rows = [
        {"prompt": "Tell a story.", "response": story + "."},
        {"prompt": "Tell a story.", "response": story + "!"},  # a near-copy
        {"prompt": "Tell a story.", "response": story + " again."},
        {"prompt": "Name a colour.", "response": "Blue."},
    ]
    run("import", project, write_jsonl(tmp_path / "stories.jsonl", rows), "--name", "stories")
    run("signals", project, "stories", "-s", "lexical-dups", "-p", "threshold=0.7")
    with Project.open(project) as opened:
        from vendiscope.core.signals.reading import where

        assert where(opened, "stories", "lexical-dups").tolist() == [False, True, True, False]
    bad = run("signals", project, "stories", "-s", "lexical-dups", "-p", "size=2", ok=False)
    assert "no parameter 'size'" in bad.output


def test_export_redacts_personal_data_and_says_so_in_the_manifest(project, tmp_path) -> None:
    out = tmp_path / "out.jsonl"
    run("export", project, "chat", out, "--redact", "pii")
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert rows[0]["response"] == "Write to [EMAIL] today."
    assert "[PHONE]" in rows[1]["response"] and "[CARD]" in rows[2]["response"]
    assert rows[3] == ROWS[3]  # untouched
    manifest = json.loads(out.with_name("out.jsonl.manifest.json").read_text(encoding="utf-8"))
    assert manifest["redaction"]["kind"] == "pii" and manifest["redaction"]["rows_changed"] == 3
    with Project.open(project) as opened:  # the project keeps the originals
        assert "jane.doe@example.com" in opened.records("chat", 0, 1)[0].response
    bad = run("export", project, "chat", tmp_path / "x.jsonl", "--redact", "names", ok=False)
    assert "unknown kind 'names'" in bad.output and not (tmp_path / "x.jsonl").exists()


def test_the_proxy_loss_is_computed_when_named(project, tiny_lm) -> None:
    run("signals", project, "chat", "-s", "proxy-loss", "-p", f"model={tiny_lm}")
    with Project.open(project) as opened:
        from vendiscope.core.signals.reading import signal_columns

        columns = signal_columns(opened, "chat")
        loss = columns["loss"].values
        assert np.isfinite(loss[:6]).all() and (loss[:6] > 0).all()
        assert np.allclose(columns["perplexity"].values[:6], np.exp(loss[:6]), rtol=1e-4)


# ----------------------------------------------------------------------------- the LLM judge
@pytest.fixture
def judge_server():
    from tests.plugins._judge_server import JudgeServer

    running = JudgeServer()
    yield running
    running.close()


def judge_options(server) -> list[str]:
    from tests.plugins._judge_server import judge_params

    params = judge_params(server)
    return [
        "-s", "llm-judge", "-p", f"generator={params['generator']}",
        "-p", f"generator_params={params['generator_params']}",
    ]  # fmt: skip


def test_the_llm_judge_estimates_then_rates_and_counts_unreadable_replies(
    project, tmp_path, judge_server
) -> None:
    from tests.conftest import qa_rows
    from tests.plugins._judge_server import UNREADABLE, expected_rating

    run("import", project, write_jsonl(tmp_path / "qa.jsonl", qa_rows(9)), "--name", "qa")
    counts = table_counts(project)
    shown = run("signals", project, "qa", *judge_options(judge_server), "--estimate")
    assert "9 records to judge" in shown.output and "new tokens" in shown.output
    found = json.loads(
        run("signals", project, "qa", *judge_options(judge_server), "--estimate", "--json").output
    )
    assert found["estimate"]["records"] == 9 and found["estimate"]["new_tokens"] == 9 * 20
    assert table_counts(project) == counts  # the estimate writes nothing
    done = run("signals", project, "qa", *judge_options(judge_server))
    assert done.output.index("Estimate") < done.output.index("signals/llm-judge")
    assert "1 record has no rating" in done.output
    document = json.loads(
        run("signals", project, "qa", *judge_options(judge_server), "--json").output
    )  # already complete: nothing judged again
    assert document["llm-judge"]["unreadable"] == {
        "the rating 'hard to say' is not a whole number 1-5": 1
    }
    with Project.open(project) as opened:
        from vendiscope.core.signals.reading import signal_columns, signal_texts

        ratings = signal_columns(opened, "qa")["rating"].values
        np.testing.assert_allclose(ratings, [expected_rating(i) for i in range(9)], equal_nan=True)
        assert signal_texts(opened, "qa")["reason"][UNREADABLE].startswith("could not read")


def test_write_rubric_then_a_broken_rubric_is_refused_with_the_project_unchanged(
    project, tmp_path, judge_server
) -> None:
    from vendiscope.core.signals.algorithms.rubric import builtin_rubric_text

    rubric = tmp_path / "rubric.md"
    shown = run("signals", project, "chat", "--write-rubric", rubric)
    assert "--param rubric=" in shown.output
    assert rubric.read_text(encoding="utf-8") == builtin_rubric_text()
    rubric.write_text(builtin_rubric_text().replace("{response}", "{answer}"), encoding="utf-8")
    counts = table_counts(project)
    for extra in ([], ["--estimate"]):
        bad = run("signals", project, "chat", *judge_options(judge_server),
                  "-p", f"rubric={rubric}", *extra, ok=False)  # fmt: skip
        assert bad.exit_code == 1
        assert "rubric rubric.md, line" in bad.output and "{answer}" in bad.output
    assert table_counts(project) == counts
    assert judge_server.judged == []
    wrong = run("signals", project, "chat", "-s", "pii", "--estimate", ok=False)
    assert wrong.exit_code == 2 and "--estimate goes with --signal llm-judge" in wrong.output
