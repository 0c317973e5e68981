"""`embed`, `vectors` and `score` on the command line, with the real bundled encoder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from vendiscope.cli import app

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
    assert run_info["params"]["describe"]["dim"] == 1024
    automatic = run(
        "gradients", project, "demo", "--name", "auto", "-p", "dim=none", "-p", "max_length=32"
    )
    assert "24 x 4096" in automatic.output  # the automatic dim of 24 rows, settled for the job


def test_progress_without_a_terminal_prints_plain_lines_with_an_eta() -> None:
    import io
    import re
    import time

    from rich.console import Console

    from vendiscope.cli._progress import RichProgress

    stream = io.StringIO()
    progress = RichProgress(Console(file=stream, width=200), plain=True)
    progress.start("gradients demo", total=300, unit="records")
    progress.update(120)  # resumed at 120: where it starts, not a measured step
    time.sleep(0.6)
    progress.update(136)  # the first batch: the rate and ETA are known from here on
    progress.finish()
    lines = stream.getvalue().splitlines()
    assert lines[0] == "gradients demo: started (300 records)"
    assert re.fullmatch(
        r"gradients demo: 136/300 records \(45%\), [\d.,]+ records/s, eta \d+:\d\d:\d\d",
        lines[-2],
    ), lines
    assert re.fullmatch(r"gradients demo: 136/300 records \(45%\) in 0:00:0\d, .*", lines[-1])


def test_a_step_of_unknown_length_says_how_long_it_has_taken() -> None:
    import io
    import re

    from rich.console import Console

    from vendiscope.cli._progress import RichProgress

    stream = io.StringIO()
    progress = RichProgress(Console(file=stream, width=200), plain=True, interval_s=0.0)
    progress.start("Timing the trainer", total=None)
    progress.update(0)
    progress.finish()
    lines = stream.getvalue().splitlines()
    assert lines[0] == "Timing the trainer: started"
    assert re.fullmatch(r"Timing the trainer: done in 0:00:0\d", lines[-1]), lines
    assert not any("eta" in line or ": 0," in line for line in lines), lines


@pytest.mark.slow
def test_embed_estimate_measures_and_computes_nothing(tmp_path: Path) -> None:
    source = tmp_path / "demo.jsonl"
    source.write_bytes(b"\n".join(DEMO.read_bytes().splitlines()[:200]) + b"\n")
    project = tmp_path / "p.vscope"
    run("import", project, source, "--name", "demo")
    out = run("embed", project, "demo", "--estimate").output
    assert "embeddings of demo: about " in out and " on this machine for 200 records (" in out
    assert "measured on " in out and "loading the model: " in out
    assert "no vector sets yet" in run("vectors", project, "demo").output


@pytest.mark.slow
def test_a_killed_gradients_run_logs_progress_reads_interrupted_and_resumes(
    tmp_path: Path,
) -> None:
    """As a user runs it: in the background, its output in a log file (no terminal), then
    killed with SIGKILL mid-way. The log has progress lines with an ETA; `vectors` and the
    GUI's project tree say the set was interrupted and how to resume it; that resumes it."""
    import re
    import shlex
    import signal
    import subprocess
    import sys
    import time

    from vendiscope.core.store import vectors
    from vendiscope.core.store.project import Project
    from vendiscope.gui.project.nodes import project_nodes

    source = tmp_path / "demo.jsonl"
    source.write_bytes(b"\n".join(DEMO.read_bytes().splitlines()[:40]) + b"\n")
    project = tmp_path / "p.vscope"
    run("import", project, source, "--name", "demo")
    log = tmp_path / "g.log"
    command = [str(Path(sys.executable).with_name("vendiscope")), "gradients", str(project),
               "demo", "--chunk-rows", "4", "--batch-size", "1", "-p", "max_length=64"]  # fmt: skip
    with log.open("w") as output:
        child = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT)

    def committed() -> int:
        with Project.open(project) as opened:
            found = vectors.list_sets(opened, "demo")
            return found[0].committed_rows if found else 0

    try:
        deadline = time.monotonic() + 600  # a cap for a broken run, not a timing assertion
        while (committed() < 8 or "eta " not in log.read_text()) and child.poll() is None:
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.2)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=60)
    lines = log.read_text().splitlines()
    progress = [line for line in lines if line.startswith("Features of demo")]
    assert progress[0] == "Features of demo (gradients/fast): started (40 records)"
    assert any(
        re.fullmatch(
            r"Features of demo \(gradients/fast\): \d+/40 records \(\d+%\), "
            r"[\d.]+ records/s, eta \d+:\d\d:\d\d",
            line,
        )
        for line in progress
    ), lines

    listing = run("vectors", project, "demo").output
    k = committed()
    assert 8 <= k < 40, listing
    expected = f"vendiscope gradients {project} demo --chunk-rows 4 -p max_length=64"
    assert f"gradients/fast: interrupted ({k}/40 rows) — resume with: {expected}" in listing
    with Project.open(project) as opened:
        (dataset,) = project_nodes(opened)
        (sets,) = [n for n in dataset.children if n.kind == "group" and n.payload == "vector_sets"]
        (node,) = sets.children
        assert node.detail == f"interrupted ({k}/40 rows) — resume with: {expected}"

    resumed = run(*shlex.split(expected)[1:]).output
    assert f"resumed at row {k}" in resumed
    listing = json.loads(run("vectors", project, "demo", "--json").output)
    assert [(v["state"], v["committed_rows"]) for v in listing] == [("complete", 40)]
    with Project.open(project) as opened:
        assert opened.integrity_check() == "ok"
        statuses = [r.status for r in opened.runs("demo") if r.kind == "gradient"]
        assert statuses == ["interrupted", "complete"]


@pytest.mark.slow
def test_ctrl_c_ends_a_gradients_run_inside_a_batch(tmp_path: Path) -> None:
    """SIGINT while a batch is in its forward or backward pass: the command ends at the next
    transformer block with exit code 130 and says so; the run reads cancelled, the project
    is sound, and the same command resumes. (How fast it ends is measured in
    ``tests/benchmarks/bench_gradient_interrupts.py``, not asserted here.)"""
    import signal
    import subprocess
    import sys
    import time

    from vendiscope.core.store.project import Project

    source = tmp_path / "demo.jsonl"
    source.write_bytes(b"\n".join(DEMO.read_bytes().splitlines()[:24]) + b"\n")
    project = tmp_path / "p.vscope"
    run("import", project, source, "--name", "demo")
    log = tmp_path / "g.log"
    words = ["gradients", str(project), "demo", "--chunk-rows", "4", "-p", "max_length=96"]
    command = [str(Path(sys.executable).with_name("vendiscope")), *words]
    with log.open("w") as output:
        child = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 600  # a cap for a broken run, not a timing assertion
        while "records (" not in log.read_text() and child.poll() is None:
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.05)
        child.send_signal(signal.SIGINT)
        code = child.wait(timeout=120)
    finally:
        child.kill()
    text = log.read_text()
    assert code == 130, text
    assert "interrupted" in text.lower()
    with Project.open(project) as opened:
        assert opened.integrity_check() == "ok"
        assert [r.status for r in opened.runs("demo") if r.kind == "gradient"] == ["cancelled"]
    resumed = run(*words[:3], "--chunk-rows", "4", "-p", "max_length=96").output
    assert "vector set gradients/fast: 24 x 1024" in resumed
