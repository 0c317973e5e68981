"""``vendiscope synthesize`` as a user runs it: exit codes and messages, JSON, templates."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import demo_rows
from tests.core.synthesis._server import example_server
from vendiscope.core.store.project import Project


@pytest.fixture
def location(synthesis_project: Path) -> Path:
    return synthesis_project


@pytest.fixture(scope="module")
def server() -> Iterator[dict[str, Any]]:
    rows = [{"prompt": r["prompt"], "response": r["response"]} for r in demo_rows(300, 420)]
    with example_server(rows) as seen:
        yield seen


def vendiscope(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "vendiscope", *args], capture_output=True, text=True, timeout=300
    )


def openai(location: Path, url: str, *extra: str) -> list[str]:
    return ["synthesize", str(location), "pool", "--generator", "openai", "--base-url", url,
            "--model", "scripted", "--prompts", "3", *extra]  # fmt: skip


@pytest.mark.slow
def test_json_output_holds_the_curve(location: Path, server: dict) -> None:
    done = vendiscope(*openai(location, server["url"], "-n", "3", "--json"))
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["accepted"] == 3 and found["name"] == "synth-1"
    assert found["rounds"][-1]["accepted_total"] == 3
    assert {"gvendi", "baseline", "reasons"} <= set(found["rounds"][0])


@pytest.mark.slow
def test_an_unreachable_server_is_named(location: Path) -> None:
    done = vendiscope(*openai(location, "http://127.0.0.1:9/v1", "-n", "2"))
    assert done.returncode != 0
    assert "127.0.0.1:9" in done.stderr and "Traceback" not in done.stderr
    with Project.open(location) as project:
        assert [d.name for d in project.datasets()] == ["pool"]


@pytest.mark.slow
def test_an_unknown_model_is_named(location: Path, server: dict) -> None:
    args = openai(location, server["url"], "-n", "2")
    args[args.index("scripted")] = "no-such-model"
    done = vendiscope(*args)
    assert done.returncode != 0 and "no-such-model" in done.stderr


@pytest.mark.slow
def test_a_first_round_of_rejects_stops_with_the_reasons(location: Path) -> None:
    with example_server([{"prompt": "x", "response": "y"}], mode="garbage") as garbage:
        args = openai(location, garbage["url"], "-n", "2", "-p", "structured=off")
        done = vendiscope(*args)
    assert done.returncode == 1
    assert "the first round gave no usable example: no JSON object (2)" in done.stderr
    assert "structured output" in done.stderr and "larger" in done.stderr
    with Project.open(location) as project:  # no empty synth-1 / synth-1-all left behind
        assert [d.name for d in project.datasets()] == ["pool"]
        assert project.runs()[-1].status == "failed"


@pytest.mark.slow
def test_check_makes_one_real_generation(location: Path, server: dict) -> None:
    done = vendiscope(*openai(location, server["url"], "-n", "20", "--check"))
    assert done.returncode == 0, done.stderr
    assert "parsed: {" in done.stdout and "-n 20: at least" in done.stdout
    # the scripted server takes response_format and answers prose around a fence: detected
    assert "structured output: fields" in done.stdout and "did not follow" in done.stdout
    found = json.loads(vendiscope(*openai(location, server["url"], "--check", "--json")).stdout)
    assert found["ok"] is True and set(found["values"]) == {"prompt", "response"}
    assert found["seconds"] > 0 and found["estimate_s"] >= found["seconds"]
    with Project.open(location) as project:  # nothing written
        assert [d.name for d in project.datasets()] == ["pool"]
        assert not [r for r in project.runs() if r.kind == "synthesis"]


@pytest.mark.slow
def test_check_says_why_an_answer_is_not_usable(location: Path) -> None:
    with example_server([{"prompt": "x", "response": "y"}], mode="garbage") as garbage:
        args = openai(location, garbage["url"], "--check", "-p", "structured=off")
        done = vendiscope(*args)
    assert done.returncode == 1
    assert "not usable: no JSON object" in done.stdout
    assert "I am sorry" in done.stdout and "advice:" in done.stdout


@pytest.mark.slow
def test_check_refuses_a_wrong_base_path(location: Path, tmp_path: Path) -> None:
    """A web server that is not an OpenAI-compatible API answers 404 on /v1/models."""
    import functools
    import threading
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(tmp_path))
    web = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=web.serve_forever, daemon=True).start()
    try:
        done = vendiscope(*openai(location, f"http://127.0.0.1:{web.server_address[1]}",
                                  "--check"))  # fmt: skip
    finally:
        web.shutdown()
        web.server_close()
    assert done.returncode == 1
    assert "no OpenAI-compatible API" in done.stderr and "HTTP 404" in done.stderr
    assert "base_url" in done.stderr


def test_timeout_and_concurrency_belong_to_the_openai_generator(location: Path) -> None:
    done = vendiscope("synthesize", str(location), "pool", "--timeout", "5")
    assert done.returncode == 2
    assert "--timeout is an option of the openai generator" in done.stderr


@pytest.mark.slow
def test_ctrl_c_cancels_the_run_and_exits_130(location: Path) -> None:
    import signal
    import time

    rows = [{"prompt": r["prompt"], "response": r["response"]} for r in demo_rows(300, 320)]
    with example_server(rows, delay=30.0) as slow:
        args = openai(location, slow["url"], "-n", "2", "--timeout", "60", "--concurrency", "1")
        process = subprocess.Popen(
            [sys.executable, "-m", "vendiscope", *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        deadline = time.monotonic() + 120
        while slow["requests"] == 0 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert slow["requests"] == 1, "the run never sent its first request"
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert "interrupted" in err and "synthesis run was closed as cancelled" in err
    assert "embeddings" not in err and "Traceback" not in err
    with Project.open(location) as project:
        run = project.runs()[-1]
        assert run.kind == "synthesis" and run.status == "cancelled"
        assert [d.name for d in project.datasets()] == ["pool"]


@pytest.mark.slow
def test_a_failed_run_is_not_resumed_against_another_server(location: Path, server: dict) -> None:
    with example_server([{"prompt": "x", "response": "y"}], mode="garbage") as garbage:
        failed = vendiscope(*openai(location, garbage["url"], "-n", "2", "-p", "structured=off"))
    assert failed.returncode == 1
    done = vendiscope(*openai(location, server["url"], "-n", "2", "-p", "structured=off",
                              "--json"))  # fmt: skip
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["name"] == "synth-2" and found["resumed_from_round"] == 0
    assert "resuming" not in done.stderr


@pytest.mark.slow
def test_a_template_is_written_for_editing(location: Path, tmp_path: Path) -> None:
    target = tmp_path / "template.txt"
    done = vendiscope("synthesize", str(location), "pool", "--write-template", str(target))
    assert done.returncode == 0, done.stderr
    text = target.read_text(encoding="utf-8")
    assert text.startswith("[system]") and "{examples}" in text
