"""Composition by source: each source's own Vendi score and what it adds to the whole."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from vendiscope.api import (
    MAX_CONTRIBUTION_SOURCES,
    METRIC_TITLES,
    VENDI_METRICS,
    NotComputed,
    Range,
    View,
    ViewData,
    view_data,
)
from vendiscope.plugins.views._common import chart, check_choice, check_count, rounded


class CompositionView(View):
    """Grouped bars per source (largest first), in effective numbers of distinct examples:
    the source's own Vendi score (the source alone) and its contribution (how much the whole
    dataset's score drops without it; negative when the rest is more diverse without it).

    Parameters
    ----------
    metric
        auto: G-Vendi when it is computed, else embedding-Vendi; gvendi: G-Vendi, on
        gradient features; vendi: embedding-Vendi, on embeddings.
    records
        Also draw each source's number of records.
    max_sources
        Show the largest this many sources (at most 20 get a contribution bar).
    """

    def __init__(
        self,
        metric: Literal["auto", "gvendi", "vendi"] = "auto",
        records: bool = False,
        max_sources: Annotated[int, Range(1)] = MAX_CONTRIBUTION_SOURCES,
    ) -> None:
        self.metric = metric
        self.records = records
        self.max_sources = max_sources

    def build(self, data: dict[str, Any]) -> dict[str, Any]:
        check_choice("metric", self.metric, ("auto", *VENDI_METRICS))
        check_count("max_sources", self.max_sources)
        found = view_data(data)
        score = _score(found, self.metric)  # NotComputed if missing
        table = found.source_table(contributions=score["metric"])
        return composition_chart(table, score, records=self.records, max_sources=self.max_sources)


def _score(found: ViewData, metric: str) -> dict[str, Any]:
    """The score to show: ``metric``'s, or with ``auto`` the first computed of G-Vendi and
    embedding-Vendi (when neither is, the error names what to compute for G-Vendi)."""
    if metric != "auto":
        return found.score(metric)
    missing: list[NotComputed] = []
    for candidate in VENDI_METRICS:
        try:
            return found.score(candidate)
        except NotComputed as error:
            missing.append(error)
    raise missing[0]


def composition_chart(
    table: dict[str, Any],
    score: dict[str, Any],
    *,
    records: bool = False,
    max_sources: int = MAX_CONTRIBUTION_SOURCES,
) -> dict[str, Any]:
    """The chart of :meth:`vendiscope.api.ViewData.source_table` for one score."""
    metric = score["metric"]
    rows = sorted(table["sources"], key=lambda r: (-r["records"], r["source"]))[:max_sources]
    names = [r["source"] for r in rows]
    labels = [f"{r['records']:,} records ({r['share']:.1%})" for r in rows]
    title = METRIC_TITLES[metric]
    own = [r[metric] if r[metric] is not None else 1.0 if r["records"] == 1 else 0.0
           for r in rows]  # fmt: skip
    series = [
        {"name": f"{title} of the source alone", "x": names, "y": rounded(own, 4),
         "label": labels},
    ]  # fmt: skip
    if table.get("contribution_basis") == metric:
        series.append({"name": "contribution to the whole", "x": names,
                       "y": rounded([r["contribution"] or 0.0 for r in rows], 4),
                       "label": labels})  # fmt: skip
    if records:
        series.append({"name": "records", "x": names, "y": [r["records"] for r in rows],
                       "label": labels})  # fmt: skip
    shown = "" if len(rows) == len(table["sources"]) else (
        f"; the largest {len(rows)} of {len(table['sources'])} sources")  # fmt: skip
    return chart(
        "bar",
        f"Composition of {table['dataset']} by source: {title} {score['value']:,.1f} of "
        f"{score['n']:,} records{shown}",
        series,
        x_label="source",
        y_label="effective number of distinct examples",
    )
