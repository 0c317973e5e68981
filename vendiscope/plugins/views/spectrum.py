"""The Vendi eigenvalue spectrum: how the data's similarity spreads over directions."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from vendiscope.api import NotComputed, Range, View, view_data
from vendiscope.plugins.views._common import chart, check_choice, check_count, rounded


class SpectrumView(View):
    """The largest eigenvalues of ``K / n`` (they sum to 1) from the latest Vendi scores.

    A flat spectrum means many equally important directions (a high Vendi score); a few
    dominant eigenvalues mean the data repeats a few themes.

    Parameters
    ----------
    metric
        gvendi: the spectrum behind G-Vendi (gradient features); vendi: behind
        embedding-Vendi (embeddings); both: each of them that is computed.
    top
        How many of the largest eigenvalues to draw (the scores keep the largest 50).
    cumulative
        Draw the running total of the largest eigenvalues instead of each one.
    """

    def __init__(
        self,
        metric: Literal["gvendi", "vendi", "both"] = "both",
        top: Annotated[int, Range(1)] = 50,
        cumulative: bool = False,
    ) -> None:
        self.metric = metric
        self.top = top
        self.cumulative = cumulative

    def build(self, data: dict[str, Any]) -> dict[str, Any]:
        import numpy as np

        check_choice("metric", self.metric, ("gvendi", "vendi", "both"))
        check_count("top", self.top)
        reader = view_data(data)
        dataset = reader.dataset
        wanted = ("gvendi", "vendi") if self.metric == "both" else (self.metric,)
        found, missing = [], []
        for metric in wanted:
            try:
                found.append(reader.score(metric))
            except NotComputed as error:
                missing.append(error)
        if not found:
            raise missing[0]
        series = []
        for score in found:
            values = np.asarray(score["spectrum_top"][: self.top], dtype=np.float64)
            if self.cumulative:
                values = np.cumsum(values)
            else:  # eigenvalues beyond the rank are zero: not drawn on the log scale
                values = values[np.round(values, 8) > 0] if (values > 0).any() else values
            series.append({
                "name": f"{score['title']} ({score['vector_set']})",
                "x": list(range(1, len(values) + 1)),
                "y": rounded(values, 8),
            })  # fmt: skip
        headline = "; ".join(f"{s['title']} {s['value']:,.1f} of {s['n']:,} records" for s in found)
        what = "cumulative share of the top eigenvalues" if self.cumulative else "eigenvalue"
        described = chart("line", f"Vendi spectrum of {dataset}: {headline}", series,
                          x_label="rank", y_label=f"{what} of K/n")  # fmt: skip
        positive = all(v > 0 for s in series for v in s["y"])
        if not self.cumulative and positive:
            described["y_log"] = True  # eigenvalues fall over orders of magnitude
        return described
