"""Coverage of a target set (a benchmark, a held-out split) by the training data."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from vendiscope.api import DEFAULT_MIN_SIMILARITY, FromProject, Range, View, shorten, view_data
from vendiscope.plugins.views._common import chart, check_choice, check_count, rounded


class CoverageView(View):
    """How many records of the target dataset (a benchmark, a held-out split) have a record
    of the dataset within a cosine radius. Building the chart runs the coverage job
    (recorded as a coverage run). The target's name is ``data["target"]``.

    Shown as a curve (the covered share of the target at every radius, the chosen radius
    marked) or as the least covered target records (one bar each, its similarity to the
    nearest training record; the hover label holds that record's text).

    Parameters
    ----------
    radius
        A target record counts as covered when a record of this dataset is at least this
        similar to it (cosine similarity, from -1 to 1).
    show
        curve: the share of the target covered at every similarity, the chosen one marked;
        uncovered: the least covered target records, one bar each.
    vector_set
        The embeddings of this dataset to compare with the target's.
    target_vector_set
        The embeddings of the target dataset; they must come from the same model.
    train_subset
        Count only the records of this subset as training data.
    max_items
        How many target records the list of the least covered shows.
    """

    needs_target = True

    def __init__(
        self,
        radius: Annotated[float, Range(-1, 1)] = DEFAULT_MIN_SIMILARITY,
        show: Literal["curve", "uncovered"] = "curve",
        vector_set: Annotated[
            str | None, FromProject("vector_set", ("embedding",), none="the latest embeddings")
        ] = None,
        target_vector_set: Annotated[
            str | None,
            FromProject(
                "vector_set",
                ("embedding",),
                dataset="target",
                none="the target's latest embeddings",
            ),
        ] = None,
        train_subset: Annotated[str | None, FromProject("subset", none="the whole dataset")] = None,
        max_items: Annotated[int, Range(1)] = 30,
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
        reader = view_data(data)
        target = reader.target  # data["target"]
        if not isinstance(target, str):
            raise ValueError(
                "the coverage view needs a target dataset to compare with (a benchmark or a "
                "held-out set of the same project): --target NAME on the command line, the "
                "view's Target dataset in the app"
            )
        found = reader.coverage(
            target, radius=self.radius, vector_set=self.vector_set,
            target_vector_set=self.target_vector_set, train_subset=self.train_subset,
            listed=self.max_items, width=120,
        )  # fmt: skip
        return coverage_chart(found, self.show)


def coverage_chart(found: dict[str, Any], show: str = "curve") -> dict[str, Any]:
    """The chart of :meth:`vendiscope.api.ViewData.coverage`'s result."""
    train = found["train_dataset"] + (f" (subset {found['train_subset']})"
                                      if found.get("train_subset") else "")  # fmt: skip
    radius = found["radius"]
    if show == "uncovered":
        items = found["least_covered"]
        series = [{
            "name": "similarity to the nearest training record",
            "x": [f"#{i['target']['position']} {shorten(i['target']['text'], 40)}"
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
