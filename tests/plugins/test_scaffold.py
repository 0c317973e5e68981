"""``vendiscope plugin new``: every kind scaffolds a package whose own tests pass and that
Vendiscope discovers through its entry point."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from vendiscope.cli._app import app
from vendiscope.core.base.errors import PluginError
from vendiscope.core.plugin_host import PluginRegistry
from vendiscope.core.plugin_host.scaffold import SCAFFOLD_KINDS, plugin_names, scaffold_plugin
from vendiscope.testing import check_registered

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    tomllib = None

runner = CliRunner()
RUFF = Path(sys.executable).with_name("ruff")


@pytest.fixture(scope="module")
def scaffolded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One package per kind, written by the command line."""
    folder = tmp_path_factory.mktemp("scaffolds")
    made = {}
    for kind in SCAFFOLD_KINDS:
        result = runner.invoke(
            app, ["plugin", "new", f"acme-{kind}", "--kind", kind, "--dir", str(folder)]
        )
        assert result.exit_code == 0, result.output
        assert f"created vendiscope-acme-{kind}" in result.output
        made[kind] = folder / f"vendiscope-acme-{kind}"
    return made


@pytest.fixture
def forget_generated() -> Iterator[None]:
    yield
    for name in [m for m in sys.modules if m.startswith("vendiscope_acme")]:
        del sys.modules[name]


def test_the_package_layout(scaffolded: dict[str, Path]) -> None:
    if tomllib is None:
        pytest.skip("tomllib needs Python 3.11")
    metric = scaffolded["metric"]
    files = sorted(str(p.relative_to(metric)) for p in metric.rglob("*") if p.is_file())
    assert files == [
        "README.md",
        "pyproject.toml",
        "src/vendiscope_acme_metric/__init__.py",
        "src/vendiscope_acme_metric/metric.py",
        "tests/test_vendiscope_acme_metric.py",
    ]
    project = tomllib.loads((metric / "pyproject.toml").read_text())
    assert project["project"]["name"] == "vendiscope-acme-metric"
    assert project["project"]["entry-points"]["vendiscope.plugins"] == {
        "acme-metric": "vendiscope_acme_metric:manifest"
    }
    readme = (metric / "README.md").read_text()
    assert "vendiscope score PROJECT DATASET --metric acme-metric" in readme


def test_generated_code_is_lint_clean(scaffolded: dict[str, Path]) -> None:
    assert RUFF.exists(), "ruff is part of the dev install"
    for folder in scaffolded.values():
        for command in (["check", "-q", "."], ["format", "-q", "--check", "."]):
            done = subprocess.run([str(RUFF), *command], cwd=folder, capture_output=True, text=True)
            assert done.returncode == 0, f"{folder.name}: {done.stdout}{done.stderr}"


@pytest.mark.slow
def test_the_generated_tests_pass_for_every_kind(scaffolded: dict[str, Path]) -> None:
    """Each package's own tests (the kit plus its behaviour tests), as its author runs them."""
    env = dict(os.environ)
    sources = [str(folder / "src") for folder in scaffolded.values()]
    env["PYTHONPATH"] = os.pathsep.join([*sources, env.get("PYTHONPATH", "")])
    tests = [str(folder / "tests") for folder in scaffolded.values()]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests],
        capture_output=True,
        text=True,
        env=env,
        cwd=next(iter(scaffolded.values())).parent,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    passed = int(done.stdout.strip().splitlines()[-1].split(" passed")[0].split()[-1])
    assert passed >= 7 * 8  # every kind: ten or so kit checks and its own tests


def _install_metadata(folder: Path, site: Path) -> None:
    """What ``pip install`` records for the package: a dist-info with its entry points."""
    project = tomllib.loads((folder / "pyproject.toml").read_text())["project"]
    info = site / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n"
    )
    lines = []
    for group, points in project["entry-points"].items():
        lines.append(f"[{group}]")
        lines += [f"{name} = {value}" for name, value in points.items()]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n")


@pytest.mark.usefixtures("forget_generated")
def test_discovered_through_the_generated_entry_point(
    scaffolded: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if tomllib is None:
        pytest.skip("tomllib needs Python 3.11")
    for kind in ("selector", "embedder"):
        _install_metadata(scaffolded[kind], tmp_path / "site")
        monkeypatch.syspath_prepend(str(scaffolded[kind] / "src"))
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    registry = PluginRegistry.discover(plugin_dir=None)
    names = {p.name: p for p in registry.plugins}
    assert {"vendiscope-acme-selector", "vendiscope-acme-embedder"} <= set(names)
    assert registry.failures == []
    assert "vendiscope_acme_selector.selector" not in sys.modules  # the class loads lazily
    check_registered("selector", "acme-selector", registry=registry)
    check_registered("embedder", "acme-embedder", registry=registry)
    assert registry.status("selector", "acme-selector").state == "loaded"


@pytest.mark.slow
@pytest.mark.usefixtures("forget_generated")
def test_pip_builds_and_installs_it(
    scaffolded: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A real build and install (into a temporary folder, not the shared venv)."""
    site = tmp_path / "site"
    done = subprocess.run(
        [
            sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
            "--no-build-isolation", "--no-index", "--target", str(site),
            str(scaffolded["metric"]),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    monkeypatch.syspath_prepend(str(site))
    registry = PluginRegistry.discover(plugin_dir=None)
    assert registry.get("metric", "acme-metric").plugin == "vendiscope-acme-metric"
    check_registered("metric", "acme-metric", registry=registry)


def test_names_and_refusals(tmp_path: Path) -> None:
    assert plugin_names("Acme_Tools", "metric") == {
        "plugin": "acme-tools",
        "dist": "vendiscope-acme-tools",
        "package": "vendiscope_acme_tools",
        "cls": "AcmeToolsMetric",
    }
    assert plugin_names("vendiscope-spread", "metric")["cls"] == "SpreadMetric"
    assert plugin_names("kcenter-selector", "selector")["cls"] == "KcenterSelector"
    with pytest.raises(PluginError, match="must be lower-case letters and digits"):
        plugin_names("9lives", "metric")
    with pytest.raises(PluginError, match="unknown kind 'widget'"):
        scaffold_plugin("x", "widget", tmp_path)
    scaffold_plugin("twice", "metric", tmp_path)
    with pytest.raises(PluginError, match="exists and is not empty"):
        scaffold_plugin("twice", "metric", tmp_path)
    scaffold_plugin("twice", "metric", tmp_path, force=True)
    result = runner.invoke(app, ["plugin", "new", "twice", "--dir", str(tmp_path)])
    assert result.exit_code == 1 and "exists and is not empty" in result.output
