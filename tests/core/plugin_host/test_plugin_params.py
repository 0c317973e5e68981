"""Parameters as data: describe_params reads __init__, coerce_params types command-line strings."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import pytest

from vendiscope.api import (
    Choices,
    Metric,
    MetricResult,
    ParamError,
    Range,
    coerce_params,
    describe_params,
)
from vendiscope.core.plugin_host.params import REQUIRED, parse_numpy_params

MODES = ("fast", "exact")


class Example(Metric):
    """An example with every supported kind of parameter.

    Parameters
    ----------
    n_neighbors
        Ignored: the Annotated help wins.
    mode : str
        How to compute it.
    dim, seed
        Shared help for
        two parameters.
    """

    def __init__(
        self,
        n_neighbors: Annotated[int, Range(1), "Neighbours per record."] = 10,
        level: Annotated[float, Range(gt=0, lt=1)] = 0.95,
        q: Annotated[float, Range(gt=0)] = 1.0,
        mode: Annotated[str, Choices(*MODES)] = "fast",
        per_record: Literal["leverage", "uniqueness"] | None = "leverage",
        dim: int = 64,
        seed: int | None = None,
        normalize: bool = True,
        model: str | None = None,
        shard: int | str = "500MB",
        folder: Path | None = None,
        weights: list[float] | None = None,
        untyped=3,
    ) -> None:
        self.n_neighbors = n_neighbors
        self.level = level
        self.q = q
        self.mode = mode
        self.per_record = per_record
        self.dim = dim
        self.seed = seed
        self.normalize = normalize
        self.model = model
        self.shard = shard
        self.folder = folder
        self.weights = weights
        self.untyped = untyped

    def compute(self, vectors, *, quality=None):
        return MetricResult(0.0)


def test_describe_reads_types_defaults_ranges_choices_and_help() -> None:
    specs = {s.name: s for s in describe_params(Example)}
    assert list(specs)[:3] == ["n_neighbors", "level", "q"]
    k = specs["n_neighbors"]
    assert (k.type, k.default, k.widget, k.help) == (int, 10, "int", "Neighbours per record.")
    assert k.range == Range(ge=1) and k.expects() == "an integer >= 1"
    assert specs["level"].expects() == "a number > 0 and < 1"
    assert specs["mode"].choices == MODES and specs["mode"].widget == "choice"
    assert specs["mode"].help == "How to compute it."
    per_record = specs["per_record"]
    assert per_record.choices == ("leverage", "uniqueness") and per_record.optional
    assert specs["dim"].help == specs["seed"].help == "Shared help for two parameters."
    assert specs["seed"].optional and specs["seed"].type is int
    assert specs["shard"].types == (int, str) and specs["shard"].widget == "text"
    assert specs["folder"].widget == "path" and specs["weights"].widget == "json"
    assert specs["untyped"].type is int  # from the default
    assert specs["normalize"].label == "Normalize"
    described = specs["n_neighbors"].to_dict()
    assert described["range"] == {"ge": 1} and described["type"] == "int"
    assert not any(s.required for s in specs.values())


def test_coerce_turns_strings_into_typed_values() -> None:
    typed = coerce_params(
        Example,
        {
            "n_neighbors": "5",
            "level": "0.5",
            "q": "inf",
            "mode": "exact",
            "per_record": "none",
            "seed": "None",
            "normalize": "no",
            "model": "my/model",
            "shard": "1000",
            "folder": "~/data",
            "weights": "[1, 2.5]",
            "untyped": "7",
        },
    )
    assert typed == {
        "n_neighbors": 5,
        "level": 0.5,
        "q": float("inf"),
        "mode": "exact",
        "per_record": None,
        "seed": None,
        "normalize": False,
        "model": "my/model",
        "shard": 1000,
        "folder": Path("~/data").expanduser(),
        "weights": [1, 2.5],
        "untyped": 7,
    }
    assert coerce_params(Example, {"shard": "2GB"}) == {"shard": "2GB"}


def test_coerce_checks_typed_values_too() -> None:
    assert coerce_params(Example, {"level": 1 / 2, "dim": 8.0, "q": 2}) == {
        "level": 0.5,
        "dim": 8,
        "q": 2.0,
    }


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"n_neighbors": "x"}, "--param n_neighbors: expected an integer >= 1, got 'x'"),
        ({"n_neighbors": "0"}, "--param n_neighbors: expected an integer >= 1, got '0'"),
        ({"n_neighbors": True}, "--param n_neighbors: expected an integer >= 1, got True"),
        ({"level": "1"}, "--param level: expected a number > 0 and < 1, got '1'"),
        ({"q": "nan"}, "--param q: expected a number > 0, got 'nan'"),
        ({"mode": "quick"}, "--param mode: expected one of 'fast', 'exact', got 'quick'"),
        ({"dim": "none"}, "--param dim: expected an integer, got 'none'"),
        ({"normalize": "maybe"}, "--param normalize: expected true or false, got 'maybe'"),
        ({"weights": "[1,"}, "--param weights: expected a JSON list or none, got '[1,'"),
        (
            {"degree": "3"},
            "--param degree: no such parameter of metric 'x' (parameters: n_neighbors, level",
        ),
    ],
)
def test_errors_name_the_parameter(values: dict, message: str) -> None:
    with pytest.raises(ParamError) as caught:
        coerce_params(Example, values, prefix="--param ", owner="metric 'x'")
    assert str(caught.value).startswith(message)
    assert isinstance(caught.value, ValueError)


def test_required_and_kwargs() -> None:
    class Loose(Metric):
        def __init__(self, needed, **kwargs) -> None:
            self.needed = needed

        def compute(self, vectors, *, quality=None):
            return MetricResult(0.0)

    (spec,) = describe_params(Loose)
    assert spec.required and spec.default is REQUIRED and spec.types == ()
    assert coerce_params(Loose, {"anything": "2.5", "needed": "true"}) == {
        "anything": 2.5,
        "needed": True,
    }


def test_numpy_docstring_parser() -> None:
    doc = """Summary.

    Parameters
    ----------
    a : int, default 1
        First line
        second line.
    *b
        Star.

    Returns
    -------
    x
        Not a parameter.
    """
    assert parse_numpy_params(doc) == {"a": "First line second line.", "b": "Star."}
    assert parse_numpy_params(None) == {}


def test_range_rejects_contradictions() -> None:
    with pytest.raises(ValueError, match="ge or gt"):
        Range(ge=1, gt=0)
    assert str(Range(0, 1)) == ">= 0 and <= 1"
    assert 0.5 in Range(gt=0, lt=1) and 1 not in Range(gt=0, lt=1)
