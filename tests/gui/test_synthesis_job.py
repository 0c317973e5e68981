"""The real synthesis job through the GUI's task, then read by the monitor.

The generator is the `openai` one talking to a real chat server on loopback that answers with
real examples (the local model's path is tested in tests/core/synthesis)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import demo_rows
from tests.core.synthesis._server import example_server
from vendiscope.core.base.jobs import CancelToken, RecordingProgress
from vendiscope.core.store.project import Project
from vendiscope.gui.jobs import tasks
from vendiscope.gui.synthesis.monitor import SynthesisMonitor
from vendiscope.gui.windows.document import ProjectDocument


@pytest.fixture
def pool(synthesis_pool: Path, tmp_path: Path) -> Path:
    """A copy of 40 demo records with gradients of a tiny LM (quick to featurize the new
    examples; the demo project's bundled features are of an older featurizer version)."""
    copy = tmp_path / "pool.vscope"
    shutil.copy(synthesis_pool, copy)
    return copy


def test_the_task_runs_a_real_synthesis_job_that_the_monitor_shows(qtbot: Any, pool: Path) -> None:
    examples = [{"prompt": r["prompt"], "response": r["response"]} for r in demo_rows(300, 360)]
    progress = RecordingProgress()
    with example_server(examples) as server:
        options = {
            "generator": "openai",
            "generator_params": {"base_url": server["url"], "model": "scripted"},
            "budget": 2,
            "prompts_per_round": 3,
            "rounds": 1,
        }
        done = tasks.synthesize(str(pool), "pool", options, progress=progress,
                                cancel=CancelToken())  # fmt: skip
    assert done.data["dataset"] == "synth-1" and done.data["all"] == "synth-1-all"
    assert "G-Vendi" in done.message and "'synth-1'" in done.message
    assert any(d.startswith("round ") for d in progress.descriptions), progress.descriptions
    with Project.open(pool) as project:
        run = project.run(done.data["run_id"])
        names = {d.name for d in project.datasets()}
    assert run.kind == "synthesis" and run.status == "complete"
    assert {"synth-1", "synth-1-all"} <= names
    rounds = run.result["rounds"]
    assert len(rounds) == 1 and run.result["stopped"] in ("rounds", "budget")

    document = ProjectDocument()
    document.open(str(pool))
    try:
        monitor = SynthesisMonitor(document, "pool")
        qtbot.addWidget(monitor)
        assert monitor.run is not None and monitor.run.id == run.id
        assert monitor.rounds.rowCount() == len(rounds)
        assert monitor.chart_pages.currentWidget() is monitor.chart
        assert monitor.status.text().startswith("Finished")
        listed = run.result["generated"] + len(run.result.get("rejects") or [])
        qtbot.waitUntil(lambda: monitor.outputs.model.rowCount() == listed, timeout=10_000)
        accepted = [o for o in monitor.outputs.model.outputs if o.accepted]
        assert len(accepted) == run.result["accepted"]
        assert all(o.reason for o in monitor.outputs.model.outputs)
    finally:
        document.close()
