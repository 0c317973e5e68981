"""View plugins for the GUI tests: the two chart kinds no built-in view draws (histogram,
heatmap) and views that fail in each way a plugin can."""

from __future__ import annotations

from typing import Any

from vendiscope.core.plugins.interfaces import View
from vendiscope.core.plugins.manifest import Contribution, PluginManifest
from vendiscope.plugins.views._common import context

HEATMAP_Z = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.5]]


class LengthHistogramView(View):
    """The length of each record's prompt, as a histogram.

    Parameters
    ----------
    bins
        How many bins.
    """

    def __init__(self, bins: int = 12) -> None:
        self.bins = bins

    def build(self, data: dict[str, Any]) -> dict[str, Any]:
        project, dataset = context(data)
        lengths = [float(len(r.prompt or "")) for r in project.iter_records(dataset)]
        return {"kind": "histogram", "title": f"Prompt lengths of {dataset}", "bins": self.bins,
                "x_label": "characters", "y_label": "records",
                "series": [{"name": "prompt", "values": lengths}]}  # fmt: skip


class GridView(View):
    def build(self, data: dict[str, Any]) -> dict[str, Any]:
        context(data)
        return {"kind": "heatmap", "title": "A grid", "series": [
            {"name": "grid", "z": HEATMAP_Z, "x": ["a", "b", "c"], "y": ["first", "second"]}
        ]}  # fmt: skip


class CrashingView(View):
    def build(self, data: dict[str, Any]) -> dict[str, Any]:
        raise RuntimeError("the plugin author divided by zero somewhere")


class MisshapenView(View):
    def build(self, data: dict[str, Any]) -> dict[str, Any]:
        return {"kind": "pie", "title": "Not a chart kind", "series": []}


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
        ),
    )
