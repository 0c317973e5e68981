"""Third-party plugin code is imported in a child first: one that ends or hangs its process
at import is reported by name, and every command still works."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.core.plugin_host.test_plugin_files import NORMS, SHARED, write
from vendiscope.core.plugin_host import PluginRegistry, probe


@pytest.fixture(autouse=True)
def probe_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cache = tmp_path / "probes.json"
    monkeypatch.setenv(probe.CACHE_ENV, str(cache))
    return cache


@pytest.mark.slow
def test_a_file_that_exits_at_import_is_reported_and_the_rest_loads(plugin_folder: Path) -> None:
    write(plugin_folder, "norms.py", NORMS)
    write(plugin_folder, "_shared.py", SHARED)
    write(plugin_folder, "quits.py", "import os\nos._exit(3)\n")
    registry = PluginRegistry.discover(plugin_dir=plugin_folder)
    assert [p.name for p in registry.file_plugins] == ["norms"]
    (failure,) = registry.failures
    assert failure.plugin == "file quits.py"
    assert "ended the process while being imported (exit code 3); not loaded" in failure.message


def test_a_crash_or_an_ordinary_error_at_import(plugin_folder: Path) -> None:
    write(plugin_folder, "crashes.py", "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n")
    write(plugin_folder, "raises.py", "raise RuntimeError('broken on purpose')\n")
    registry = PluginRegistry.discover(plugin_dir=plugin_folder)
    messages = {f.plugin: f.message for f in registry.failures}
    assert "crashed the process while being imported (signal 9)" in messages["file crashes.py"]
    assert "broken on purpose" in messages["file raises.py"]  # imported here, with its traceback


@pytest.mark.slow
def test_clean_verdicts_are_remembered_by_content(plugin_folder: Path, probe_cache: Path) -> None:
    write(plugin_folder, "norms.py", NORMS)
    write(plugin_folder, "_shared.py", SHARED)
    PluginRegistry.discover(plugin_dir=plugin_folder)
    remembered = probe_cache.read_text()
    assert remembered.count("file:") == 1
    PluginRegistry.discover(plugin_dir=plugin_folder)
    assert probe_cache.read_text() == remembered  # no new probe
    write(plugin_folder, "norms.py", NORMS.replace("order: int = 2", "order: int = 3"))
    PluginRegistry.discover(plugin_dir=plugin_folder)
    assert probe_cache.read_text().count("file:") == 2  # the edited file was probed again


@pytest.mark.slow
def test_doctor_and_plugins_still_answer(plugin_folder: Path, tmp_path: Path) -> None:
    write(plugin_folder, "quits.py", "import os\nos._exit(3)\n")
    env = {"VENDISCOPE_PLUGIN_DIR": str(plugin_folder), probe.CACHE_ENV: ""}
    script = textwrap.dedent(
        """
        import sys
        from vendiscope.cli import main
        sys.argv = ["vendiscope", *sys.argv[1:]]
        main()
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script, "plugins"],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
    )
    assert done.returncode == 0, done.stderr
    assert "quits.py" in done.stdout + done.stderr


QUITS_IN_COMPUTE = """
    import os
    from vendiscope.api import Contribution, Metric, PluginManifest

    class Quits(Metric):
        def compute(self, vectors, *, quality=None):
            os._exit(1)

    manifest = PluginManifest(
        name="quitter",
        contributions=(Contribution("metric", "quits", f"{__name__}:Quits"),),
    )
"""


@pytest.mark.slow
def test_a_plugin_ending_the_process_in_compute_is_named_and_its_run_closed(
    plugin_folder: Path, tmp_path: Path
) -> None:
    import numpy as np

    from tests.cli.test_doctor_cli import imported_project
    from tests.core.neighbors.test_neighbors import write_vector_set
    from vendiscope.core.store.project import Project

    location = imported_project(tmp_path)
    with Project.open(location) as project:
        rows = np.random.default_rng(0).standard_normal((300, 8)).astype(np.float32)
        write_vector_set(project, "qa", "emb", rows)
    write(plugin_folder, "quits.py", QUITS_IN_COMPUTE)
    env = {**os.environ, "VENDISCOPE_PLUGIN_DIR": str(plugin_folder)}
    command = [sys.executable, "-m", "vendiscope", "score", str(location), "qa"]
    done = subprocess.run(
        [*command, "--metric", "quits", "--vectors", "emb"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 1
    assert "(metric 'quits' of plugin 'quitter') was running" in done.stderr
    assert "the run is marked interrupted" in done.stderr
    with Project.open(location) as project:
        run = project.runs("qa")[-1]
        assert (run.plugin, run.status) == ("metric:quits", "interrupted")
