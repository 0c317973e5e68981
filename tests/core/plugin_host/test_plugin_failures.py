"""Broken plugins are reported with their names and never take the app down.

Four ways to be broken — fails to import, has a wrong signature, raises while a job runs it,
returns something malformed — each recorded in ``registry.failures`` and the contribution's
status, while the other contributions keep working.
"""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import qa_rows, write_jsonl
from vendiscope.core.base.errors import InputError, PluginError, PluginRuntimeError
from vendiscope.core.base.jobs import Cancelled
from vendiscope.core.io.exporting import export_dataset
from vendiscope.core.io.importing import import_dataset
from vendiscope.core.metrics.scoring import score_dataset
from vendiscope.core.plugin_host import PluginRegistry
from vendiscope.core.plugin_host.manifest import Contribution, PluginManifest
from vendiscope.core.plugin_host.registry import AVAILABLE, LOAD_FAILED, LOADED, RUN_FAILED
from vendiscope.core.store import vectors

BROKEN = """
    import numpy as np
    from vendiscope.api import (
        Exporter, Importer, Metric, MetricResult, Selection, Selector, SourceInfo, SourceRow,
    )

    class Good(Metric):
        def compute(self, vectors, *, quality=None):
            return MetricResult(float(len(vectors)))

    class Raises(Metric):
        def compute(self, vectors, *, quality=None):
            return {}["missing"]

    class Rejects(Metric):
        def compute(self, vectors, *, quality=None):
            raise ValueError("needs at least 1000 rows")

    class WrongShape(Metric):
        def compute(self, vectors, *, quality=None):
            return MetricResult(1.0, per_record=np.zeros(len(vectors) + 1))

    class NotANumber(Metric):
        def compute(self, vectors, *, quality=None):
            return MetricResult("high")

    class NoProgress(Selector):
        def select(self, vectors, k, *, quality=None):
            return Selection(np.arange(k))

    class NeedsArgument(Metric):
        def __init__(self, threshold):
            self.threshold = threshold

        def compute(self, vectors, *, quality=None):
            return MetricResult(0.0)

    class NoQuality(Metric):
        def compute(self, vectors):
            return MetricResult(0.0)

    class BadRows(Importer):
        def inspect(self, path):
            return SourceInfo()

        def read(self, path):
            yield SourceRow(1, {"text": "fine"})
            raise KeyError("column 7")

    class Crashes(Exporter):
        suffix = ".txt"

        def write(self, rows, destination, *, schema):
            for _ in rows:
                raise ZeroDivisionError("exporter bug")
            return 0
"""


def write(folder: Path, name: str, source: str) -> None:
    (folder / f"{name}.py").write_text(textwrap.dedent(source), encoding="utf-8")


@pytest.fixture
def registry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[PluginRegistry]:
    monkeypatch.syspath_prepend(str(tmp_path))
    write(tmp_path, "vsp_broken", BROKEN)
    write(tmp_path, "vsp_unimportable", "import not_a_module_anywhere\n")
    registry = PluginRegistry.discover(plugin_dir=None)
    names = [
        ("metric", "good", "Good"),
        ("metric", "raises", "Raises"),
        ("metric", "rejects", "Rejects"),
        ("metric", "wrong-shape", "WrongShape"),
        ("metric", "not-a-number", "NotANumber"),
        ("selector", "no-progress", "NoProgress"),
        ("metric", "needs-argument", "NeedsArgument"),
        ("metric", "no-quality", "NoQuality"),
        ("importer", "bad-rows", "BadRows"),
        ("exporter", "crashes", "Crashes"),
    ]
    contributions = [Contribution(k, n, f"vsp_broken:{c}") for k, n, c in names]
    contributions.append(Contribution("metric", "unimportable", "vsp_unimportable:Metric"))
    registry.add_manifest(PluginManifest("broken-things", tuple(contributions)))
    yield registry
    for name in ("vsp_broken", "vsp_unimportable"):
        sys.modules.pop(name, None)


@pytest.fixture
def scored(project, tmp_path: Path, registry: PluginRegistry) -> str:
    import_dataset(project, write_jsonl(tmp_path / "d.jsonl", qa_rows(12)), name="d")
    rows = np.random.default_rng(0).normal(size=(12, 4)).astype(np.float32)
    vectors.write_matrix(project, "d", "random", rows, kind="embedding", model="random", params={})
    return "d"


def test_load_failures_name_the_plugin_and_contribution(registry: PluginRegistry) -> None:
    with pytest.raises(PluginError, match=r"metric 'unimportable' failed to load.*not_a_module"):
        registry.load("metric", "unimportable")
    with pytest.raises(PluginError, match=r"select\(\) is missing .* progress, cancel"):
        registry.load("selector", "no-progress")
    with pytest.raises(PluginError, match=r"__init__ parameter 'threshold' has no default"):
        registry.load("metric", "needs-argument")
    with pytest.raises(PluginError, match=r"compute\(\) is missing the keyword-only .*quality"):
        registry.load("metric", "no-quality")
    failures = {f.contribution: f for f in registry.failures}
    assert set(failures) == {"unimportable", "no-progress", "needs-argument", "no-quality"}
    assert {f.plugin for f in failures.values()} == {"broken-things"}
    assert all(f.stage == "load" for f in failures.values())
    assert "ModuleNotFoundError" in failures["unimportable"].details
    # recorded once, however often it is asked for
    with pytest.raises(PluginError):
        registry.load("metric", "unimportable")
    assert len(registry.failures) == 4
    assert registry.status("metric", "unimportable").state == LOAD_FAILED
    assert registry.status("metric", "good").state == AVAILABLE
    assert registry.create("metric", "good").compute(np.ones((3, 2))).value == 3.0
    assert registry.status("metric", "good").state == LOADED


