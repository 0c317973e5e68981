"""One view builder: a third-party view written against ``vendiscope.api`` (a plugin file)
builds through :func:`vendiscope.core.view_data.build.build_view`, with the same guards as the
built-ins (parameters, plugin errors, the chart schema, what is not computed yet)."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from vendiscope.api import NotComputed, ViewData, validate_chart
from vendiscope.core.base.errors import PluginRuntimeError
from vendiscope.core.base.jobs import Cancelled, CancelToken, RecordingProgress
from vendiscope.core.plugin_host import PluginRegistry
from vendiscope.core.plugin_host.params import ParamError
from vendiscope.core.view_data.build import BuiltView, build_view
from vendiscope.core.view_data.reader import ProjectViewData, ViewInput
from vendiscope.testing import sample_project
from vendiscope.testing.sample import SAMPLE_DATASET

SOURCES_VIEW = """
    from typing import Annotated, Literal

    from vendiscope.api import (
        Contribution, PluginManifest, Range, View, NotComputed, shorten, view_data,
    )


    class SourceSizes(View):
        \"\"\"Records per source, and the dataset's embedding-Vendi score in the title.

        Parameters
        ----------
        top
            Show the largest this many sources.
        order
            size: largest first; name: alphabetical.
        \"\"\"

        def __init__(self, top: Annotated[int, Range(1)] = 10,
                     order: Literal["size", "name"] = "size") -> None:
            self.top = top
            self.order = order

        def build(self, data):
            found = view_data(data)  # ValueError naming what is missing
            counts = {}
            for source in found.sources():
                name = source if source is not None else "(none)"
                counts[name] = counts.get(name, 0) + 1
            if self.order == "size":
                names = sorted(counts, key=lambda s: (-counts[s], s))[: self.top]
            else:
                names = sorted(counts)[: self.top]
            score = found.score("vendi")
            first = found.texts([0], width=20)[0]["text"]
            return {
                "kind": "bar",
                "title": f"{found.dataset}: embedding-Vendi {score['value']:.2f}; "
                         f"first record {shorten(first, 10)}",
                "series": [{"name": "records", "x": names, "y": [counts[n] for n in names]}],
            }


    class Broken(View):
        def __init__(self, mode: str = "bug") -> None:
            self.mode = mode

        def build(self, data):
            found = view_data(data)
            if self.mode == "bad-input":
                raise ValueError("mode bad-input: nothing to show")
            if self.mode == "bad-chart":
                return {"kind": "pie", "title": "t", "series": []}
            if self.mode == "missing":
                found.clusters()  # not computed in the sample project
            return {}[self.mode]


    class Legacy(View):
        \"\"\"Written for API 1.2: reads the deprecated data["project"].\"\"\"

        def build(self, data):
            project = data["project"]
            rows = project.dataset(data["dataset"]).row_count
            return {"kind": "bar", "title": "rows", "series": [{"name": "n", "x": ["rows"],
                                                               "y": [rows]}]}


    manifest = PluginManifest(
        name="my-views",
        api_version="1.3",
        contributions=(
            Contribution("view", "source-sizes", f"{__name__}:SourceSizes", "Source sizes"),
            Contribution("view", "broken", f"{__name__}:Broken"),
            Contribution("view", "legacy", f"{__name__}:Legacy"),
        ),
    )
"""


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    project = sample_project(tmp_path_factory.mktemp("sample"))
    yield project
    project.close()


@pytest.fixture
def registry(plugin_folder: Path) -> PluginRegistry:
    (plugin_folder / "my_views.py").write_text(textwrap.dedent(SOURCES_VIEW), encoding="utf-8")
    found = PluginRegistry.discover(plugin_dir=plugin_folder)
    assert found.failures == [], found.failures
    return found


def test_a_third_party_view_file_builds_through_the_one_builder(
    sample: Any, registry: PluginRegistry
) -> None:
    progress = RecordingProgress()
    built = build_view(sample, "source-sizes", SAMPLE_DATASET, {"top": "2"}, registry=registry,
                       progress=progress)  # fmt: skip
    assert isinstance(built, BuiltView) and built.view == "source-sizes"
    assert built.dataset == SAMPLE_DATASET and built.params == {"top": 2}
    assert built.plugin == "my-views" and built.seconds >= 0 and progress.finished == 1
    validate_chart(built.chart)
    (series,) = built.chart["series"]
    assert series["x"] == ["code", "math"] and series["y"] == [8, 8]  # 24 records, 3 sources
    assert built.chart["title"].startswith("sample: embedding-Vendi ")
    with pytest.raises(AttributeError):
        built.view = "other"  # type: ignore[misc]
    by_name = build_view(sample, "source-sizes", SAMPLE_DATASET, {"order": "name"},
                         registry=registry).chart  # fmt: skip
    assert by_name["series"][0]["x"] == ["code", "math", "trivia"]


def test_the_builder_applies_the_same_guards_to_every_view(
    sample: Any, registry: PluginRegistry
) -> None:
    with pytest.raises(ParamError, match="--param top: expected an integer >= 1"):
        build_view(sample, "source-sizes", SAMPLE_DATASET, {"top": "0"}, registry=registry,
                   param_prefix="--param ")  # fmt: skip
    with pytest.raises(ParamError, match="colour"):
        build_view(sample, "source-sizes", SAMPLE_DATASET, {"colour": "red"}, registry=registry)
    with pytest.raises(PluginRuntimeError, match="view 'broken': mode bad-input"):
        build_view(sample, "broken", SAMPLE_DATASET, {"mode": "bad-input"}, registry=registry)
    assert registry.failures == []  # a ValueError rejects input: not a plugin failure
    with pytest.raises(NotComputed, match="vendiscope clusters"):
        build_view(sample, "broken", SAMPLE_DATASET, {"mode": "missing"}, registry=registry)
    with pytest.raises(PluginRuntimeError, match=r"view 'broken' \(plugin 'my-views'\) failed"):
        build_view(sample, "broken", SAMPLE_DATASET, registry=registry)
    with pytest.raises(PluginRuntimeError, match=r"chart\.kind"):
        build_view(sample, "broken", SAMPLE_DATASET, {"mode": "bad-chart"}, registry=registry)
    assert [f.stage for f in registry.failures] == ["run", "run"]
    assert not registry.status("view", "broken").ok
    cancel = CancelToken()
    cancel.cancel()
    with pytest.raises(Cancelled):
        build_view(sample, "source-sizes", SAMPLE_DATASET, registry=registry, cancel=cancel)


def test_a_view_written_for_api_1_2_still_gets_the_project(
    sample: Any, registry: PluginRegistry
) -> None:
    chart = build_view(sample, "legacy", SAMPLE_DATASET, registry=registry).chart
    assert chart["series"][0]["y"] == [24]


def test_view_data_is_the_public_protocol_and_holds_no_store_handle(sample: Any) -> None:
    data = ViewInput(sample, SAMPLE_DATASET, target=SAMPLE_DATASET)
    found = data["view_data"]
    assert isinstance(found, ProjectViewData) and isinstance(found, ViewData)
    assert found.dataset == SAMPLE_DATASET and found.target == SAMPLE_DATASET
    assert found.n_records == 24 and len(found.sources()) == 24
    assert found.vectors().shape == (24, 16)
    assert found.score("vendi")["title"] == "embedding-Vendi"
    assert found.command("map") == f"vendiscope map {sample.location} {SAMPLE_DATASET}"
    with pytest.raises(NotComputed, match="vendiscope map"):
        found.map()
    public = [n for n in dir(found) if not n.startswith("_")]
    assert "project" not in public and "engine" not in public
