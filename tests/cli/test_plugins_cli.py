"""`vendiscope plugins`, `vendiscope plugin info`, and typed `--param` on every command."""

from __future__ import annotations

import json
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import qa_rows, write_jsonl
from vendiscope.cli import app
from vendiscope.core.plugin_host import default_registry
from vendiscope.core.plugin_host.userdir import ENV_VAR, PACKAGE

runner = CliRunner()


def run(*args, code: int = 0):
    result = runner.invoke(app, [str(a) for a in args])
    assert result.exit_code == code, result.output
    return result


@pytest.fixture
def plugin_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A user plugin folder with a working plugin file, a broken one and a bad signature."""
    folder = tmp_path / "plugins"
    folder.mkdir()
    (folder / "tally.py").write_text(
        textwrap.dedent(
            """
            from typing import Annotated
            from vendiscope.api import Contribution, Metric, MetricResult, PluginManifest, Range

            class Tally(Metric):
                \"\"\"Counts rows.

                Parameters
                ----------
                scale
                    Multiplies the count.
                \"\"\"

                def __init__(self, scale: Annotated[int, Range(1)] = 1):
                    self.scale = scale

                def compute(self, vectors, *, quality=None):
                    return MetricResult(float(len(vectors) * self.scale))

            class Sloppy(Metric):
                def __init__(self, threshold):
                    self.threshold = threshold

                def compute(self, vectors):
                    return MetricResult(0.0)

            manifest = PluginManifest(
                name="tally",
                contributions=(
                    Contribution("metric", "tally", f"{__name__}:Tally", "Row count"),
                    Contribution("metric", "sloppy", f"{__name__}:Sloppy"),
                ),
            )
            """
        )
    )
    (folder / "broken.py").write_text("import a_module_nobody_has\n")
    monkeypatch.setenv(ENV_VAR, str(folder))
    default_registry(refresh=True)
    yield folder
    monkeypatch.setenv(ENV_VAR, "")
    default_registry(refresh=True)
    for name in [m for m in sys.modules if m.startswith(PACKAGE)]:
        del sys.modules[name]


def test_plugins_lists_states_file_plugins_and_failures(plugin_files: Path) -> None:
    out = run("plugins").output
    assert "tally" in out and "load-failed" in out
    assert "warning:" in out and "loaded from .py files: tally" in out
    assert "run as code with your permissions" in out
    assert "failed: file broken.py: plugin file" in out and "a_module_nobody_has" in out
    assert "failed: tally metric 'sloppy':" in out and "'threshold' has no default" in out
    assert "compute() is missing the keyword-only parameter(s) quality" in out

    listed = json.loads(run("plugins", "--json").output)
    (tally,) = [p for p in listed["plugins"] if p["name"] == "tally"]
    assert tally["source"] == "file"
    assert {c["name"]: c["state"] for c in tally["contributions"]} == {
        "tally": "loaded",
        "sloppy": "load-failed",
    }
    stages = {(f["plugin"], f["contribution"], f["stage"]) for f in listed["failures"]}
    assert ("tally", "sloppy", "load") in stages
    assert ("file broken.py", None, "discover") in stages


def test_a_plugin_file_is_usable_from_the_cli(plugin_files: Path) -> None:
    out = run("plugin", "info", "metric", "tally").output
    assert "Row count" in out and "an integer >= 1" in out and "Multiplies the count." in out
    info = json.loads(run("plugin", "info", "metric", "tally", "--json").output)
    assert info["state"] == "loaded"
    assert info["params"][0]["range"] == {"ge": 1} and info["params"][0]["default"] == 1
    sloppy = run("plugin", "info", "metric", "sloppy").output
    assert "load-failed" in sloppy and "has no default" in sloppy


def test_plugins_without_checking() -> None:
    out = run("plugins", "--no-check", "--json").output
    states = {c["state"] for p in json.loads(out)["plugins"] for c in p["contributions"]}
    assert states <= {"available", "loaded"}


def test_plugin_info_of_a_builtin() -> None:
    info = json.loads(run("plugin", "info", "metric", "vendi", "--json").output)
    by_name = {p["name"]: p for p in info["params"]}
    assert by_name["q"]["expects"] == "a number > 0"
    assert by_name["per_record"]["choices"] == ["leverage", "contribution", "uniqueness"]
    assert by_name["per_record"]["optional"] is True
    missing = run("plugin", "info", "metric", "nope", code=1)
    assert "no metric named 'nope'" in missing.output


@pytest.fixture
def project(tmp_path: Path) -> Path:
    location = tmp_path / "p.vscope"
    run("import", location, write_jsonl(tmp_path / "d.jsonl", qa_rows(5)), "--name", "d")
    return location


@pytest.mark.slow
def test_params_are_typed_for_every_command(tmp_path: Path, project: Path) -> None:
    source = write_jsonl(tmp_path / "more.jsonl", qa_rows(3))
    bad = [
        (("import", project, source, "-p", "encoding=latin-1", "-p", "depth=2"),
         "--param depth: no such parameter of importer 'jsonl' (parameters: encoding, "
         "max_row_bytes, max_field_bytes, max_depth, max_gzip_ratio, max_gzip_bytes)"),
        (("import", project, tmp_path / "x.parquet", "--dry-run", "-p", "batch_size=0"),
         "--param batch_size: expected an integer >= 1, got '0'"),
        (("export", project, "d", tmp_path / "out.parquet", "-p", "compression=fast"),
         "--param compression: expected one of 'zstd', 'snappy', 'gzip', 'brotli', 'lz4', "
         "'none', got 'fast'"),
        (("embed", project, "d", "-p", "precision=fp64"),
         "--param precision: expected one of 'auto', 'fp32', 'fp16', got 'fp64'"),
        (("gradients", project, "d", "-p", "dim=0"),
         "--param dim: expected an integer >= 1 or none, got '0'"),
        (("score", project, "d", "--metric", "vendi", "-p", "per_record=all"),
         "--param per_record: expected one of 'leverage', 'contribution', 'uniqueness' or "
         "none, got 'all'"),
        (("score", project, "d", "-p", "k=x"), "--param k: expected an integer >= 1, got 'x'"),
        (("score", project, "d", "-p", "q"), "--param 'q': expected NAME=VALUE"),
    ]  # fmt: skip
    for args, message in bad:
        result = run(*args, code=2)
        assert message in " ".join(result.output.split()), (args, result.output)


def test_typed_params_reach_the_plugins(tmp_path: Path, project: Path) -> None:
    semicolons = tmp_path / "semi.csv"
    semicolons.write_text("prompt;response\nhi;there\n")
    run("import", project, semicolons, "--name", "semi", "-p", "delimiter=;")
    shown = json.loads(run("show", project, "semi", "--json").output)
    assert shown[0]["prompt"] == "hi"
    run("export", project, "d", tmp_path / "out.csv", "-p", "delimiter=\t")
    assert (tmp_path / "out.csv").read_text().splitlines()[0].count("\t") >= 1