def test_verify_loads_everything_and_returns_what_failed(registry: PluginRegistry) -> None:
    found = registry.verify()
    assert {f.contribution for f in found} == {
        "unimportable",
        "no-progress",
        "needs-argument",
        "no-quality",
    }
    states = {s.contribution.name: s.state for s in registry.statuses()}
    assert states["good"] == states["jsonl"] == LOADED
    assert registry.verify() == []  # nothing new


def test_a_metric_raising_in_the_scoring_job(project, scored, registry) -> None:
    with pytest.raises(PluginRuntimeError) as caught:
        score_dataset(project, scored, metric="raises", vector_set="random", registry=registry)
    message = str(caught.value)
    assert "metric 'raises' (plugin 'broken-things') failed in compute: KeyError" in message
    assert isinstance(caught.value.__cause__, KeyError)
    (failure,) = registry.failures
    assert failure.stage == "run" and failure.contribution == "raises"
    assert "KeyError" in failure.details
    assert registry.status("metric", "raises").state == RUN_FAILED
    run = project.runs("d")[-1]
    assert run.status == "failed"
    # the rest still works, in the same registry and project
    good = score_dataset(project, scored, metric="good", vector_set="random", registry=registry)
    assert good.value == 12.0


def test_a_metric_rejecting_its_input_is_not_a_plugin_failure(project, scored, registry) -> None:
    with pytest.raises(PluginRuntimeError, match=r"^metric 'rejects': needs at least 1000 rows"):
        score_dataset(project, scored, metric="rejects", vector_set="random", registry=registry)
    assert registry.failures == []


@pytest.mark.parametrize(
    ("metric", "problem"),
    [
        ("wrong-shape", r"per-record scores of shape \(13,\); expected \(12,\)"),
        ("not-a-number", "returned a value of type str, not a number"),
    ],
)
def test_a_malformed_result_is_reported(project, scored, registry, metric, problem) -> None:
    with pytest.raises(PluginRuntimeError, match=problem):
        score_dataset(project, scored, metric=metric, vector_set="random", registry=registry)
    (failure,) = registry.failures
    assert failure.contribution == metric and failure.stage == "run"
    assert f"metric '{metric}' (plugin 'broken-things')" in failure.message


def test_an_importer_raising_midway(project, tmp_path, registry) -> None:
    source = tmp_path / "x.txt"
    source.write_text("anything")
    with pytest.raises(PluginRuntimeError, match=r"importer 'bad-rows' .* KeyError: 'column 7'"):
        import_dataset(project, source, format="bad-rows", registry=registry)
    assert [d.name for d in project.datasets()] == []  # nothing half-imported
    with pytest.raises(InputError, match="no such file"):  # Vendiscope's own errors pass through
        import_dataset(project, tmp_path / "missing.txt", format="bad-rows", registry=registry)


def test_an_exporter_raising(project, scored, tmp_path, registry) -> None:
    with pytest.raises(PluginRuntimeError, match=r"exporter 'crashes' .*ZeroDivisionError"):
        export_dataset(project, scored, tmp_path / "out.txt", format="crashes", registry=registry)
    assert not (tmp_path / "out.txt").exists()
    assert registry.status("exporter", "crashes").state == RUN_FAILED


def test_running_lets_cancellation_through(registry: PluginRegistry) -> None:
    with pytest.raises(Cancelled), registry.running("metric", "good"):
        raise Cancelled("stop")
    assert registry.failures == []


def test_a_selection_is_checked(registry: PluginRegistry) -> None:
    from vendiscope.api import Selection

    with pytest.raises(PluginRuntimeError, match="returned the same index more than once"):
        registry.check_result("selector", "no-progress", Selection(np.array([1, 1])), rows=5, k=2)


def test_nan_scores_and_gains_from_a_plugin_are_malformed(registry: PluginRegistry) -> None:
    from vendiscope.api import MetricResult, Selection

    scores = MetricResult(3.0, per_record=np.array([0.5, np.nan, 1.0]))
    with pytest.raises(PluginRuntimeError, match=r"NaN or infinite per-record scores .*record 1"):
        registry.check_result("metric", "good", scores, rows=3)
    picks = Selection(np.array([0, 2]), gains=np.array([1.0, np.nan]))
    with pytest.raises(PluginRuntimeError, match=r"NaN or infinite gain \(pick 1\)"):
        registry.check_result("selector", "no-progress", picks, rows=5, k=2)
