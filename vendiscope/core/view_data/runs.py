"""The stored runs behind the views: the latest score, near-duplicate, clustering and selection
runs of a dataset, and its synthesis and study runs, as plain data. Nothing here recomputes a
job's result.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from vendiscope.core.base.errors import ProjectError
from vendiscope.core.metrics.run_result import ScoreRunResult
from vendiscope.core.neighbors.run_result import NearDuplicateResult
from vendiscope.core.selection.run_result import SelectionResult
from vendiscope.core.store import vectors
from vendiscope.core.store.models import RunInfo
from vendiscope.core.view_data.constants import METRIC_TITLES, VENDI_METRICS
from vendiscope.core.view_data.missing import Command, NotComputed, command

if TYPE_CHECKING:
    import numpy as np

    from vendiscope.core.store.project import Project


def complete_runs(
    project: Project, dataset: str, kind: str, where: Callable[[RunInfo], bool] | None = None
) -> list[RunInfo]:
    """The complete runs of ``kind`` on ``dataset`` that have a result, oldest first."""
    return [
        r
        for r in project.runs(dataset)
        if r.kind == kind and r.status == "complete" and r.result and (where is None or where(r))
    ]


def latest_run(
    project: Project, dataset: str, kind: str, where: Callable[[RunInfo], bool] | None = None
) -> RunInfo | None:
    """The most recent complete run of ``kind`` (optionally matching ``where``), or None."""
    runs = complete_runs(project, dataset, kind, where)
    return runs[-1] if runs else None


# ----------------------------------------------------------------------------- scores
def score_run(project: Project, dataset: str, metric: str = "gvendi") -> RunInfo | None:
    """The latest headline Vendi run: ``gvendi`` (on gradients) or ``vendi`` (embeddings).

    Only unweighted runs of order q = 1 of the built-in Vendi metric count: other orders
    and quality-weighted scores are different numbers.
    """
    if metric not in VENDI_METRICS:
        raise ProjectError(f"metric must be one of {', '.join(VENDI_METRICS)}; got '{metric}'")
    kinds = {s.name: s.kind for s in vectors.list_sets(project, dataset)}

    def fits(run: RunInfo) -> bool:
        params = run.params or {}
        name = params.get("vector_set")
        kind = kinds.get(name) or VENDI_METRICS.get(params.get("metric", ""))
        q = (params.get("params") or {}).get("q", 1.0)
        return (
            run.plugin == "metric:vendi"
            and kind == VENDI_METRICS[metric]
            and params.get("quality") is None
            and _is_number(q)
            and float(q) == 1.0
            and _is_number((run.result or {}).get("value"))
        )

    return latest_run(project, dataset, "metric", fits)


def score_summary(project: Project, dataset: str, metric: str = "gvendi") -> dict[str, Any]:
    """The headline score: value, n, effective fraction, interval, per source, spectrum.

    Also the mean cosine, the verdict (``{"level", "text"}``) and the projection error when
    the run recorded them (``None`` for older runs).

    Raises :class:`NotComputed` (naming the command) when there is no such score yet.
    """
    run = score_run(project, dataset, metric)
    if run is None:
        raise NotComputed(METRIC_TITLES[metric], missing_score_commands(project, dataset, metric))
    stored = ScoreRunResult.from_json(run.result, run_id=run.id)
    details, value, n = stored.details, stored.value, stored.n
    return {
        "metric": metric,
        "title": METRIC_TITLES[metric],
        "value": value,
        "n": n,
        "fraction": details.get("effective_fraction", value / n if n else None),
        "mean_cosine": details.get("mean_cosine"),
        "verdict": details.get("verdict") if isinstance(details.get("verdict"), dict) else None,
        "group_check": _dict_or_none(details.get("group_check")),
        "projection_error": details.get("projection_error")
        if isinstance(details.get("projection_error"), dict)
        else None,
        "ci": details.get("ci"),
        "ci_level": details.get("ci_level"),
        "vector_set": (run.params or {}).get("vector_set"),
        "per_source": stored.per_source,
        "spectrum_top": details.get("spectrum_top") or [],
        "per_record_set": stored.per_record_set,
        "run_id": run.id,
        "finished_at": run.finished_at.isoformat() if run.finished_at else None,
    }


def _dict_or_none(value: Any) -> dict[str, Any] | None:
    return value if isinstance(value, dict) else None


def resolution_checks(project: Project, dataset: str) -> dict[str, dict[str, Any]]:
    """Metric name -> the resolution check of its latest headline score (runs that have one)."""
    checks = {}
    for metric in VENDI_METRICS:
        run = score_run(project, dataset, metric)
        details = ScoreRunResult.from_json(run.result, run_id=run.id).details if run else {}
        found = details.get("group_check")
        if isinstance(found, dict) and found.get("metric"):
            checks[str(found["metric"])] = found
    return checks


def resolution_advice(project: Project, dataset: str) -> str:
    """Which score to compare datasets by at this size, when the latest checks disagree."""
    from vendiscope.core.metrics.algorithms.group_check import advice

    return advice(resolution_checks(project, dataset))


def missing_score_commands(project: Project, dataset: str, metric: str) -> tuple[Command, ...]:
    """What to run for a missing G-Vendi / embedding-Vendi score: the score, after the
    vectors it is measured on when the dataset has none."""
    from vendiscope.core.vectors.resolve import feature_sets

    kind = VENDI_METRICS[metric]
    extra = ["--metric", "vendi"] if metric == "vendi" else []
    score = command(project, "score", dataset, *extra)
    if feature_sets(project, dataset, (kind,)):
        return (score,)
    return command(project, "gradients" if kind == "gradient" else "embed", dataset), score


def per_record_score_runs(project: Project, dataset: str) -> list[dict[str, Any]]:
    """Every complete per-record score set of ``dataset`` (one column, written by a score run),
    as plain data, grouped by kind: the kind with the newest run first, and within a kind the
    newest run first.

    Each is ``{"vector_set", "run_id", "metric", "score", "scored", "kind", "newest",
    "finished_at", "rows", "run"}``: ``score`` is what each value is (``leverage``,
    ``contribution``, ``uniqueness``), ``scored`` the vector set it was computed on, ``kind``
    the triple (metric, score, scored) that makes two runs the same score computed again, and
    ``newest`` marks the newest run of each kind, the one a view shows unless asked for
    another. ``run`` is the :class:`RunInfo` (None when the run is gone).
    """
    runs = {run.id: run for run in project.runs(dataset)}
    found = []
    for info in reversed(vectors.complete_sets(project, dataset, "score")):
        if info.dim != 1:
            continue
        run = runs.get(info.run_id) if info.run_id is not None else None
        params = run.params if run is not None else {}
        details = (
            ScoreRunResult.from_json(run.result, run_id=run.id).details if run is not None else {}
        )
        score = str(details.get("per_record") or "score")
        metric = str(params.get("metric") or "")
        scored = str(params.get("vector_set") or (info.params or {}).get("vector_set") or info.name)
        finished = run.finished_at if run is not None else info.created_at
        found.append({
            "vector_set": info.name, "run_id": info.run_id, "metric": metric, "score": score,
            "scored": scored, "kind": (metric, score, scored), "finished_at": finished,
            "rows": info.n_rows, "run": run,
        })  # fmt: skip
    order: dict[tuple[str, str, str], int] = {}
    for item in found:  # newest first already: a kind's first item is its newest run
        item["newest"] = item["kind"] not in order
        order.setdefault(item["kind"], len(order))
    return sorted(found, key=lambda item: order[item["kind"]])  # stable: newest first in a kind


# ----------------------------------------------------------------------------- near-dups
def near_duplicate_summary(project: Project, dataset: str) -> dict[str, Any]:
    """The latest near-duplicate run: threshold, groups, redundant records, group sizes."""
    run = latest_run(project, dataset, "near-duplicates")
    if run is None:
        raise NotComputed("near-duplicates", command(project, "near-dups", dataset))
    stored = NearDuplicateResult.from_json(run.result)
    return {
        "run_id": run.id,
        "vector_set": stored.vector_set,
        "threshold": stored.threshold,
        "records": stored.records,
        "groups": stored.groups,
        "records_in_groups": stored.records_in_groups,
        "redundant": stored.redundant,
        "largest_group": stored.largest_group,
        "subset": stored.subset,
        "group_sizes": stored.group_sizes,
        "groups_truncated": stored.groups_truncated,
        "group_positions": stored.group_positions,
    }


# ----------------------------------------------------------------------------- clusters
def cluster_run(project: Project, dataset: str) -> RunInfo:
    """The latest complete clustering run
    (:func:`vendiscope.core.clusters.jobs.latest_cluster_run`);
    raises :class:`NotComputed` naming the command when there is none."""
    from vendiscope.core.clusters.jobs import latest_cluster_run

    try:
        return latest_cluster_run(project, dataset)
    except ProjectError:
        raise NotComputed("clustering", command(project, "clusters", dataset)) from None


def cluster_labels(project: Project, dataset: str, run: RunInfo) -> np.ndarray:
    """Each record's cluster from a run (:func:`vendiscope.core.clusters.jobs.cluster_labels`)."""
    from vendiscope.core.clusters import jobs

    return jobs.cluster_labels(project, dataset, run)


