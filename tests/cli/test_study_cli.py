"""``vendiscope study`` as a user runs it: real processes, output to a file, a kill mid-study
and a resume; the estimate; JSON; clear errors. The model is a tiny random Llama."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import table_counts
from vendiscope.core.store.project import Project
from vendiscope.core.studies.reading import study_runs

ENV = {**os.environ, "VENDISCOPE_PROGRESS": "lines", "OMP_NUM_THREADS": "1"}


@pytest.fixture
def location(study_project: Path) -> Path:
    """The 40-row pool with tiny-LM gradients, and a 12-row held-out target."""
    return study_project


def command(location: Path, tiny_lm: Path, *extra: str) -> list[str]:
    return [
        sys.executable, "-m", "vendiscope", "study", str(location), "pool",
        "--target", "held-out", "--size", "6", "--subsets", "4", "--seeds", "2",
        "--pilot", "2", "--model", str(tiny_lm), "-p", "steps=3", "-p", "batch_size=2",
        "-p", "device=cpu", "--metric", "g-vendi", "--metric", "ngram", "--force", *extra,
    ]  # fmt: skip


def runs_done(location: Path) -> int:
    with Project.open(location) as project:
        found = study_runs(project, "pool")
        return len((found[-1].result or {}).get("runs", [])) if found else 0


@pytest.mark.slow
def test_a_killed_study_resumes_at_its_next_run(location: Path, tiny_lm: Path) -> None:
    log = location.with_suffix(".log")
    slow = command(location, tiny_lm, "-p", "steps=40")  # long enough to be killed mid-way
    with log.open("w") as output:
        process = subprocess.Popen(slow, env=ENV, stdout=output, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 240
        while runs_done(location) < 2 and time.monotonic() < deadline:
            assert process.poll() is None, log.read_text()
            time.sleep(0.3)
        process.send_signal(signal.SIGKILL)
        process.wait()
    text = log.read_text()
    assert "plan: 4 subsets of 6 rows: 4 random, 2 seeds each" in text
    assert "cost: about" in text and "run 1: random-" in text
    assert "Training" in text  # progress lines, without a terminal
    killed_at = runs_done(location)
    assert 2 <= killed_at < 8
    with Project.open(location) as project:
        assert project.integrity_check() == "ok"
    finished = subprocess.run(slow, env=ENV, capture_output=True, text=True, timeout=600)
    assert finished.returncode == 0, finished.stderr
    assert f"resuming: {killed_at} of 8 runs are done" in finished.stderr
    assert f"8 of 8 runs, resumed after run {killed_at}" in finished.stdout
    assert "Which score predicts" in finished.stdout
    with Project.open(location) as project:
        run = study_runs(project, "pool")[-1]
        pairs = [(r["subset"], r["seed"]) for r in run.result["runs"]]
        assert len(pairs) == len(set(pairs)) == 8 and run.status == "complete"
        assert project.integrity_check() == "ok"


@pytest.mark.slow
def test_estimate_and_json(location: Path, tiny_lm: Path) -> None:
    before = table_counts(location)
    estimate = subprocess.run(command(location, tiny_lm, "--estimate", "--json"), env=ENV,
                              capture_output=True, text=True, timeout=300)  # fmt: skip
    assert estimate.returncode == 0, estimate.stderr
    found = json.loads(estimate.stdout)
    assert found["runs"] == 8 and found["plan"] == "4 subsets of 6 rows: 4 random"
    assert found["cost"]["total_seconds"] > 0
    assert table_counts(location) == before
    done = subprocess.run(command(location, tiny_lm, "--json"), env=ENV, capture_output=True,
                          text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["runs_done"] == 8 and report["stopped"] == "done"
    evidence = report["analysis"]["improvement"]["evidence"]
    assert {e["metric"] for e in evidence} == {"g-vendi", "ngram"}


@pytest.mark.slow
def test_an_estimate_of_more_than_a_day_is_refused_unless_forced(
    location: Path, tiny_lm: Path
) -> None:
    long = [part for part in command(location, tiny_lm, "--estimate") if part != "--force"]
    long += ["-p", "steps=50000", "--seeds", "100"]  # long runs, and many: days
    found = subprocess.run(long, env=ENV, capture_output=True, text=True, timeout=300)
    assert found.returncode == 1, found.stderr
    assert "plan: 4 subsets of 6 rows: 4 random, 100 seeds each (400 runs)" in found.stdout
    said = " ".join(found.stderr.split())
    assert "here, more than a day; to bring it within one, " in said, said
    assert "--force accepts it as it is" in said, said


@pytest.mark.slow
def test_bad_requests_name_what_is_wrong(location: Path, tiny_lm: Path) -> None:
    cases = {
        ("--target", "pool"): "held out",
        ("--subsets", "2", "--duplicates", "3"): "--subsets 2 is fewer than the 3",
        ("--size", "500"): "size: 500 rows asked for",
        ("-p", "steps=zero"): "--param steps",
    }
    for extra, message in cases.items():
        found = subprocess.run(command(location, tiny_lm, *extra), env=ENV,
                               capture_output=True, text=True, timeout=300)  # fmt: skip
        assert found.returncode != 0, extra
        assert message in " ".join(found.stderr.split()), (extra, found.stderr)
