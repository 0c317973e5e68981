"""Jobs people can trust: rate and ETA from the first step, prompt cancel, and a vector set
that tells a running job from a killed one (and says how to resume it)."""

from __future__ import annotations

import dataclasses
import os
import signal
import socket
import subprocess
import sys
import textwrap
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import qa_rows, write_jsonl
from vendiscope.core.base.jobs import (
    Cancelled,
    CancelToken,
    NullProgress,
    RateMeter,
    format_eta,
    process_state,
    representative_order,
    this_process,
)
from vendiscope.core.io.importing import import_dataset
from vendiscope.core.store import vectors
from vendiscope.core.store.runs import start_run
from vendiscope.core.store.vectors import VectorSetInfo
from vendiscope.core.vectors.job import ChunkResult, VectorJob, run_vector_job
from vendiscope.core.vectors.resume import resume_command

JOB = VectorJob(dataset="d", name="toy", kind="feature", plugin="test:toy", model_id="toy",
                config={"toy": 1}, dim=4, chunk_rows=10)  # fmt: skip


def toy_compute(records, progress):
    """The vectors of a chunk: one row per record (its position and length), per record."""
    rows = np.zeros((len(records), 4), dtype=np.float32)
    for i, record in enumerate(records):
        rows[i] = [record.seq, len(record.prompt or ""), 1.0, 0.0]
        progress.update(i + 1, len(records))
    return ChunkResult(rows)


@pytest.fixture
def dataset(project, tmp_path: Path) -> str:
    import_dataset(project, write_jsonl(tmp_path / "d.jsonl", qa_rows(40)), name="d")
    return "d"


# --------------------------------------------------------------------------- rate and ETA
def test_rate_and_eta_from_the_first_step() -> None:
    meter = RateMeter()
    meter.reset(300, now=0.0)
    meter.add(120, now=0.01)  # a resumed job says where it starts: not work done
    assert meter.rate is None and meter.eta() is None
    meter.add(136, now=32.01)  # the first batch of 16 took 32 s
    assert meter.rate == pytest.approx(0.5)
    assert meter.eta() == pytest.approx(328.0)
    assert format_eta(meter.eta()) == "0:05:28"
    # between updates the time left counts down, but not below what the steps after the one
    # in progress need
    assert meter.eta(now=42.01) == pytest.approx(318.0)
    assert meter.eta(now=1_000.0) == pytest.approx((300 - 136 - 16) / 0.5)


def test_rate_follows_the_last_window_of_a_long_job() -> None:
    meter = RateMeter(window_s=100.0)
    meter.reset(10_000, now=0.0)
    for second in range(1, 301):  # 10 per second, then 1 per second for the last 100 s
        done = 10 * min(second, 200) + max(0, second - 200)
        meter.add(done, now=float(second))
    assert meter.rate == pytest.approx(1.0, rel=0.02)
    assert format_eta(None) == "-:--:--"


def test_batches_run_in_an_order_whose_prefixes_spread() -> None:
    for n in range(12):
        assert sorted(representative_order(n)) == list(range(n))
    assert representative_order(7) == [3, 1, 5, 0, 2, 4, 6]
    assert representative_order(2) == [0, 1]  # a short last batch does not go first


def test_cancel_callbacks_run_at_once() -> None:
    token, seen = CancelToken(), []
    forget = token.on_cancel(lambda: seen.append("first"))
    token.on_cancel(lambda: seen.append("second"))
    token.on_cancel(lambda: seen.append("gone"))()  # unregistered
    forget_nothing = forget
    token.cancel()
    token.cancel()  # once only
    assert seen == ["first", "second"] and token.wait(0)
    token.on_cancel(lambda: seen.append("late"))  # already cancelled: called now
    assert seen[-1] == "late"
    forget_nothing()
    with pytest.raises(Cancelled):
        token.raise_if_cancelled()


# --------------------------------------------------------------------------- owners
def test_the_owner_of_a_job_is_checked_by_pid_host_and_start_time() -> None:
    me = this_process()
    assert me["pid"] == os.getpid() and me["host"] == socket.gethostname()
    assert process_state(me).alive is True
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    assert process_state({**me, "pid": child.pid}).alive is False
    assert process_state({**me, "created": me["created"] - 3600}).alive is False  # pid reused
    elsewhere = process_state({"pid": 1, "host": "gpu-node-7", "created": 0.0})
    assert elsewhere.alive is None and elsewhere.host == "gpu-node-7"
    assert process_state(None).alive is False


# --------------------------------------------------------------------------- set states
def test_a_running_set_reads_running_then_cancelled_reads_interrupted(project, dataset) -> None:
    cancel = CancelToken()
    states = []

    class Watch(NullProgress):
        def update(self, completed, total=None) -> None:
            if completed == 15 and not states:
                (found,) = vectors.list_sets(project, dataset)
                states.append(vectors.set_state(project, found))
                cancel.cancel()

    with pytest.raises(Cancelled):
        run_vector_job(project, JOB, toy_compute, progress=Watch(), cancel=cancel)
    (running,) = states
    assert running.state == vectors.RUNNING and running.pid == os.getpid()
    assert running.describe() == f"running (10/40 rows, pid {os.getpid()})"
    (found,) = vectors.list_sets(project, dataset)
    state = vectors.set_state(project, found)
    # the toy computes its chunk to the end (it takes no token); the job stops after it
    assert (state.state, state.reason, state.committed_rows) == ("interrupted", "cancelled", 20)
    assert state.describe() == (
        "interrupted (20/40 rows, cancelled) — run the job that made it again to resume it"
    )
    done = run_vector_job(project, JOB, toy_compute)
    assert done.resumed_from == 20
    assert vectors.set_state(project, done.vector_set).state == vectors.COMPLETE


