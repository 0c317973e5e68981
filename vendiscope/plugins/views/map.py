"""The 2-D map of a dataset, coloured by cluster, sparse cluster, source, score or subset."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from vendiscope.core.plugins.interfaces import View
from vendiscope.core.plugins.params import FromProject, Range
from vendiscope.core.views import data as viewdata
from vendiscope.plugins.views._common import chart, check_choice, check_count, context, rounded

COLOR_BY = ("cluster", "sparse", "source", "score", "subset", "none")


class MapView(View):
    """The stored 2-D map (``vendiscope map``) as a scatter of records.

    Parameters
    ----------
    color_by
        What colours the points: cluster (one colour per cluster of the latest clustering),
        sparse (the under-represented clusters against the rest), source, score (a
        per-record score on a colour scale), subset (its members against the rest) or none.
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
        color_by: Literal["cluster", "sparse", "source", "score", "subset", "none"] = "cluster",
        score: Annotated[
            str | None, FromProject("vector_set", ("score",), none="the latest score")
        ] = None,
        subset: Annotated[
            str | None, FromProject("subset", none="the latest selection's subset")
        ] = None,
        projection: Annotated[
            str | None, FromProject("vector_set", ("projection",), none="the latest map")
        ] = None,
        max_points: Annotated[int, Range(1)] = 200_000,
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

        from vendiscope.core.store import vectors

        check_choice("color_by", self.color_by, COLOR_BY)
        check_count("max_points", self.max_points)
        project, dataset = context(data)
        info = viewdata.map_set(project, dataset, self.projection)
        coords = vectors.load(project, dataset, info.name)
        positions = viewdata.sample_positions(len(coords), self.max_points, self.seed)
        series: dict[str, Any] = {"name": dataset}
        described = self._colour(project, dataset, positions, series)
        if "color" in series:  # drop records without a finite score
            keep = np.isfinite(series["color"])
            positions, series["color"] = positions[keep], rounded(series["color"][keep])
        series["x"] = rounded(coords[positions, 0], 4)
        series["y"] = rounded(coords[positions, 1], 4)
        series["index"] = [int(p) for p in positions]
        method = viewdata.map_method(project, info)
        axis = method.upper() if method in ("umap", "pca") else method
        shown = len(series["index"])
        title = f"Map of {dataset} ({axis}){described}"
        if shown < len(coords):
            title += f"; {shown:,} of {len(coords):,} records shown"
        return chart("scatter", title, [series], x_label=f"{axis} 1", y_label=f"{axis} 2")

    def _colour(self, project: Any, dataset: str, positions: Any, series: dict[str, Any]) -> str:
        """Fill ``category`` or ``color`` of the series; return the title's description."""
        import numpy as np

        from vendiscope.core.store import subsets, vectors

        if self.color_by in ("cluster", "sparse"):
            run = viewdata.cluster_run(project, dataset)
            labels = viewdata.cluster_labels(project, dataset, run)[positions]
            sparse = {int(c) for c in run.result.get("sparse", [])}  # type: ignore[union-attr]
            if self.color_by == "cluster":
                series["category"] = [f"cluster {int(c)}" for c in labels]
                return f", coloured by cluster ({len(run.result['sizes']):,} clusters)"  # type: ignore[index]
            series["category"] = [
                "sparse cluster" if int(c) in sparse else "(other clusters)" for c in labels
            ]
            return ", sparse (under-represented) clusters highlighted"
        if self.color_by == "source":
            sources = viewdata.record_sources(project, dataset)
            series["category"] = [
                sources[p] if sources[p] is not None else viewdata.NO_SOURCE for p in positions
            ]
            return ", coloured by source"
        if self.color_by == "score":
            info = viewdata.score_set(project, dataset, self.score)
            column = vectors.load(project, dataset, info.name)[:, 0].astype(np.float64)
            series["color"] = column[positions]
            series["name"] = info.name
            return f", coloured by {info.name}"
        if self.color_by == "subset":
            name = self.subset or viewdata.latest_selection_subset(project, dataset)
            if name is None:
                raise viewdata.NotComputed(
                    "a selection subset", viewdata.command(project, "select", dataset, "-k", "K")
                )
            members = np.zeros(project.dataset(dataset).row_count, dtype=bool)
            members[subsets.members(project, dataset, name).positions] = True
            series["category"] = [name if members[p] else "(not in subset)" for p in positions]
            return f", members of subset {name} highlighted"
        return ""
