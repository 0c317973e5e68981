"""Coverage of a target set (a benchmark, a held-out split) by the training data."""

from __future__ import annotations

from typing import Any, Literal

from vendiscope.core import viewdata
from vendiscope.core.plugins.interfaces import View
from vendiscope.plugins.views._common import chart, check_choice, check_count, context, rounded


class CoverageView(View):
    """How many records of ``data["target"]`` have a record of the dataset within a cosine
    radius. Building the chart runs the coverage job (recorded as a ``coverage`` run).

    ``show="curve"``: the covered fraction of the target at every radius, the chosen radius
    marked. ``show="uncovered"``: the least covered targets (one bar each, its similarity to
    the nearest training record; the hover label holds that record's text).

    Parameters
    ----------
    radius
        A target record is covered when its nearest training record is at least this
        similar (cosine).
    show
        ``curve`` or ``uncovered``.
    vector_set
        The dataset's vector set (default: its latest embedding set).
    target_vector_set
        The target's vector set (default: its latest embedding set; same model needed).
    train_subset
        Count only this subset of the dataset as training data.
    max_items
        Uncovered targets listed with ``show="uncovered"``.
    """

    def __init__(
        self,
        radius: float = 0.8,
        show: Literal["curve", "uncovered"] = "curve",
        vector_set: str | None = None,
        target_vector_set: str | None = None,
        train_subset: str | None = None,
        max_items: int = 30,
    ) -> None:
        self.radius = radius
        self.show = show
        self.vector_set = vector_set
        self.target_vector_set = target_vector_set
        self.train_subset = train_subset
        self.max_items = max_items

    def build(self, data: dict[str, Any]) -> dict[str, Any]:
        check_choice("show", self.show, ("curve", "uncovered"))
        check_count("max_items", self.max_items)
        project, dataset = context(data)
        target = data.get("target")
        if not isinstance(target, str):
            raise ValueError("the coverage view needs a target dataset: data['target'] (--target)")
        found = viewdata.coverage_data(
            project, dataset, target, radius=self.radius, vector_set=self.vector_set,
            target_vector_set=self.target_vector_set, train_subset=self.train_subset,
            listed=self.max_items, width=120,
        )  # fmt: skip
        return coverage_chart(found, self.show)


def coverage_chart(found: dict[str, Any], show: str = "curve") -> dict[str, Any]:
    """The chart of :func:`vendiscope.core.viewdata.coverage_data`'s result."""
    train = found["train_dataset"] + (f" (subset {found['train_subset']})"
                                      if found.get("train_subset") else "")  # fmt: skip
    radius = found["radius"]
    if show == "uncovered":
        items = found["least_covered"]
        series = [{
            "name": "similarity to the nearest training record",
            "x": [f"#{i['target']['position']} {viewdata.shorten(i['target']['text'], 40)}"
                  for i in items],
            "y": rounded([i["similarity"] for i in items], 4),
            "label": [f"nearest: #{i['nearest']['position']} {i['nearest']['text']}"
                      for i in items],
        }]  # fmt: skip
        title = (
            f"Least covered records of {found['target_dataset']}: {len(items)} of the "
            f"{found['uncovered_count']:,} with no record of {train} within cosine {radius:g}"
        )
        return chart("bar", title, series, x_label="target record", y_label="cosine similarity")
    series = [
        {"name": "covered", "x": found["radii"], "y": found["covered_at"]},
        {"name": f"(radius {radius:g})", "x": [radius, radius], "y": [0.0, found["fraction"]]},
    ]
    title = (
        f"Coverage of {found['target_dataset']} by {train}: {found['fraction']:.1%} of "
        f"{found['targets']:,} records within cosine {radius:g}"
    )
    return chart("line", title, series, x_label="radius (cosine similarity to the nearest "
                 "training record)", y_label="fraction of target covered")  # fmt: skip
