"""`vendiscope gradients --preset`: the paper's setting (the default) and the light one, each
in its own vector set; explicit --param values win; an unknown preset is refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from vendiscope.cli import app
from vendiscope.core.base.errors import InputError
from vendiscope.core.gradients.presets import DEFAULT_PRESET, PRESETS, set_name, with_preset
from vendiscope.core.store import vectors
from vendiscope.core.store.project import Project
from vendiscope.plugins.featurizers.gradients import GradientFeaturizer

DEMO = Path(__file__).resolve().parents[2] / "vendiscope" / "resources" / "demo" / "demo.jsonl"


def test_the_default_is_the_paper_preset() -> None:
    assert DEFAULT_PRESET == "paper" and PRESETS["paper"]["parameters"] == "all"
    assert GradientFeaturizer().parameters == PRESETS[DEFAULT_PRESET]["parameters"]
    assert with_preset("light", {"dim": 16})["dim"] == 16  # an explicit value wins
    assert with_preset(None, {"dim": 16}) == {"dim": 16}
    assert set_name(None, "light", "fast") == "gradients/fast-light"
    assert set_name(None, "paper", "fast") is None and set_name("x", "light", "fast") == "x"
    with pytest.raises(InputError, match=r"unknown preset 'quick' \(choose one of: paper, light"):
        with_preset("quick", {})


def test_each_preset_writes_its_own_set(tmp_path: Path, tiny_lm: Path) -> None:
    source = tmp_path / "small.jsonl"
    source.write_bytes(b"\n".join(DEMO.read_bytes().splitlines()[:4]) + b"\n")
    project = tmp_path / "p.vscope"
    runner = CliRunner()
    assert runner.invoke(app, ["import", str(project), str(source), "--name", "d"]).exit_code == 0
    options = ["--model", str(tiny_lm), "-p", "max_length=64", "-p", "dim=16"]
    for preset in ("paper", "light"):
        done = runner.invoke(app, ["gradients", str(project), "d", "--preset", preset, *options])
        assert done.exit_code == 0, done.output
    bad = runner.invoke(app, ["gradients", str(project), "d", "--preset", "quick", *options])
    assert bad.exit_code != 0 and "unknown preset 'quick'" in bad.output
    with Project.open(project) as opened:
        sets = {s.name: s for s in vectors.list_sets(opened, "d")}
    assert set(sets) == {"gradients/fast", "gradients/fast-light"}
    assert sets["gradients/fast"].params["featurizer_params"]["parameters"] == "all"
    assert (
        sets["gradients/fast-light"].params["featurizer_params"]["parameters"]
        == "last-4-blocks-linear"
    )
    assert sets["gradients/fast-light"].dim == 16
