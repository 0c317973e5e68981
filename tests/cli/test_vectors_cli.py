"""`embed`, `vectors` and `score` on the command line, with the real bundled encoder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from vendiscope.cli._app import app

DEMO = Path(__file__).resolve().parents[2] / "vendiscope" / "resources" / "demo" / "demo.jsonl"
runner = CliRunner()


def run(*args, ok: bool = True):
    result = runner.invoke(app, [str(a) for a in args])
    if ok:
        assert result.exit_code == 0, result.output
    return result


@pytest.mark.slow
def test_embed_list_and_score(tmp_path: Path) -> None:
    source = tmp_path / "demo.jsonl"
    source.write_bytes(b"\n".join(DEMO.read_bytes().splitlines()[:120]) + b"\n")
    project = tmp_path / "p.vscope"
    run("import", project, source, "--name", "demo")

    out = run("embed", project, "demo", "--batch-size", "32").output
    assert "sentence-transformers/prompt+response: 120 x 384" in out
    assert "already complete" in run("embed", project, "demo").output

    listing = json.loads(run("vectors", project, "demo", "--json").output)
    assert [(v["name"], v["status"], v["n_rows"]) for v in listing] == [
        ("sentence-transformers/prompt+response", "complete", 120)
    ]

    scored = json.loads(run("score", project, "demo", "--metric", "vendi", "--json").output)
    assert 1.0 < scored["value"] < 120
    assert scored["n"] == 120 and set(scored["per_source"]) >= {"arithmetic", "code"}
    text = run("score", project, "demo", "--metric", "vendi").output
    assert "effective number of distinct examples" in text

    missing = run("score", project, "demo", ok=False)
    assert missing.exit_code == 1 and "run `vendiscope gradients` first" in missing.output


@pytest.mark.slow
def test_gradients_then_gvendi(tmp_path: Path) -> None:
    source = tmp_path / "demo.jsonl"
    source.write_bytes(b"\n".join(DEMO.read_bytes().splitlines()[:24]) + b"\n")
    project = tmp_path / "p.vscope"
    run("import", project, source, "--name", "demo")
    out = run("gradients", project, "demo", "--batch-size", "8", "-p", "max_length=128").output
    assert "gradients/fast: 24 x 1024" in out
    again = run("gradients", project, "demo", "--batch-size", "4", "-p", "max_length=128")
    assert "already complete" in again.output  # the batch size does not change the vectors

    scored = json.loads(run("score", project, "demo", "--json").output)
    assert scored["metric"] == "gvendi" and scored["vector_set"] == "gradients/fast"
    assert 1.0 < scored["value"] <= 24 and scored["n"] == 24
    text = run("score", project, "demo").output
    assert "G-Vendi" in text and "effective number of distinct examples" in text
    (run_info,) = [
        r
        for r in json.loads(run("vectors", project, "demo", "--json").output)
        if r["name"] == "gradients/fast"
    ]
    assert run_info["params"]["describe"]["mode"] == "fast"
    assert run_info["params"]["describe"]["rendering"] == "chat-template"
