"""The built-in selector plugins: discovery, parameters, the Selector contract, delegation."""

from __future__ import annotations

import inspect
import typing

import numpy as np
import pytest

from vendiscope.core.base.jobs import Cancelled, CancelToken, NullProgress, RecordingProgress
from vendiscope.core.plugin_host import PluginRegistry, Selection, Selector
from vendiscope.core.selection.algorithms.dpp import greedy_dpp
from vendiscope.core.selection.algorithms.facility import facility_location
from vendiscope.core.selection.algorithms.greedy_vendi import greedy_vendi
from vendiscope.core.selection.algorithms.kcenter import k_center
from vendiscope.core.selection.algorithms.prismatic import prismatic
from vendiscope.core.selection.algorithms.random_choice import random_selection

NAMES = ("greedy-vendi", "prismatic", "k-center", "facility-location", "dpp", "random")

# Parameters each selector declares, their defaults, and their choices (None: a plain type).
PARAMETERS: dict[str, dict[str, tuple[object, tuple[object, ...] | type]]] = {
    "greedy-vendi": {
        "q": (1, (1, 2)),
        "epsilon": (0.01, float),
        "exhaustive_below": (2000, int),
        "seed": (0, int),
    },
    "prismatic": {
        "n_clusters": (0, int),
        "mode": ("hard", ("hard", "soft")),
        "niter": (20, int),
        "seed": (0, int),
    },
    "k-center": {"metric": ("cosine", ("cosine", "euclidean")), "seed": (0, int)},
    "facility-location": {
        "n_neighbors": (32, int),
        "index": ("auto", ("auto", "flat", "ivf", "hnsw")),
        "seed": (0, int),
    },
    "dpp": {"ridge": (1e-3, float)},
    "random": {"seed": (0, int)},
}


@pytest.fixture(scope="module")
def registry() -> PluginRegistry:
    return PluginRegistry.discover()


def rows(n: int = 300, d: int = 16, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((6, d))
    return (centres[rng.integers(0, 6, n)] + 0.3 * rng.standard_normal((n, d))).astype(np.float32)


@pytest.mark.parametrize("name", NAMES)
def test_registered_with_title_and_description(registry: PluginRegistry, name: str) -> None:
    contribution = registry.get("selector", name)
    assert contribution.plugin == "vendiscope-builtins"
    assert contribution.title and contribution.description.endswith(".")
    assert contribution.description.count(". ") == 0  # one sentence
    selector = registry.create("selector", name)
    assert isinstance(selector, Selector)


@pytest.mark.parametrize("name", NAMES)
def test_parameters_are_plain_keywords_with_typed_defaults(
    registry: PluginRegistry, name: str
) -> None:
    cls = registry.load("selector", name)
    signature = inspect.signature(cls.__init__)
    declared = {p: v for p, v in signature.parameters.items() if p != "self"}
    assert set(declared) == set(PARAMETERS[name])
    hints = typing.get_type_hints(cls.__init__)
    for parameter, (default, kind) in PARAMETERS[name].items():
        assert declared[parameter].default == default
        assert declared[parameter].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
        if isinstance(kind, tuple):
            assert typing.get_origin(hints[parameter]) is typing.Literal
            assert typing.get_args(hints[parameter]) == kind
        else:
            assert hints[parameter] is kind
    # no logic in __init__: anything is stored as given, and checked when selecting
    odd = {parameter: "odd" for parameter in PARAMETERS[name]}
    selector = cls(**odd)
    assert all(getattr(selector, p) == "odd" for p in odd)
    specs = {spec.name: spec for spec in registry.describe("selector", name)}
    assert set(specs) == set(PARAMETERS[name]) and all(spec.help for spec in specs.values())


def test_select_signature_matches_the_interface() -> None:
    for name in NAMES:
        cls = PluginRegistry.discover().load("selector", name)
        parameters = inspect.signature(cls.select).parameters
        for keyword in ("quality", "progress", "cancel"):
            assert parameters[keyword].kind is inspect.Parameter.KEYWORD_ONLY
        assert parameters["quality"].default is None


@pytest.mark.parametrize("name", NAMES)
def test_select_contract(registry: PluginRegistry, name: str) -> None:
    x = rows()
    quality = np.linspace(0.2, 1.0, len(x))
    before = x.copy()
    progress = RecordingProgress()
    selector = registry.create("selector", name)
    result = selector.select(x, 12, quality=quality, progress=progress, cancel=CancelToken())
    assert isinstance(result, Selection)
    assert result.indices.dtype == np.int64 and len(set(result.indices.tolist())) == 12
    assert result.gains is not None and result.gains.shape == (12,)
    assert result.details["objective_trace"].shape == (12,)
    assert {"objective_name", "objective", "objective_trace"} <= set(result.details)
    assert progress.updates and progress.updates[-1][0] == 12
    np.testing.assert_array_equal(x, before)
    again = selector.select(x, 12, quality=quality, progress=NullProgress(), cancel=CancelToken())
    np.testing.assert_array_equal(again.indices, result.indices)
    token = CancelToken()
    token.cancel()
    with pytest.raises(Cancelled):
        selector.select(x, 12, progress=NullProgress(), cancel=token)
    with pytest.raises(ValueError, match=r"between 1 and 300, .*; got 301$"):
        selector.select(x, 301, progress=NullProgress(), cancel=CancelToken())


def test_plugins_delegate_to_the_core_functions(registry: PluginRegistry) -> None:
    x = rows(seed=1)
    job = {"progress": NullProgress(), "cancel": CancelToken()}

    def picks(name: str, **params: object) -> list[int]:
        return registry.create("selector", name, **params).select(x, 10, **job).indices.tolist()

    assert picks("greedy-vendi", q=2, seed=3) == greedy_vendi(x, 10, q=2, seed=3).indices.tolist()
    assert picks("prismatic", mode="soft", n_clusters=12, seed=2) == (
        prismatic(x, 10, mode="soft", n_clusters=12, seed=2).indices.tolist()
    )
    assert picks("k-center", metric="euclidean", seed=5) == (
        k_center(x, 10, metric="euclidean", seed=5).indices.tolist()
    )
    assert picks("facility-location", n_neighbors=7) == (
        facility_location(x, 10, n_neighbors=7).indices.tolist()
    )
    assert picks("dpp", ridge=0.1) == greedy_dpp(x, 10, ridge=0.1).indices.tolist()
    assert picks("random", seed=9) == random_selection(x, 10, seed=9).indices.tolist()


@pytest.mark.parametrize(
    ("name", "params", "message"),
    [
        ("greedy-vendi", {"q": 3}, "q must be 1"),
        ("greedy-vendi", {"epsilon": 0.0}, "epsilon must be between 0 and 1"),
        ("greedy-vendi", {"seed": -1}, "seed must be"),
        ("prismatic", {"mode": "firm"}, "mode must be one of 'hard', 'soft'"),
        ("prismatic", {"niter": 0}, "niter must be"),
        ("k-center", {"metric": "l1"}, "metric must be one of"),
        ("facility-location", {"n_neighbors": 0}, "n_neighbors must be"),
        ("facility-location", {"index": "lsh"}, "index must be one of"),
        ("dpp", {"ridge": "big"}, "ridge must be a number"),
        ("random", {"seed": 1.5}, "seed must be"),
    ],
)
def test_bad_parameters_name_themselves(name: str, params: dict, message: str) -> None:
    selector = PluginRegistry.discover().load("selector", name)(**params)
    with pytest.raises(ValueError, match=message):
        selector.select(rows(), 5, progress=NullProgress(), cancel=CancelToken())