# ----------------------------------------------------------------------------- selections
def selection_results(project: Project, dataset: str) -> list[SelectionResult]:
    """Every complete selection run's result, oldest first, read back typed by
    :meth:`SelectionResult.from_json` (older results migrate; a missing field is refused by
    name, never read as 0)."""
    return [
        SelectionResult.from_json(run.result)
        for run in complete_runs(project, dataset, "selection")
    ]


def selection_runs(project: Project, dataset: str) -> list[dict[str, Any]]:
    """Every complete selection run, oldest first, as plain data (the views' form of
    :func:`selection_results`): method, k, subset, final Vendi per vector set (and of a
    random order of as many candidates), objective and curves."""
    existing = {s.name for s in project.subsets(dataset)}
    out = []
    for result in selection_results(project, dataset):
        curve = result.curve.to_json()
        out.append({
            "run_id": result.run_id,
            "method": result.method,
            "k": result.k,
            "candidates": result.n_candidates,
            "vector_set": result.vector_set,
            "subset": result.subset,
            "subset_exists": result.subset in existing,
            "objective": {"name": result.objective_name, "value": result.objective},
            "vendi": result.vendi,
            "random_vendi": result.random_vendi,
            "curve": curve,
            "kinds": curve["kinds"],
        })  # fmt: skip
    return out


