"""The example third-party package (examples/vendiscope-coherence), installed like any plugin.

``make install`` installs it (editable, no dependencies) into the venv; these tests find it
through its entry point and use it from the command line, the way a user would.
"""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from tests.conftest import qa_rows, write_jsonl
from vendiscope.cli._app import app
from vendiscope.core.plugin_host import PluginRegistry
from vendiscope.core.plugin_host.manifest import ENTRY_POINT_GROUP

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "vendiscope-coherence"

runner = CliRunner()


def run(*args, code: int = 0):
    result = runner.invoke(app, [str(a) for a in args])
    assert result.exit_code == code, result.output
    return result


def test_discovered_through_its_entry_point() -> None:
    (point,) = [p for p in entry_points(group=ENTRY_POINT_GROUP) if p.name == "coherence"]
    assert point.value == "vendiscope_coherence:manifest"
    assert point.dist is not None and point.dist.name == "vendiscope-coherence"
    registry = PluginRegistry.discover(plugin_dir=None)
    (info,) = [p for p in registry.plugins if p.name == "vendiscope-coherence"]
    assert info.source == "entry-point" and "vendiscope_coherence:manifest" in info.origin
    assert {(c.kind, c.name) for c in info.contributions} == {
        ("metric", "coherence"),
        ("selector", "covariance"),
    }
    assert registry.failures == []


def test_listed_by_vendiscope_plugins() -> None:
    listed = json.loads(run("plugins", "--json").output)
    (plugin,) = [p for p in listed["plugins"] if p["name"] == "vendiscope-coherence"]
    assert {(c["kind"], c["name"], c["state"]) for c in plugin["contributions"]} == {
        ("metric", "coherence", "loaded"),
        ("selector", "covariance", "loaded"),
    }
    table = run("plugins").output
    assert "coherence" in table and "covariance" in table


@pytest.fixture
def project_with_vectors(tmp_path: Path) -> tuple[Path, np.ndarray]:
    from vendiscope.core.store import vectors
    from vendiscope.core.store.project import Project

    location = tmp_path / "p.vscope"
    run("import", location, write_jsonl(tmp_path / "d.jsonl", qa_rows(30)), "--name", "d")
    rows = np.random.default_rng(0).normal(size=(30, 16)).astype(np.float32) + 0.5
    with Project.open(location) as project:
        vectors.write_matrix(project, "d", "grads", rows, kind="gradient", model="random",
                             params={})  # fmt: skip
    return location, rows


@pytest.mark.slow
def test_scores_a_dataset_from_the_command_line(project_with_vectors) -> None:
    from vendiscope_coherence.metric import GradientCoherence

    location, rows = project_with_vectors
    out = json.loads(
        run("score", location, "d", "--metric", "coherence", "--vectors", "grads", "--json").output
    )
    expected = GradientCoherence().compute(rows)
    assert out["metric"] == "coherence" and out["n"] == 30
    assert out["value"] == pytest.approx(expected.value, rel=1e-6)
    assert set(out["per_source"]) == {"s0", "s1", "s2"}
    assert out["per_record_set"] is not None
    text = run("score", location, "d", "--metric", "coherence", "--vectors", "grads").output
    assert "coherence" in text

    typed = run(
        "score", location, "d", "--metric", "coherence", "--vectors", "grads", "-p",
        "per_record=false", "--json",
    )  # fmt: skip
    assert json.loads(typed.output)["per_record_set"] is None
    bad = run(
        "score", location, "d", "--metric", "coherence", "--vectors", "grads", "-p",
        "min_norm=-1", code=2,
    )  # fmt: skip
    assert "--param min_norm: expected a number >= 0, got '-1'" in bad.output


def test_selects_with_the_covariance_selector(project_with_vectors) -> None:
    location, _ = project_with_vectors
    out = run(
        "select", location, "d", "-k", "5", "--method", "covariance", "--vectors", "grads",
        "--json",
    ).output  # fmt: skip
    assert json.loads(out)["k"] == 5


@pytest.mark.slow
def test_its_own_test_suite_passes() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(EXAMPLE / "tests")],
        capture_output=True,
        text=True,
        cwd=EXAMPLE,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert " passed" in done.stdout
