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
def test_a_round_of_rejects_exits_with_the_top_reasons(location: Path) -> None:
    with example_server([{"prompt": "x", "response": "y"}], mode="garbage") as garbage:
        done = vendiscope(*openai(location, garbage["url"], "-n", "2", "--patience", "2"))
    assert done.returncode != 0
    assert "every output of rounds 1-2 was rejected" in done.stderr
    assert "no JSON object (6)" in done.stderr


@pytest.mark.slow
def test_a_template_is_written_for_editing(location: Path, tmp_path: Path) -> None:
    target = tmp_path / "template.txt"
    done = vendiscope("synthesize", str(location), "pool", "--write-template", str(target))
    assert done.returncode == 0, done.stderr
    text = target.read_text(encoding="utf-8")
    assert text.startswith("[system]") and "{examples}" in text