def latest_selection_subset(project: Project, dataset: str) -> str | None:
    """The subset of the latest selection run that still exists, if any."""
    runs = [r for r in selection_runs(project, dataset) if r["subset_exists"]]
    return runs[-1]["subset"] if runs else None


# ----------------------------------------------------------------------------- synthesis
def synthesis_runs(project: Project, dataset: str) -> list[dict[str, Any]]:
    """The synthesis runs of ``dataset``, oldest first, as plain data: those whose pool is
    ``dataset`` and those that wrote it (its new dataset, ``params["name"]``, or the
    unfiltered stream, ``params["all"]``). Only runs with at least one committed round
    count (a running run's result grows after every round).

    Each is ``{"run_id", "status", "params", "result"}``. Raises :class:`NotComputed`
    naming ``vendiscope synthesize`` when there are none.
    """
    from vendiscope.core.synthesis.reading import synthesis_runs as runs_of

    out = [
        {"run_id": run.id, "status": run.status, "params": copy.deepcopy(run.params or {}),
         "result": copy.deepcopy(run.result)}
        for run in runs_of(project, dataset)
        if isinstance(run.result, dict) and run.result.get("rounds")
    ]  # fmt: skip
    if not out:
        raise NotComputed("synthesis runs", command(project, "synthesize", dataset))
    return out


# ----------------------------------------------------------------------------- studies
def study_runs(project: Project, dataset: str) -> list[dict[str, Any]]:
    """The study runs of ``dataset``, oldest first, as plain data: those whose pool or
    target is ``dataset``. Only runs with at least one training run count (a running study's
    result grows after every training run).

    Each is ``{"run_id", "status", "params", "result"}``. Raises :class:`NotComputed`
    naming ``vendiscope study`` when there are none.
    """
    from vendiscope.core.studies.reading import study_runs as runs_of

    out = [
        {"run_id": run.id, "status": run.status, "params": copy.deepcopy(run.params or {}),
         "result": copy.deepcopy(run.result)}
        for run in runs_of(project, dataset)
        if isinstance(run.result, dict) and run.result.get("runs")
    ]  # fmt: skip
    if not out:
        raise NotComputed("study runs", command(project, "study", dataset, "--target", "TARGET"))
    return out


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


__all__ = [
    "cluster_labels",
    "cluster_run",
    "complete_runs",
    "latest_run",
    "latest_selection_subset",
    "missing_score_commands",
    "near_duplicate_summary",
    "per_record_score_runs",
    "resolution_advice",
    "resolution_checks",
    "score_run",
    "score_summary",
    "selection_results",
    "selection_runs",
    "study_runs",
    "synthesis_runs",
]