def test_a_job_on_another_host_cannot_be_checked(project, dataset) -> None:
    info = vectors.open_for_writing(project, dataset, "toy", kind="feature", model="toy",
                                    params={}, dim=4, chunk_rows=10)  # fmt: skip
    start_run(project, key="feature:d:toy", kind="feature", plugin="test:toy",
              dataset_id=info.dataset_id, params={},
              owner={"pid": 4242, "host": "gpu-node-7", "created": 0.0})  # fmt: skip
    state = vectors.set_state(project, info)
    assert state.state == vectors.ELSEWHERE
    assert state.describe() == "running on gpu-node-7 (cannot check) (0/40 rows)"


KILLED_CHILD = textwrap.dedent(
    """
    import sys, time
    from tests.core.vectors.test_job_state import JOB, toy_compute
    from vendiscope.core.base.jobs import NullProgress
    from vendiscope.core.store.project import Project
    from vendiscope.core.vectors.job import run_vector_job

    class Park(NullProgress):
        def update(self, completed, total=None):
            if completed > 20:  # chunks 0 and 1 are committed
                print("parked", flush=True)
                time.sleep(120)  # killed here

    with Project.open(sys.argv[1]) as project:
        run_vector_job(project, JOB, toy_compute, progress=Park())
    """
)


def test_a_killed_job_reads_interrupted_and_resumes(project, project_path, dataset) -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", KILLED_CHILD, str(project_path)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[3],
    )
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "parked"
        (found,) = vectors.list_sets(project, dataset)
        assert vectors.set_state(project, found).state == vectors.RUNNING  # still alive
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=60)
    (found,) = vectors.list_sets(project, dataset)
    assert found.status == vectors.RUNNING  # what the file says: no heartbeat to go stale
    state = vectors.set_state(project, found)
    assert (state.state, state.reason, state.committed_rows) == ("interrupted", "killed", 20)
    assert state.describe().startswith("interrupted (20/40 rows) — ")

    done = run_vector_job(project, JOB, toy_compute)  # resumes, and closes the dead run
    assert done.resumed_from == 20
    runs = [r for r in project.runs(dataset) if r.kind == "feature"]
    assert [r.status for r in runs] == ["interrupted", "complete"]
    assert f"pid {child.pid}" in (runs[0].error or "")
    matrix = vectors.load(project, dataset, "toy")
    assert matrix[:, 0].tolist() == list(range(40))
    assert project.integrity_check() == "ok"


# --------------------------------------------------------------------------- resume commands
def vector_set(kind: str, name: str, params: dict, chunk_rows: int) -> VectorSetInfo:
    return VectorSetInfo(1, 1, name, kind, "m", params, 8, "float32", 300, chunk_rows, "running",
                         None, datetime.now(timezone.utc))  # fmt: skip


QA = {"roles": {"prompt": "question", "response": "answer"}}


def test_resume_commands_repeat_the_settings_that_change_the_vectors() -> None:
    def command(kind: str, name: str, params: dict, chunk_rows: int, project="p.vscope") -> str:
        found = vector_set(kind, name, params, chunk_rows)
        return resume_command(project, "demo", found, QA)

    embedded = {"embedder": "sentence-transformers", "field": "prompt+response",
                "embedder_params": {}}  # fmt: skip
    assert command("embedding", "sentence-transformers/prompt+response", embedded, 4096) == (
        "vendiscope embed p.vscope demo"
    )
    other = {**embedded, "field": "prompt", "embedder_params": {"model": "/m/x", "device": "cpu"}}
    assert command("embedding", "mine", other, 64, project="my project.vscope") == (
        "vendiscope embed 'my project.vscope' demo --field prompt --name mine "
        "--chunk-rows 64 --model /m/x"
    )
    gradients = {"featurizer": "gradients", "featurizer_params": {"mode": "fast"}}
    assert command("gradient", "gradients/fast", gradients, 256) == (
        "vendiscope gradients p.vscope demo"
    )
    exact = {"featurizer": "gradients",
             "featurizer_params": {"mode": "exact", "dim": 256, "batch_size": 4}}  # fmt: skip
    assert command("gradient", "gradients/exact", exact, 256) == (
        "vendiscope gradients p.vscope demo --mode exact -p dim=256"
    )
    assert command("feature", "toy", {"featurizer": "toy"}, 256) is None


def test_a_resume_command_names_the_precision_auto_no_longer_means_here() -> None:
    from vendiscope.core.gradients.features import gradient_precision

    here = gradient_precision("auto", "auto", "fast")
    other = "float32" if here == "bfloat16" else "bfloat16"
    params = {"featurizer": "gradients", "featurizer_params": {"mode": "fast"}}

    def command(precision: str, chosen: str | None = None) -> str | None:
        found = vector_set("gradient", "gradients/fast", params, 256)
        if chosen is not None:
            found.params["featurizer_params"]["precision"] = chosen
        found = dataclasses.replace(found, model=f"gradients/9 mode=fast precision={precision}")
        return resume_command("p.vscope", "demo", found, QA)

    assert command(here) == "vendiscope gradients p.vscope demo"
    assert command(other) == f"vendiscope gradients p.vscope demo -p precision={other}"
    assert (
        command(other, chosen=other) == f"vendiscope gradients p.vscope demo -p precision={other}"
    )
