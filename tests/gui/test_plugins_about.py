"""The plugins window (with a broken plugin) and the About dialog."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.gui.conftest import screenshot
from vendiscope.core.base.errors import PluginError, PluginRuntimeError
from vendiscope.core.plugin_host.interfaces import View
from vendiscope.core.plugin_host.manifest import Contribution, PluginManifest
from vendiscope.core.plugin_host.registry import PluginRegistry
from vendiscope.gui.windows.about import AboutDialog, versions
from vendiscope.gui.windows.plugins_window import DETAILS_ROLE, PluginsWindow


@pytest.fixture
def registry() -> PluginRegistry:
    registry = PluginRegistry.discover()
    registry.add_manifest(
        PluginManifest(
            "broken-plugin",
            (Contribution("embedder", "broken", "vendiscope_no_such_module:Embedder", "Broken"),),
            version="0.3",
        ),
        origin="entry point 'broken' (broken_plugin:manifest)",
    )
    registry.add_manifest(
        PluginManifest("from-the-future", (), api_version="9.0"), origin="entry point 'future'"
    )
    with pytest.raises(PluginError):
        registry.load("embedder", "broken")  # the import fails; the registry records it
    return registry


def test_a_failing_plugin_is_listed_with_its_traceback(qtbot, registry) -> None:
    window = PluginsWindow(registry)
    qtbot.addWidget(window)
    window.resize(900, 560)
    window.show()
    tree = window.tree
    names = [tree.topLevelItem(i).text(0) for i in range(tree.topLevelItemCount())]
    assert names[:2] == ["Failed to load (2)", "vendiscope-builtins"]
    assert "broken-plugin" in names
    builtins = tree.topLevelItem(1)
    kinds = {builtins.child(i).text(1) for i in range(builtins.childCount())}
    assert {"importer", "exporter", "embedder", "featurizer", "metric"} <= kinds
    failures = tree.topLevelItem(0)
    texts = [failures.child(i).text(3) for i in range(failures.childCount())]
    assert any("needs plugin API 9.0" in t for t in texts)
    children = [failures.child(i) for i in range(failures.childCount())]
    broken = next(item for item in children if "broken" in item.text(0))
    assert "vendiscope_no_such_module" in broken.text(3)
    assert broken.text(3).startswith("Failed to load: ")
    tree.setCurrentItem(broken)
    assert "Traceback" in window.details.toPlainText()
    assert "Traceback (most recent call last)" in broken.data(0, DETAILS_ROLE)
    screenshot(window, "plugins-window")


class _CrashingView(View):
    def build(self, data):
        raise RuntimeError("the chart data could not be computed")


def test_a_view_failing_when_run_is_not_listed_as_failed_to_load(qtbot, registry) -> None:
    """A view that loads but raises while building its chart is a run-time failure."""
    registry.add_manifest(
        PluginManifest(
            "crashy-views",
            (Contribution("view", "crashy", f"{__name__}:_CrashingView", "Crashy chart"),),
            version="2.0",
        ),
        origin="entry point 'crashy'",
    )
    view = registry.create("view", "crashy")
    with pytest.raises(PluginRuntimeError), registry.running("view", "crashy", "build"):
        view.build({})
    window = PluginsWindow(registry)
    qtbot.addWidget(window)
    window.resize(900, 560)
    window.show()
    tree = window.tree
    groups = {tree.topLevelItem(i).text(0): tree.topLevelItem(i)
              for i in range(tree.topLevelItemCount())}  # fmt: skip
    assert "Failed to load (2)" in groups  # the broken embedder and the future API only
    run = groups["Failed when run (1)"]
    failed = run.child(0)
    assert "crashy" in failed.text(0)
    note = failed.text(3)
    assert note.startswith("Failed when run: ")
    assert "the chart data could not be computed" in note
    loads = groups["Failed to load (2)"]
    assert not any("crashy" in loads.child(i).text(0) for i in range(loads.childCount()))
    plugin = groups["crashy-views"]
    contribution = plugin.child(0)
    assert contribution.text(0) == "Crashy chart"
    assert contribution.text(2) == "failed when run"
    assert contribution.text(3).startswith("Failed when run: ")
    tree.setCurrentItem(failed)
    assert "RuntimeError" in window.details.toPlainText()
    assert window.failure_texts()[-1].startswith("crashy-views: Failed when run: ")
    screenshot(window, "plugins-window-run-failure")


def test_about_lists_versions(qtbot) -> None:
    dialog = AboutDialog()
    qtbot.addWidget(dialog)
    dialog.show()
    found = dict(versions())
    for name in ("Vendiscope", "Python", "Qt", "PySide6", "torch", "faiss"):
        assert found[name], name
    assert dialog.table.topLevelItemCount() == len(found)
    screenshot(dialog, "about")


@pytest.mark.slow
def test_the_window_and_about_import_nothing_heavy() -> None:
    probe = (
        "import sys\n"
        "from vendiscope.gui.app import create_app, create_window\n"
        "from vendiscope.gui.windows.about import AboutDialog\n"
        "app = create_app(['x'])\n"
        "window = create_window()\n"
        "window.show(); app.processEvents()\n"
        "AboutDialog(window)\n"
        "heavy = [m for m in ('torch', 'transformers', 'sentence_transformers', 'faiss', 'umap',"
        " 'datasets', 'pyarrow', 'sklearn', 'pyqtgraph') if m in sys.modules]\n"
        "print('HEAVY', heavy)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    assert "HEAVY []" in out.stdout, out.stdout + out.stderr
