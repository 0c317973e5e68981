"""Records and names with terminal escapes are shown, never obeyed; --json stays faithful."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import write_jsonl
from vendiscope.cli import app

runner = CliRunner()
CLEAR, TITLE, RTL = "\x1b[2J", "\x1b]0;owned\x07", "\u202e"
HOSTILE = [
    {"question": f"clear{CLEAR} title{TITLE} rtl{RTL}evil", "answer": "ok", "source": "s\x1b[31m"},
    {"question": "second", "answer": "fine", "source": "plain"},
]


def project_with_hostile_records(tmp_path: Path) -> Path:
    location = tmp_path / "p.vscope"
    result = runner.invoke(
        app, ["import", str(location), str(write_jsonl(tmp_path / "h.jsonl", HOSTILE))]
    )
    assert result.exit_code == 0, result.output
    return location


def test_show_and_stats_neutralise_control_characters(tmp_path: Path) -> None:
    location = project_with_hostile_records(tmp_path)
    for command in (["show", str(location), "h"], ["stats", str(location), "h"]):
        out = runner.invoke(app, command).output
        assert "\x1b" not in out and "\u202e" not in out and "\x07" not in out
    shown = runner.invoke(app, ["show", str(location), "h"]).output
    assert "\\x1b[2J" in shown and "\\u202e" in shown


def test_json_output_is_faithful(tmp_path: Path) -> None:
    location = project_with_hostile_records(tmp_path)
    records = json.loads(runner.invoke(app, ["show", str(location), "h", "--json"]).output)
    assert records[0]["prompt"] == HOSTILE[0]["question"]


@pytest.mark.slow
def test_names_with_control_characters_are_refused(tmp_path: Path) -> None:
    location = project_with_hostile_records(tmp_path)
    data = write_jsonl(tmp_path / "more.jsonl", HOSTILE[1:])
    refused = runner.invoke(app, ["import", str(location), str(data), "--name", f"x{CLEAR}"])
    assert refused.exit_code == 1 and "dataset name 'x\\x1b[2J' is not valid" in refused.output
    subset = runner.invoke(
        app, ["subsets", "create", str(location), "h", f"s{RTL}", "--contains", "o"]
    )
    assert subset.exit_code == 1 and "subset name" in subset.output
    odd_file = write_jsonl(tmp_path / "odd\x1bname.jsonl", HOSTILE[1:])
    assert runner.invoke(app, ["import", str(location), str(odd_file)]).exit_code == 0
    names = [
        d["name"]
        for d in json.loads(runner.invoke(app, ["datasets", str(location), "--json"]).output)
    ]
    assert "odd_name" in names
