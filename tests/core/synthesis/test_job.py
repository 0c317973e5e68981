"""The synthesis job end to end: a real project, a real OpenAI-compatible server on loopback,
real gradients (a tiny random LM), real processes for kill and resume."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import demo_rows
from tests.core.synthesis._server import example_server
from vendiscope.core.base.errors import PluginError, ProjectError
from vendiscope.core.store import vectors
from vendiscope.core.store.project import Project
from vendiscope.core.synthesis.job import synthesize
from vendiscope.core.synthesis.options import SynthesisOptions
from vendiscope.core.synthesis.reading import preview_prompt, synthesis_runs

SECRET = "sk-test-not-to-be-stored-7f3a9"


@pytest.fixture
def location(synthesis_project: Path) -> Path:
    return synthesis_project


@pytest.fixture(scope="module")
def examples() -> list[dict[str, str]]:
    return [{"prompt": r["prompt"], "response": r["response"]} for r in demo_rows(300, 500)]


@pytest.fixture
def server(examples: list[dict[str, str]]) -> Iterator[dict[str, Any]]:
    with example_server(examples) as seen:
        yield seen


def openai_options(server: dict[str, Any], **changes: Any) -> SynthesisOptions:
    params = {"base_url": server["url"], "model": "scripted", "concurrency": 2}
    return SynthesisOptions(generator="openai", generator_params=params, **changes)


@pytest.mark.slow
def test_a_run_fills_the_budget_and_keeps_the_baseline(location: Path, server: dict) -> None:
    rounds: list[dict[str, Any]] = []
    with Project.open(location) as project:
        report = synthesize(
            project,
            "pool",
            openai_options(server, budget=6, prompts_per_round=4),
            on_round=rounds.append,
        )
        assert report.stopped == "budget"
        assert report.accepted == 6 == project.dataset(report.name).row_count
        assert report.name == "synth-1" and report.all_name == "synth-1-all"
        stream = project.dataset(report.all_name).row_count
        assert stream >= report.accepted == report.rounds[-1]["accepted_total"]
        assert [r["round"] for r in rounds] == list(range(len(report.rounds)))
        for entry in report.rounds:
            total = entry["accepted"] + entry["rejected"]
            assert total == entry["prompts"]
            assert entry["baseline"] is not None
        # the new datasets have gradient rows made like the pool's, complete
        pool_set = vectors.complete_sets(project, "pool", "gradient")[0]
        for dataset in (report.name, report.all_name):
            found = vectors.complete_set(project, dataset, pool_set.name)
            assert (found.model, found.dim) == (pool_set.model, pool_set.dim)
            assert len(vectors.load(project, dataset, found.name)) == (
                project.dataset(dataset).row_count
            )
        # provenance of every record, and only accepted ones in NAME
        accepted = list(project.iter_records(report.name))
        for record in accepted:
            provenance = record.original()["synthesis"]
            assert provenance["decision"] == "accepted"
            assert provenance["run"] == report.run_id and provenance["seeds"]
            assert provenance["generator"] == "openai" and provenance["template"]
        decisions = {r.original()["synthesis"]["decision"] for r in
                     project.iter_records(report.all_name)}  # fmt: skip
        assert "accepted" in decisions
        assert [r.id for r in synthesis_runs(project, report.name)] == [report.run_id]
        assert project.integrity_check() == "ok"


def test_the_none_filter_accepts_every_valid_generation(location: Path, server: dict) -> None:
    with Project.open(location) as project:
        report = synthesize(project, "pool", openai_options(server, budget=5, filter="none"))
        assert report.accepted == 5
        for entry in report.rounds:
            assert entry["accepted"] == entry["parsed"] - entry["duplicates"] or (
                entry["accepted_total"] == 5
            )
        # without a filter, the accepted rows are the stream: the curves coincide
        assert report.gvendi == pytest.approx(report.baseline, rel=1e-6)


def test_a_second_run_resumes_and_a_larger_budget_continues(location: Path, server: dict) -> None:
    options = openai_options(server, budget=3, prompts_per_round=3, name="more")
    with Project.open(location) as project:
        first = synthesize(project, "pool", options)
        again = synthesize(project, "pool", SynthesisOptions(**{**options.to_json(), "budget": 7}))
        assert again.run_id == first.run_id
        assert again.resumed_from == len(first.rounds)
        assert again.accepted == 7 == project.dataset("more").row_count
        hashes = [r.content_hash for r in project.iter_records("more-all")]
        assert len(hashes) == len(set(hashes)), "a generation was stored twice"
        other = SynthesisOptions(**{**options.to_json(), "filter": "none"})
        with pytest.raises(ProjectError, match="other settings"):
            synthesize(project, "pool", other)


def test_every_output_rejected_stops_with_the_reasons(location: Path, examples: list) -> None:
    with example_server(examples, mode="garbage") as garbage, Project.open(location) as project:
        options = openai_options(garbage, budget=3, patience=3)
        options.generator_params["structured"] = "off"  # the prompt alone: prose comes back
        with pytest.raises(PluginError, match=r"the first round gave no usable example: no JSON "
                           r"object \(3\); ask for structured output.*larger"):  # fmt: skip
            synthesize(project, "pool", options)
        run = synthesis_runs(project, "pool")[-1]
        assert run.status == "failed"
        assert run.result["rejects"][0]["reason"] == "no JSON object"
        # a run that kept nothing leaves no empty dataset behind
        names = {d.name for d in project.datasets()}
        assert run.params["name"] not in names and run.params["all"] not in names
        assert run.result["removed_empty"] == [run.params["name"], run.params["all"]]
        assert project.integrity_check() == "ok"


def test_an_unknown_model_or_server_is_named(location: Path, server: dict) -> None:
    with Project.open(location) as project:
        bad_model = SynthesisOptions(
            generator="openai", generator_params={"base_url": server["url"], "model": "nope"}
        )
        with pytest.raises(PluginError, match="nope"):
            synthesize(project, "pool", bad_model)
        nowhere = SynthesisOptions(
            generator="openai",
            generator_params={"base_url": "http://127.0.0.1:9/v1", "model": "m"},
        )
        with pytest.raises(PluginError, match=r"127\.0\.0\.1:9"):
            synthesize(project, "pool", nowhere)
        assert [d.name for d in project.datasets()] == ["pool"], "a failed start wrote data"


def test_gradients_of_another_featurizer_version_are_named(location: Path, server: dict) -> None:
    from sqlalchemy import select, update

    from vendiscope.core.store.schema import VectorSet

    with Project.open(location) as project, project.session() as session:
        current = session.scalars(select(VectorSet.model).where(VectorSet.kind == "gradient"))
        old = "gradients/v0 " + next(iter(current)).split(" ", 1)[1]
        session.execute(update(VectorSet).where(VectorSet.kind == "gradient").values(model=old))
        session.commit()
    with Project.open(location) as project:
        stale = r"another version of the featurizer \(gradients/v0;"
        with pytest.raises(ProjectError, match=stale):
            synthesize(project, "pool", openai_options(server, budget=2))
        assert [d.name for d in project.datasets()] == ["pool"], "a refused start wrote data"


def test_preview_shows_seed_examples_of_a_cluster(location: Path) -> None:
    with Project.open(location) as project:
        messages = preview_prompt(project, "pool", SynthesisOptions(), record=5)
        first = project.records("pool", 5, 1)[0]
    assert messages[-1]["role"] == "user"
    assert json.dumps(first.prompt)[1:40] in messages[-1]["content"]


# ----------------------------------------------------------------------------- processes
def _cli(location: Path, server: dict, *extra: str) -> list[str]:
    return [
        sys.executable, "-m", "vendiscope", "synthesize", str(location), "pool",
        "--generator", "openai", "--base-url", server["url"], "--model", "scripted",
        "--prompts", "2", "--name", "killed", *extra,
    ]  # fmt: skip


def _committed_rounds(location: Path) -> int:
    with Project.open(location) as project:
        runs = [r for r in synthesis_runs(project, "pool") if r.params["name"] == "killed"]
        return len((runs[-1].result or {}).get("rounds", [])) if runs else 0


@pytest.mark.slow
def test_a_killed_run_resumes_without_duplicates(location: Path, examples: list) -> None:
    env = {**os.environ, "OPENAI_API_KEY": SECRET, "VENDISCOPE_PROGRESS": "lines"}
    with example_server(examples, delay=0.4) as slow:
        log = location.with_suffix(".log")
        with log.open("w") as output:
            process = subprocess.Popen(_cli(location, slow, "-n", "40"), env=env,
                                       stdout=output, stderr=subprocess.STDOUT)  # fmt: skip
            deadline = time.monotonic() + 120
            while _committed_rounds(location) < 2 and time.monotonic() < deadline:
                assert process.poll() is None, log.read_text()
                time.sleep(0.3)
            process.send_signal(signal.SIGKILL)
            process.wait()
        assert "round 1:" in log.read_text(), "no progress without a terminal"
        with Project.open(location) as project:
            assert project.integrity_check() == "ok"
            before = project.dataset("killed").row_count
            assert project.dataset("killed-all").row_count >= before
        done = subprocess.run(_cli(location, slow, "-n", str(before + 3)), env=env,
                              capture_output=True, text=True, timeout=300)  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert "resumed at round" in done.stdout
        assert all(h.get("Authorization") == f"Bearer {SECRET}" for h in slow["headers"])
    with Project.open(location) as project:
        hashes = [r.content_hash for r in project.iter_records("killed-all")]
        assert len(hashes) == len(set(hashes))
        assert project.dataset("killed").row_count == before + 3
        project.wal_checkpoint()
    stored = b"".join(p.read_bytes() for p in location.parent.glob(location.name + "*"))
    assert SECRET.encode() not in stored, "the API key was written to the project"


def test_the_python_api_runs_it_too(location: Path, server: dict) -> None:
    import vendiscope as vs

    params = {"base_url": server["url"], "model": "scripted"}
    with vs.open(location, progress=False) as opened:
        report = opened.synthesize("pool", budget=2, generator="openai",
                                   generator_params=params, prompts_per_round=2)  # fmt: skip
    assert report.accepted == 2 and report.stopped == "budget"


# structured output off: this test is about resuming; constrained decoding (tested in
# tests/plugins/generators/test_transformers_local.py) would make its three runs 3x slower
LOCAL = SynthesisOptions(
    generator="transformers",
    generator_params={"max_new_tokens": 64, "batch_size": 2, "structured": "off"},
    prompts_per_round=2, examples_per_prompt=2, rounds=2, budget=50, filter="none",
    name="local", seed=7, patience=9,
)  # fmt: skip


def _outputs(project: Project) -> tuple[list[str], list[str], list[int]]:
    """What the generator wrote, in order: stored generations and the rejected texts."""
    run = [r for r in synthesis_runs(project, "pool") if r.params["name"] == "local"][-1]
    stream = [r.content_hash for r in project.iter_records("local-all")]
    rejects = [r["text"] for r in run.result["rejects"]]
    return stream, rejects, [e["accepted"] for e in run.result["rounds"]]


@pytest.mark.slow
def test_the_local_generator_resumes_to_the_same_outputs(
    synthesis_pool: Path, tmp_path: Path
) -> None:
    """Stopped after its first round and resumed, a seeded local run writes what an
    uninterrupted one writes (the bundled SmolLM2, sampling at temperature 0.8). A kill by
    a signal is tested above; here the stop is a cancel, so one process holds the model."""
    from vendiscope.core.base.jobs import Cancelled, CancelToken

    whole, stopped = tmp_path / "whole.vscope", tmp_path / "stopped.vscope"
    shutil.copy(synthesis_pool, whole)
    shutil.copy(synthesis_pool, stopped)
    with Project.open(whole) as project:
        synthesize(project, "pool", LOCAL)
        expected = _outputs(project)
    assert expected[0] or expected[1]
    cancel = CancelToken()
    with Project.open(stopped) as project:
        with pytest.raises(Cancelled):
            synthesize(project, "pool", LOCAL, cancel=cancel, on_round=lambda _: cancel.cancel())
        assert synthesis_runs(project, "pool")[-1].status == "cancelled"
        resumed = synthesize(project, "pool", LOCAL)
        assert resumed.resumed_from == 1
        assert _outputs(project) == expected
        assert project.integrity_check() == "ok"
