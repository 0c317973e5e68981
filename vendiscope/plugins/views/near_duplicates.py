"""Near-duplicate groups: how many groups of each size, or the largest groups."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from vendiscope.api import Range, View, view_data
from vendiscope.plugins.views._common import chart, check_choice, check_count

BUCKETS = ((2, 2), (3, 3), (4, 4), (5, 5), (6, 10), (11, 20), (21, 50), (51, 100), (101, None))


def size_buckets(sizes: list[int]) -> tuple[list[str], list[int]]:
    """Group sizes counted in buckets (2, 3, 4, 5, 6-10, ..., 101+); empty tail buckets left out."""
    names, counts = [], []
    for low, high in BUCKETS:
        name = str(low) if low == high else f"{low}+" if high is None else f"{low}-{high}"
        names.append(name)
        counts.append(sum(1 for s in sizes if s >= low and (high is None or s <= high)))
    while len(counts) > 1 and counts[-1] == 0:
        names.pop()
        counts.pop()
    return names, counts


class NearDuplicatesView(View):
    """The latest near-duplicate run (``vendiscope near-dups``) as bars.

    Parameters
    ----------
    show
        sizes: how many groups there are of each size; largest: the largest groups, one bar
        each, named by the text of a representative record.
    top
        How many groups the list of the largest shows.
    """

    def __init__(
        self, show: Literal["sizes", "largest"] = "sizes", top: Annotated[int, Range(1)] = 20
    ) -> None:
        self.show = show
        self.top = top

    def build(self, data: dict[str, Any]) -> dict[str, Any]:
        check_choice("show", self.show, ("sizes", "largest"))
        check_count("top", self.top)
        reader = view_data(data)
        dataset = reader.dataset
        found = reader.near_duplicates()
        title = (
            f"Near-duplicates in {dataset} (cosine >= {found['threshold']:g}): "
            f"{found['groups']:,} groups, {found['redundant']:,} redundant records"
        )
        if self.show == "largest":
            groups = reader.near_duplicate_groups(top=self.top, members=1, width=40)
            series = [{
                "name": "records in the group",
                "x": [f"#{g['representative']} "
                      + (g["records"][0]["text"] if g["records"] else "") for g in groups],
                "y": [g["size"] for g in groups],
            }]  # fmt: skip
            return chart("bar", title, series, x_label="group (its representative record)",
                         y_label="records")  # fmt: skip
        names, counts = size_buckets(found["group_sizes"])
        if found["groups_truncated"]:
            title += f" (sizes of the largest {len(found['group_sizes']):,} groups)"
        series = [{"name": "groups", "x": names, "y": counts}]
        return chart("bar", title, series, x_label="records in the group", y_label="groups")
