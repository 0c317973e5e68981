"""The study scatter: a diversity metric of each subset against what training on it gave."""

from __future__ import annotations

from typing import Annotated, Any

from vendiscope.api import (
    STUDY_OUTCOME_LABELS,
    Choices,
    Range,
    View,
    study_chart,
    study_verdict,
    view_data,
)

OUTCOMES = tuple(STUDY_OUTCOME_LABELS)


class StudyScatterView(View):
    """One point per subset of a study (``vendiscope study``): x = a diversity metric of the
    subset, y = how much training on it improved the target (mean over seeds), one colour per
    kind of subset. The title gives the metric's Spearman with its interval. Opened on the
    study's pool or on its target.

    Parameters
    ----------
    run
        The study run to draw, by id; 0 (or none) draws the latest.
    metric
        The metric on the x axis (``g-vendi``, ``embedding-vendi``, ``ngram`` or a metric
        plugin the study computed); none draws the strongest of the analysis.
    outcome
        improvement: the drop in target loss; accuracy_gain: the gain in target accuracy
        (targets with checkable answers).
    """

    def __init__(
        self,
        run: Annotated[int | None, Range(0)] = 0,
        metric: str | None = None,
        outcome: Annotated[str, Choices(*OUTCOMES)] = "improvement",
    ) -> None:
        self.run = run
        self.metric = metric
        self.outcome = outcome

    def build(self, data: dict[str, Any]) -> dict[str, Any]:
        if self.run is not None and (
            isinstance(self.run, bool) or not isinstance(self.run, int) or self.run < 0
        ):
            raise ValueError(f"run must be a run id (or 0 for the latest); got {self.run!r}")
        if self.outcome not in OUTCOMES:
            raise ValueError(f"outcome must be one of {', '.join(OUTCOMES)}; got {self.outcome!r}")
        if self.metric is not None and not isinstance(self.metric, str):
            raise ValueError(f"metric must be a metric's name; got {self.metric!r}")
        found = view_data(data)
        runs = found.study_runs()  # NotComputed naming `vendiscope study` if none
        if self.run:
            chosen = [r for r in runs if r["run_id"] == self.run]
            if not chosen:
                ids = ", ".join(str(r["run_id"]) for r in runs)
                raise ValueError(
                    f"run {self.run} is not a study run of {found.dataset} (its runs: {ids})"
                )
            run = chosen[0]
        else:
            run = runs[-1]
        result = run["result"]
        name = result.get("name") or run["params"].get("name") or "study"
        if self.outcome == "accuracy_gain" and not result.get("checkable"):
            raise ValueError(f"{name}: {study_verdict(result, self.outcome)}")
        metric = self.metric or strongest(result, self.outcome)
        if metric is None:
            raise ValueError(f"{name} has no metric values yet (run {run['run_id']})")
        chart = study_chart(result, metric, outcome=self.outcome)
        return {**chart, "title": f"{name} (run {run['run_id']}): {chart['title']}"}


def strongest(result: dict[str, Any], outcome: str) -> str | None:
    """The analysis's strongest metric for ``outcome``, else the study's first metric."""
    analysis = (result.get("analysis") or {}).get(outcome) or {}
    for found in analysis.get("evidence") or []:
        if found.get("metric") in (result.get("metrics") or {}):
            return str(found["metric"])
    return next(iter(result.get("metrics") or {}), None)
