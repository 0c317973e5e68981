"""The stable plugin API: one facade, cheap to import, versioned."""

from __future__ import annotations

import ast
import subprocess
import sys
from importlib import import_module
from pathlib import Path

import vendiscope.api as api
from vendiscope.core.base import errors, jobs, text
from vendiscope.core.plugin_host import PluginRegistry, charts, interfaces, manifest, params
from vendiscope.core.studies.algorithms import answers
from vendiscope.core.view_data import colouring, constants, missing, protocol


def test_the_facade_re_exports_the_real_objects() -> None:
    homes = (charts, errors, jobs, interfaces, manifest, params, missing, protocol, text, answers,
             colouring, constants)  # fmt: skip
    for name in set(api.__all__) - set(api._LAZY):
        value = getattr(api, name)
        assert any(getattr(home, name, None) is value for home in homes), name
    expected = {
        "Importer", "Exporter", "Embedder", "Featurizer", "Metric", "Selector", "View",
        "SourceRow", "BadRow", "SourceInfo", "MetricResult", "Selection",
        "PluginManifest", "Contribution", "API_VERSION",
        "Progress", "CancelToken", "Cancelled", "NullProgress",
        "InputError", "Location", "ExportError", "PluginError",
        "Range", "Choices", "Unit", "Label", "ParamSpec", "describe_params", "coerce_params",
        "Chart", "ScatterSeries", "validate_chart",
        "ViewData", "view_data", "NotComputed", "VENDI_METRICS", "METRIC_TITLES",
        "Generator", "Generation", "Message",
        "Trainer", "Evaluation", "TrainingOutcome", "TrainingCost", "final_answer", "same_answer",
    }  # fmt: skip
    assert expected <= set(api.__all__)
    assert not any(name.startswith("_") for name in api.__all__)


def test_the_algorithms_load_on_first_use_and_are_the_real_objects() -> None:
    assert set(api._LAZY) <= set(api.__all__)
    for name, (module, attribute) in api._LAZY.items():
        assert getattr(api, name) is getattr(import_module(module), attribute), name
        assert name in dir(api)
    assert {"greedy_vendi", "k_center", "load_proxy", "GradientEngine", "study_chart"} <= set(
        api._LAZY
    )


def test_type_checkers_see_the_same_lazy_names() -> None:
    """The ``if TYPE_CHECKING:`` imports of api.py name exactly what ``_LAZY`` loads."""
    tree = ast.parse(Path(api.__file__).read_text(encoding="utf-8"))
    (block,) = [
        n for n in tree.body if isinstance(n, ast.If) and ast.unparse(n.test) == "TYPE_CHECKING"
    ]
    typed = {
        alias.asname or alias.name: (node.module, alias.name)
        for node in block.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    assert typed == api._LAZY


def test_importing_the_api_stays_cheap() -> None:
    code = (
        "import sys, vendiscope.api; "
        "heavy = [m for m in ('numpy', 'sqlalchemy', 'torch', 'PySide6') if m in sys.modules]; "
        "print(heavy)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_a_plugin_for_a_newer_api_is_refused_with_a_message() -> None:
    registry = PluginRegistry()
    major, minor = api.API_VERSION.split(".")
    future = f"{major}.{int(minor) + 1}"
    newer = api.PluginManifest(
        name="from-the-future",
        api_version=future,
        contributions=(api.Contribution("metric", "future", "nowhere:Metric"),),
    )
    registry.add_manifest(newer, origin="test")
    (failure,) = registry.failures
    assert failure.plugin == "from-the-future"
    assert failure.message == (
        f"needs plugin API {future}; this Vendiscope provides {api.API_VERSION} "
        "(upgrade Vendiscope or use a matching plugin version)"
    )
    assert registry.contributions("metric") == []
