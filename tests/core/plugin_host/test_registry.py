"""Plugin discovery: built-ins through the entry point, broken plugins recorded, never fatal."""

from __future__ import annotations

import sys
import textwrap
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

from vendiscope.core.base.errors import PluginError
from vendiscope.core.plugin_host import KINDS, PluginRegistry, default_registry
from vendiscope.core.plugin_host.manifest import ENTRY_POINT_GROUP, api_compatible


@pytest.fixture
def plugin_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    for name in [m for m in sys.modules if m.startswith("vsp_")]:
        del sys.modules[name]


def write_module(folder: Path, name: str, source: str) -> None:
    (folder / f"{name}.py").write_text(textwrap.dedent(source))


def entry(name: str, value: str) -> EntryPoint:
    return EntryPoint(name=name, value=value, group=ENTRY_POINT_GROUP)


GOOD_PLUGIN = """
    from vendiscope.core.plugin_host import Contribution, PluginManifest
    manifest = PluginManifest(
        name="good",
        api_version="{api}",
        contributions=(
            Contribution("metric", "mean-norm", "vsp_good_impl:MeanNorm", "Mean norm"),
            Contribution("metric", "broken", "vsp_good_impl_missing:Nope"),
            Contribution("metric", "not-a-metric", "vsp_good_impl:NotAMetric"),
        ),
    )
"""

GOOD_IMPL = """
    import numpy as np
    from vendiscope.core.plugin_host import Metric, MetricResult

    class MeanNorm(Metric):
        def __init__(self, order: int = 2):
            self.order = order

        def compute(self, vectors, *, quality=None):
            return MetricResult(float(np.linalg.norm(vectors, ord=self.order, axis=1).mean()))

    class NotAMetric:
        pass
"""


def test_builtins_come_through_the_entry_point() -> None:
    registry = PluginRegistry.discover()
    assert "vendiscope-builtins" in [p.name for p in registry.plugins]
    importers = {c.name for c in registry.contributions("importer")}
    exporters = {c.name for c in registry.contributions("exporter")}
    assert importers >= {"jsonl", "json", "csv", "parquet", "hf-disk", "txt-folder"}
    assert exporters >= {"jsonl", "csv", "parquet", "hf-disk"}
    assert default_registry() is default_registry()


@pytest.fixture
def good_registry(plugin_dir: Path) -> PluginRegistry:
    """A registry holding one well-formed third-party plugin (with two broken contributions)."""
    write_module(plugin_dir, "vsp_good", GOOD_PLUGIN.format(api="1.0"))
    write_module(plugin_dir, "vsp_good_impl", GOOD_IMPL)
    registry = PluginRegistry()
    registry.add_entry_points([entry("good", "vsp_good:manifest")])
    return registry


def test_contributions_are_imported_lazily(good_registry: PluginRegistry) -> None:
    registry = good_registry
    assert "vsp_good_impl" not in sys.modules
    metric = registry.create("metric", "mean-norm", order=1)
    assert "vsp_good_impl" in sys.modules
    import numpy as np

    assert metric.compute(np.ones((3, 4))).value == pytest.approx(4.0)


def test_plugin_raising_at_import_is_recorded(plugin_dir: Path) -> None:
    write_module(plugin_dir, "vsp_boom", "raise RuntimeError('kaboom at import')\n")
    registry = PluginRegistry()
    registry.add_entry_points(
        [entry("boom", "vsp_boom:manifest"), entry("builtins", "vendiscope.plugins:manifest")]
    )
    (failure,) = registry.failures
    assert failure.plugin == "boom" and "kaboom at import" in failure.message
    assert "RuntimeError" in failure.details
    assert registry.get("importer", "jsonl").plugin == "vendiscope-builtins"


def test_contribution_failures_are_reported_not_fatal(good_registry: PluginRegistry) -> None:
    registry = good_registry
    with pytest.raises(PluginError, match=r"'broken' failed to load.*vsp_good_impl_missing"):
        registry.load("metric", "broken")
    with pytest.raises(PluginError, match="not a subclass of Metric"):
        registry.load("metric", "not-a-metric")
    assert [f.contribution for f in registry.failures] == ["broken", "not-a-metric"]
    assert registry.load("metric", "mean-norm").__name__ == "MeanNorm"


def test_bad_parameter_is_named(good_registry: PluginRegistry) -> None:
    registry = good_registry
    with pytest.raises(PluginError, match=r"no parameter 'degree'.*parameters: order"):
        registry.create("metric", "mean-norm", degree=3)


def test_newer_api_is_refused_with_a_reason(plugin_dir: Path) -> None:
    write_module(plugin_dir, "vsp_good", GOOD_PLUGIN.format(api="2.0"))
    registry = PluginRegistry()
    registry.add_entry_points([entry("good", "vsp_good:manifest")])
    assert registry.contributions("metric") == []
    assert "needs plugin API 2.0" in registry.failures[0].message


def test_not_a_manifest_and_name_clash(plugin_dir: Path) -> None:
    write_module(plugin_dir, "vsp_odd", "manifest = {'name': 'odd'}\n")
    write_module(
        plugin_dir,
        "vsp_clash",
        """
        from vendiscope.core.plugin_host import Contribution, PluginManifest
        manifest = PluginManifest(
            name="clash",
            contributions=(Contribution("importer", "jsonl", "vsp_clash:Mine"),),
        )
        """,
    )
    registry = PluginRegistry()
    registry.add_entry_points(
        [
            entry("odd", "vsp_odd:manifest"),
            entry("clash", "vsp_clash:manifest"),
            entry("builtins", "vendiscope.plugins:manifest"),
        ]
    )
    messages = [f.message for f in registry.failures]
    assert any("not a vendiscope PluginManifest" in m for m in messages)
    assert any("already provided by 'vendiscope-builtins'" in m for m in messages)
    assert registry.get("importer", "jsonl").plugin == "vendiscope-builtins"


def test_unknown_names_list_what_exists() -> None:
    registry = PluginRegistry.discover()
    with pytest.raises(PluginError, match=r"no exporter named 'xml' \(available: csv, hf-disk"):
        registry.get("exporter", "xml")
    with pytest.raises(PluginError, match="unknown plugin kind"):
        registry.contributions("widget")
    assert set(KINDS) >= {"importer", "view"}


@pytest.mark.parametrize(
    ("required", "ok"), [("1.0", True), ("1.1", False), ("0.9", False), ("x", False)]
)
def test_api_compatibility(required: str, ok: bool) -> None:
    assert api_compatible(required, "1.0") is ok
