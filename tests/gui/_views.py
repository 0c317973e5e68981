"""View plugins for the GUI tests: the two chart kinds no built-in view draws (histogram,
heatmap) and views that fail in each way a plugin can."""

from __future__ import annotations

from typing import Any

from vendiscope.api import Contribution, PluginManifest, View, view_data

HEATMAP_Z = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.5]]


class LengthHistogramView(View):
    """The length of each record's text, as a histogram.

    Parameters
    ----------
    bins
        How many bins.
    """

    def __init__(self, bins: int = 12) -> None:
        self.bins = bins

    def build(self, data: dict[str, Any]) -> dict[str, Any]:
        found = view_data(data)
        texts = found.texts(range(found.n_records), width=100_000)
        lengths = [float(len(t["text"])) for t in texts.values()]
        return {"kind": "histogram", "title": f"Text lengths of {found.dataset}",
                "bins": self.bins,
                "x_label": "characters", "y_label": "records",
                "series": [{"name": "prompt", "values": lengths}]}  # fmt: skip


class GridView(View):
    def build(self, data: dict[str, Any]) -> dict[str, Any]:
        view_data(data)
        return {"kind": "heatmap", "title": "A grid", "series": [
            {"name": "grid", "z": HEATMAP_Z, "x": ["a", "b", "c"], "y": ["first", "second"]}
        ]}  # fmt: skip


class CrashingView(View):
    def build(self, data: dict[str, Any]) -> dict[str, Any]:
        raise RuntimeError("the plugin author divided by zero somewhere")


class MisshapenView(View):
    def build(self, data: dict[str, Any]) -> dict[str, Any]:
        return {"kind": "pie", "title": "Not a chart kind", "series": []}


class BenchGradientsView(View):
    """Reads the gradients of another dataset the way the core resolves them (a view written
    for API 1.0-1.2, with ``data["project"]``): a MissingVectors error when it has none."""

    def __init__(self, other: str = "bench") -> None:
        self.other = other

    def build(self, data: dict[str, Any]) -> dict[str, Any]:
        from vendiscope.core.vectors.resolve import resolve

        resolve(data["project"], self.other, None, ("gradient",))
        return GridView().build(data)


def manifest() -> PluginManifest:
    here = "tests.gui._views"
    return PluginManifest(
        name="gui-test-views",
        contributions=(
            Contribution("view", "lengths", f"{here}:LengthHistogramView", "Prompt lengths"),
            Contribution("view", "grid", f"{here}:GridView", "A grid"),
            Contribution("view", "crashing", f"{here}:CrashingView", "Crashes"),
            Contribution("view", "misshapen", f"{here}:MisshapenView", "Misshapen"),
            Contribution("view", "missing", f"{here}:NoSuchView", "Not importable"),
            Contribution("view", "bench-gradients", f"{here}:BenchGradientsView", "Bench"),
        ),
    )
