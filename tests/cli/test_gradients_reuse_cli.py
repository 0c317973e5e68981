"""`vendiscope import` of the same file again, then `gradients`: every row is reused, the summary
says so, and no model is loaded (the second run names a device that does not exist)."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from vendiscope.cli import app

DEMO = Path(__file__).resolve().parents[2] / "vendiscope" / "resources" / "demo" / "demo.jsonl"
runner = CliRunner()


def run(*args: object) -> str:
    result = runner.invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.output


def test_a_reimported_file_costs_no_gradient_work(tmp_path: Path, tiny_lm: Path) -> None:
    source = tmp_path / "small.jsonl"
    source.write_bytes(b"\n".join(DEMO.read_bytes().splitlines()[:6]) + b"\n")
    project = tmp_path / "p.vscope"
    run("import", project, source, "--name", "first")
    run("import", project, source, "--name", "again")
    # float32 named: "auto" is bf16 on a CPU with native bf16, float32 on a GPU without it
    options = ("--model", tiny_lm, "--batch-size", "4", "-p", "max_length=64", "-p", "dim=16",
               "-p", "precision=float32")  # fmt: skip

    first = run("gradients", project, "first", *options)
    assert "gradients/fast: 6 x 16" in first and "(6 computed, 0 reused)" in first
    # loading the model on a device that does not exist would fail: none is loaded
    again = run("gradients", project, "again", *options, "--device", "cuda:99")
    assert "gradients/fast: 6 x 16" in again and "(0 computed, 6 reused)" in again
