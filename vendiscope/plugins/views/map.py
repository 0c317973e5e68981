"""The 2-D map of a dataset, coloured by cluster, sparse cluster, source, score or subset."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from vendiscope.api import (
    MAX_MAP_POINTS,
    NO_SOURCE,
    FromProject,
    NotComputed,
    Range,
    View,
    ViewData,
    default_map_colour,
    view_data,
)
from vendiscope.plugins.views._common import (
    chart,
    check_choice,
    check_count,
    rounded,
    sample_positions,
)

COLOR_BY = ("auto", "cluster", "sparse", "source", "score", "subset", "none")


class MapView(View):
    """The stored 2-D map (``vendiscope map``) as a scatter of records.

    Parameters
    ----------
    color_by
        What colours the points: auto (what the app's map shows first: source when the records
        have one, else cluster, or sparse when there are more clusters than colours), cluster
        (one colour per cluster of the latest clustering), sparse (the under-represented
        clusters against the rest), source, score (a per-record score on a colour scale),
        subset (its members against the rest) or none.
    score
        The per-record score that colours the points when colouring by score.
    subset
        The subset highlighted when colouring by subset.
    projection
        Which 2-D map to draw (each Compute the map run keeps its own).
    max_points
        Draw at most this many records; a larger dataset is drawn as a random sample.
    seed
        Changes which records that random sample keeps.
    """

    def __init__(
        self,
        color_by: Literal[
            "auto", "cluster", "sparse", "source", "score", "subset", "none"
        ] = "auto",
        score: Annotated[
            str | None, FromProject("vector_set", ("score",), none="the latest score")
        ] = None,
        subset: Annotated[
            str | None, FromProject("subset", none="the latest selection's subset")
        ] = None,
        projection: Annotated[
            str | None, FromProject("vector_set", ("projection",), none="the latest map")
        ] = None,
        max_points: Annotated[int, Range(1)] = MAX_MAP_POINTS,
        seed: int = 0,
    ) -> None:
        self.color_by = color_by
        self.score = score
        self.subset = subset
        self.projection = projection
        self.max_points = max_points
        self.seed = seed

    def build(self, data: dict[str, Any]) -> dict[str, Any]:
        import numpy as np

        check_choice("color_by", self.color_by, COLOR_BY)
        check_count("max_points", self.max_points)
        found = view_data(data)
        dataset = found.dataset
        stored = found.map(self.projection)
        coords = stored["coordinates"]
        positions = sample_positions(len(coords), self.max_points, self.seed)
        series: dict[str, Any] = {"name": dataset}
        described = self._colour(found, positions, series)
        if "color" in series:  # drop records without a finite score
            keep = np.isfinite(series["color"])
            positions, series["color"] = positions[keep], rounded(series["color"][keep])
        series["x"] = rounded(coords[positions, 0], 4)
        series["y"] = rounded(coords[positions, 1], 4)
        series["index"] = [int(p) for p in positions]
        method = stored["method"]
        axis = method.upper() if method in ("umap", "pca") else method
        shown = len(series["index"])
        title = f"Map of {dataset} ({axis}){described}"
        if shown < len(coords):
            title += f"; {shown:,} of {len(coords):,} records shown"
        return chart("scatter", title, [series], x_label=f"{axis} 1", y_label=f"{axis} 2")

    def _colour(self, found: ViewData, positions: Any, series: dict[str, Any]) -> str:
        """Fill ``category`` or ``color`` of the series; return the title's description."""
        import numpy as np

        by = self.color_by if self.color_by != "auto" else _default(found)
        if by in ("cluster", "sparse"):
            table = found.clusters()
            labels = found.cluster_labels()[positions]
            sparse = {int(c) for c in table["sparse"]}
            if by == "cluster":
                series["category"] = [f"cluster {int(c)}" for c in labels]
                return f", coloured by cluster ({table['n_clusters']:,} clusters)"
            series["category"] = [
                "sparse cluster" if int(c) in sparse else "(other clusters)" for c in labels
            ]
            return ", sparse (under-represented) clusters highlighted"
        if by == "source":
            sources = found.sources()
            series["category"] = [
                sources[p] if sources[p] is not None else NO_SOURCE for p in positions
            ]
            return ", coloured by source"
        if by == "score":
            scores = found.per_record_scores(self.score)
            series["color"] = np.asarray(scores["values"], dtype=np.float64)[positions]
            series["name"] = scores["name"]
            return f", coloured by {scores['name']}"
        if by == "subset":
            name = self.subset or found.latest_selection_subset()
            if name is None:
                raise NotComputed("a selection subset", found.command("select", "-k", "K"))
            members = np.zeros(found.n_records, dtype=bool)
            members[found.subset_positions(name)] = True
            series["category"] = [name if members[p] else "(not in subset)" for p in positions]
            return f", members of subset {name} highlighted"
        return ""


def _default(found: ViewData) -> str:
    """The shared default colouring (:func:`vendiscope.api.default_map_colour`)."""
    try:
        clusters = int(found.clusters()["n_clusters"])
    except NotComputed:
        clusters = 0
    has_sources = any(s is not None for s in found.sources())
    return default_map_colour(has_sources=has_sources, clusters=clusters)
