"""Cluster coverage: how the dataset and a subset spread over the clusters, sparse ones marked."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from vendiscope.api import FromProject, Range, View, view_data
from vendiscope.plugins.views._common import chart, check_choice, check_count, rounded

SPARSE_MARK = "*"


class ClusterCoverageView(View):
    """One bar per cluster of the latest clustering: its share of the dataset and of a subset.

    Clusters are ordered by size, largest first; sparse clusters (smaller than the median,
    i.e. under-represented) are marked with ``*`` after their number. A subset that covers
    the data evenly follows the dataset's bars; one that misses clusters leaves gaps.

    Parameters
    ----------
    subset
        The subset whose spread over the clusters is compared with the whole dataset's.
    measure
        share: the fraction of the dataset and of the subset in each cluster; count: the
        number of records.
    max_clusters
        Show at most this many clusters, picked evenly along the ranking by size.
    """

    def __init__(
        self,
        subset: Annotated[
            str | None, FromProject("subset", none="the latest selection's subset")
        ] = None,
        measure: Literal["share", "count"] = "share",
        max_clusters: Annotated[int, Range(1)] = 60,
    ) -> None:
        self.subset = subset
        self.measure = measure
        self.max_clusters = max_clusters

    def build(self, data: dict[str, Any]) -> dict[str, Any]:
        import numpy as np

        check_choice("measure", self.measure, ("share", "count"))
        check_count("max_clusters", self.max_clusters)
        found = view_data(data)
        dataset = found.dataset
        subset = self.subset or found.latest_selection_subset()
        table = found.clusters(subset)
        sizes = np.asarray(table["sizes"], dtype=np.int64)
        order = np.argsort(-sizes, kind="stable")
        if len(order) > self.max_clusters:
            picks = np.unique(np.round(np.linspace(0, len(order) - 1, self.max_clusters)))
            order = order[picks.astype(np.int64)]
        sparse = set(table["sparse"])
        names = [f"{c}{SPARSE_MARK}" if c in sparse else str(c) for c in order.tolist()]
        share = self.measure == "share"
        total = max(int(sizes.sum()), 1)
        series = [{
            "name": dataset,
            "x": names,
            "y": rounded(sizes[order] / total) if share else [int(s) for s in sizes[order]],
            "label": [f"cluster {c}: {sizes[c]:,} records" + (" (sparse)" if c in sparse else "")
                      for c in order.tolist()],
        }]  # fmt: skip
        title = (
            f"Clusters of {dataset}: {table['n_clusters']:,} clusters, {len(sparse):,} sparse "
            f"(smaller than the median size {table['median_size']:g})"
        )
        if subset is not None:
            counts = np.asarray(table["subset_counts"], dtype=np.int64)
            size = max(table["subset_size"], 1)
            series.append({
                "name": f"subset {subset}",
                "x": names,
                "y": rounded(counts[order] / size) if share else [int(c) for c in counts[order]],
                "label": [f"cluster {c}: {counts[c]:,} of the subset's {table['subset_size']:,}"
                          for c in order.tolist()],
            })  # fmt: skip
            title = (
                f"Cluster coverage of subset {subset}: {table['clusters_reached']:,} of "
                f"{table['n_clusters']:,} clusters reached ({table['sparse_reached']:,} of "
                f"{len(sparse):,} sparse)"
            )
        if len(order) < len(sizes):
            title += f"; {len(order)} of {len(sizes):,} clusters shown, evenly by size rank"
        y_label = "share of records" if share else "records"
        return chart("bar", title, series, x_label=f"cluster ({SPARSE_MARK} = sparse)",
                     y_label=y_label)  # fmt: skip
