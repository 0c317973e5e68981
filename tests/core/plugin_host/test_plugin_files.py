"""File plugins: a ``.py`` file in the user's plugin folder is discovered, broken ones reported."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest

from vendiscope.core.plugin_host import PluginRegistry
from vendiscope.core.plugin_host.userdir import ENV_VAR, PACKAGE, user_plugin_dir

NORMS = """
    import numpy as np
    from vendiscope.api import Contribution, Metric, MetricResult, PluginManifest
    from vendiscope_user_plugins._shared import mean_norm

    class MeanNorm(Metric):
        def __init__(self, order: int = 2):
            self.order = order

        def compute(self, vectors, *, quality=None):
            return MetricResult(mean_norm(np.asarray(vectors), self.order))

    manifest = PluginManifest(
        name="norms",
        contributions=(Contribution("metric", "mean-norm", f"{__name__}:MeanNorm"),),
    )
"""
SHARED = """
    import numpy as np

    def mean_norm(vectors, order):
        return float(np.linalg.norm(vectors, ord=order, axis=1).mean())
"""


def write(folder: Path, name: str, source: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    return path


def test_a_plugin_file_is_discovered_and_used(plugin_folder: Path) -> None:
    write(plugin_folder, "norms.py", NORMS)
    write(plugin_folder, "_shared.py", SHARED)  # a helper, not a plugin
    (plugin_folder / "notes.txt").write_text("not python")
    registry = PluginRegistry.discover(plugin_dir=plugin_folder)
    assert registry.failures == []
    (info,) = registry.file_plugins
    assert info.name == "norms" and info.source == "file"
    assert info.origin == f"file {plugin_folder / 'norms.py'}"
    contribution = registry.get("metric", "mean-norm")
    assert contribution.target == f"{PACKAGE}.norms:MeanNorm"
    assert contribution.plugin == "norms"
    metric = registry.create("metric", "mean-norm", order=1)
    assert metric.compute(np.ones((3, 4))).value == pytest.approx(4.0)
    assert registry.get("importer", "jsonl").plugin == "vendiscope-builtins"  # still there


def test_the_folder_comes_from_the_environment(
    plugin_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV_VAR, str(plugin_folder))
    assert user_plugin_dir() == plugin_folder
    write(plugin_folder, "norms.py", NORMS)
    write(plugin_folder, "_shared.py", SHARED)
    assert "mean-norm" in {c.name for c in PluginRegistry.discover().contributions("metric")}
    monkeypatch.setenv(ENV_VAR, "")
    assert user_plugin_dir() is None
    monkeypatch.delenv(ENV_VAR)
    assert user_plugin_dir().name == "plugins"  # platformdirs' user data folder


def test_broken_plugin_files_are_reported_and_the_rest_works(plugin_folder: Path) -> None:
    write(plugin_folder, "norms.py", NORMS)
    write(plugin_folder, "_shared.py", SHARED)
    write(plugin_folder, "boom.py", "raise RuntimeError('kaboom in a plugin file')\n")
    write(plugin_folder, "quiet.py", "x = 1\n")
    write(plugin_folder, "bad-name.py", "manifest = None\n")
    write(plugin_folder, "odd.py", "manifest = {'name': 'odd'}\n")
    write(
        plugin_folder,
        "clash.py",
        """
        from vendiscope.api import Contribution, PluginManifest
        manifest = PluginManifest(
            name="clash",
            contributions=(Contribution("importer", "jsonl", f"{__name__}:Nope"),),
        )
        """,
    )
    registry = PluginRegistry.discover(plugin_dir=plugin_folder)
    by_plugin = {f.plugin: f.message for f in registry.failures}
    assert "kaboom in a plugin file" in by_plugin["file boom.py"]
    assert "RuntimeError" in next(f.details for f in registry.failures if "boom" in f.plugin)
    assert "defines no module-level 'manifest'" in by_plugin["file quiet.py"]
    assert "not a Python identifier" in by_plugin["file bad-name.py"]
    assert "not a vendiscope PluginManifest" in by_plugin["file odd.py"]
    assert "already provided by 'vendiscope-builtins'" in by_plugin["clash"]
    assert registry.get("importer", "jsonl").plugin == "vendiscope-builtins"
    assert registry.create("metric", "mean-norm").compute(np.ones((2, 2))).value > 0


def test_an_edited_file_is_read_again_on_rediscovery(plugin_folder: Path) -> None:
    write(plugin_folder, "norms.py", NORMS)
    write(plugin_folder, "_shared.py", SHARED)
    PluginRegistry.discover(plugin_dir=plugin_folder)
    write(plugin_folder, "norms.py", NORMS.replace('"mean-norm"', '"average-norm"'))
    registry = PluginRegistry.discover(plugin_dir=plugin_folder)
    assert [c.name for c in registry.contributions("metric") if c.plugin == "norms"] == [
        "average-norm"
    ]


def test_no_folder_no_file_plugins(tmp_path: Path) -> None:
    registry = PluginRegistry.discover(plugin_dir=tmp_path / "missing")
    assert registry.file_plugins == [] and registry.failures == []
    assert PluginRegistry.discover(plugin_dir=None).file_plugins == []


def test_a_folder_or_file_others_can_write_is_not_loaded(plugin_folder: Path) -> None:
    import os

    write(plugin_folder, "norms.py", NORMS)
    write(plugin_folder, "_shared.py", SHARED)
    plugin_folder.chmod(0o777)
    registry = PluginRegistry.discover(plugin_dir=plugin_folder)
    assert registry.file_plugins == []
    (failure,) = registry.failures
    assert "writable by every user" in failure.message and "chmod o-w" in failure.message

    plugin_folder.chmod(0o755)
    other = write(plugin_folder, "other.py", NORMS.replace('"norms"', '"other"'))
    other.chmod(0o666)
    registry = PluginRegistry.discover(plugin_dir=plugin_folder)
    assert [p.name for p in registry.file_plugins] == ["norms"]
    assert [f.plugin for f in registry.failures] == ["file other.py"]
    if os.geteuid() == 0:  # only root can give a file away
        other.chmod(0o644)
        os.chown(other, 65534, 65534)
        registry = PluginRegistry.discover(plugin_dir=plugin_folder)
        assert "belongs to another user" in registry.failures[0].message
