"""The report's numbers: every figure of a dataset's audit, as plain JSON-serialisable data.

:func:`audit_numbers` gathers them from what the project already holds — headline scores
(G-Vendi, embedding-Vendi, the effective number of distinct examples, exact and
near-duplicates), the per-source breakdown, sparse clusters with example records, the map,
coverage of a target set, the selection runs, the synthesis runs (with their curves) and the
studies (their verdict, evidence and scatters) —
through the public read helpers of :mod:`vendiscope.core.view_data.data` and
:class:`vendiscope.core.store.project.Project`. A piece that was not computed is listed under
``"missing"`` with the command that computes it; the report never fails for it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

from vendiscope import __version__
from vendiscope.core.base.errors import ProjectError, VendiscopeError
from vendiscope.core.io.sampling import sample_origin
from vendiscope.core.neighbors.options import CoverageOptions
from vendiscope.core.store.project import Project
from vendiscope.core.view_data import data as viewdata

LISTED_SPARSE = 10
LISTED_GROUPS = 5
LISTED_UNCOVERED = 25
LISTED_SYNTHESIS = 5
"""The report shows the latest this many synthesis runs of a dataset."""
LISTED_STUDIES = 5
"""The report shows the latest this many studies of a dataset (as their pool or target)."""


def audit_numbers(
    project: Project,
    dataset: str,
    *,
    target: str | None = None,
    radius: float = CoverageOptions.min_similarity,
    target_vector_set: str | None = None,
    vector_set: str | None = None,
    listed_sparse: int = LISTED_SPARSE,
    listed_groups: int = LISTED_GROUPS,
    listed_uncovered: int = LISTED_UNCOVERED,
    contributions: bool = True,
) -> dict[str, Any]:
    """Every number of the audit as plain JSON-serialisable data (the ``--format json``).

    ``contributions``: compute each source's contribution to the whole score (one pass over
    the score's vector set and one eigendecomposition per source); off, those are None.
    """
    info = project.dataset(dataset)
    if target is not None:
        project.dataset(target)  # fail early for a target that does not exist
    stats = project.stats(dataset)
    missing: list[dict[str, Any]] = []

    def piece(section: str, get: Callable[[], Any]) -> Any:
        try:
            return get()
        except viewdata.NotComputed as exc:
            missing.append(
                {
                    "section": section,
                    "what": exc.what,
                    "command": exc.command,
                    "commands": list(exc.commands),
                    "message": str(exc),
                }
            )
        except VendiscopeError as exc:
            missing.append(
                {"section": section, "what": section, "command": None, "message": str(exc)}
            )
        return None

    gvendi = piece("headline", lambda: viewdata.score_summary(project, dataset, "gvendi"))
    vendi = piece("headline", lambda: viewdata.score_summary(project, dataset, "vendi"))
    near = piece("near-duplicates", lambda: viewdata.near_duplicate_summary(project, dataset))
    rows = int(stats["rows"])
    basis = gvendi or vendi
    numbers: dict[str, Any] = {
        "vendiscope": __version__,
        "generated_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "project": project.location,
        "dataset": dataset,
        "source_uri": info.source_uri,
        "records": rows,
        "headline": {
            "records": rows,
            "gvendi": _score_numbers(gvendi),
            "embedding_vendi": _score_numbers(vendi),
            "effective_number": basis["value"] if basis else None,
            "effective_fraction": basis["fraction"] if basis else None,
            "effective_number_basis": basis["title"] if basis else None,
            "exact_duplicates": int(stats["exact_duplicates"]),
            "exact_duplicate_fraction": stats["exact_duplicates"] / rows if rows else 0.0,
            "unique": int(stats["unique"]),
            "near_duplicates": _near_numbers(near),
            "advice": viewdata.resolution_advice(project, dataset) or None,
            "sample": sample_origin(project, dataset),
        },
        "stats": {k: stats[k] for k in ("filled", "mean_chars", "skipped_rows")},
    }
    numbers["sources"] = piece(
        "sources",
        lambda: viewdata.source_table(
            project, dataset, contributions="auto" if contributions else None
        ),
    )
    numbers["spectrum"] = {
        s["title"]: s["spectrum_top"] for s in (gvendi, vendi) if s and s["spectrum_top"]
    }
    clusters = piece("clusters", lambda: _clusters(project, dataset, listed_sparse))
    numbers["clusters"] = clusters
    numbers["near_duplicates"] = None
    if near is not None:
        groups = viewdata.near_duplicate_groups(project, dataset, top=listed_groups)
        numbers["near_duplicates"] = {**_near_numbers(near), "largest_groups": groups}
    numbers["map"] = piece("map", lambda: _map_numbers(project, dataset))
    numbers["coverage"] = None
    if target is not None:
        numbers["coverage"] = piece(
            "coverage",
            lambda: viewdata.coverage_data(
                project,
                dataset,
                target,
                radius=radius,
                vector_set=vector_set,
                target_vector_set=target_vector_set,
                listed=listed_uncovered,
            ),
        )
    selections = viewdata.selection_runs(project, dataset)
    numbers["selections"] = [_selection_numbers(s) for s in selections]
    if not selections:
        selecting = viewdata.command(project, "select", dataset, "-k", "K")
        missing.append(
            {
                "section": "selections",
                "what": "selection runs",
                "command": str(selecting),
                "commands": [str(selecting)],
                "message": "no selection runs yet",
            }
        )
    numbers["quality"] = _quality(project, dataset)
    numbers["synthesis"] = _synthesis(project, dataset, missing)
    numbers["studies"] = _studies(project, dataset, missing)
    numbers["missing"] = missing
    numbers["runs"] = _runs_used(numbers)
    return _finite(numbers)


def _score_numbers(score: dict[str, Any] | None) -> dict[str, Any] | None:
    if score is None:
        return None
    keys = ("value", "n", "fraction", "ci", "ci_level", "vector_set", "run_id", "finished_at")
    extra = ("mean_cosine", "verdict", "group_check", "projection_error")  # None: older runs
    return {**{k: score[k] for k in keys}, **{k: score.get(k) for k in extra}}


def _near_numbers(near: dict[str, Any] | None) -> dict[str, Any] | None:
    if near is None:
        return None
    keys = (
        "threshold",
        "groups",
        "records_in_groups",
        "redundant",
        "largest_group",
        "vector_set",
        "subset",
        "run_id",
    )
    out = {k: near[k] for k in keys}
    out["redundant_fraction"] = near["redundant"] / near["records"] if near["records"] else 0.0
    return out


def _clusters(project: Project, dataset: str, listed: int) -> dict[str, Any]:
    table = viewdata.cluster_table(project, dataset)
    sizes = table.pop("sizes")
    sparse = table.pop("sparse")
    return {
        **table,
        "sparse_clusters": len(sparse),
        "sparse_fraction_of_records": table["records_in_sparse"] / table["records"]
        if table["records"]
        else 0.0,
        "largest_size": max(sizes) if sizes else 0,
        "smallest_size": min(sizes) if sizes else 0,
        "smallest_sparse": viewdata.sparse_cluster_examples(project, dataset, limit=listed),
    }


def _map_numbers(project: Project, dataset: str) -> dict[str, Any]:
    info = viewdata.map_set(project, dataset)
    from vendiscope.core.maps.run_result import MapResult

    run = project.run(info.run_id) if info.run_id is not None else None
    stored = MapResult.from_json(run.result) if run is not None else None
    return {
        "map": info.name,
        "method": viewdata.map_method(project, info),
        "vector_set": (info.params or {}).get("vector_set"),
        "trustworthiness": stored.trustworthiness if stored is not None else None,
        "fitted_rows": stored.fitted_rows if stored is not None else None,
        "run_id": info.run_id,
    }


def _selection_numbers(run: dict[str, Any]) -> dict[str, Any]:
    ratios = {
        name: (value / run["random_vendi"][name]) if run["random_vendi"].get(name) else None
        for name, value in run["vendi"].items()
    }
    keep = (
        "run_id",
        "method",
        "k",
        "candidates",
        "vector_set",
        "subset",
        "subset_exists",
        "objective",
        "vendi",
        "random_vendi",
        "kinds",
    )
    return {**{k: run[k] for k in keep}, "vs_random": ratios}


def _synthesis(project: Project, dataset: str, missing: list[dict[str, Any]]) -> list[Any]:
    """The latest synthesis runs of the dataset (its pool's or those that wrote it), each
    with its note, per-round table and curve chart; none is not a missing piece (the
    section is left out)."""
    from vendiscope.core.synthesis.algorithms.curve import curve_note, curve_rows, synthesis_chart

    try:
        runs = viewdata.synthesis_runs(project, dataset)
    except viewdata.NotComputed:
        return []
    out = []
    for run in runs[-LISTED_SYNTHESIS:]:
        result, params = run["result"], run["params"]
        try:
            rows = curve_rows(result)
            chart = synthesis_chart(result, status=run["status"])
        except ValueError as exc:
            what = f"synthesis run {run['run_id']}"
            missing.append(
                {"section": "synthesis", "what": what, "command": None, "message": f"{what}: {exc}"}
            )
            continue
        out.append({
            "run_id": run["run_id"],
            "status": run["status"],
            "pool": result.get("dataset", params.get("dataset")),
            "name": result.get("name", params.get("name")),
            "all": result.get("all", params.get("all")),
            **{k: result.get(k) for k in ("filter", "generator", "model", "budget", "pool_rows",
                                          "pool_gvendi", "accepted", "generated", "gvendi",
                                          "baseline", "stopped")},
            "note": curve_note(result, status=run["status"]),
            "rounds": rows,
            "chart": chart,
        })  # fmt: skip
    return out


def _studies(project: Project, dataset: str, missing: list[dict[str, Any]]) -> list[Any]:
    """The latest studies of the dataset (as their pool or target), each with its note,
    verdict, evidence per metric, pilot, per-subset table and a scatter per metric; none is
    not a missing piece (a study is hours of training, not a step every audit needs: the
    section is left out)."""
    from vendiscope.core.studies.algorithms.chart import (
        evidence_rows,
        metric_label,
        study_chart,
        study_note,
        subset_rows,
        verdict,
    )
    from vendiscope.core.studies.run_result import StudyResult

    try:
        runs = viewdata.study_runs(project, dataset)
    except viewdata.NotComputed:
        return []
    out = []
    for run in runs[-LISTED_STUDIES:]:
        result, params = run["result"], run["params"]
        what = f"study run {run['run_id']}"
        try:
            study = StudyResult.from_json(result, run_id=run["run_id"])
            metrics = {m: metric_label(result, m) for m in study.metrics}
            evidence = evidence_rows(result, "improvement")
            rows = subset_rows(result, "improvement")
        except (ValueError, ProjectError) as exc:
            missing.append(
                {"section": "studies", "what": what, "command": None, "message": f"{what}: {exc}"}
            )
            continue
        charts = {}
        for metric, label in metrics.items():
            try:
                charts[metric] = study_chart(result, metric)
            except ValueError as exc:  # e.g. no subset has this metric's value
                message = f"{what}: the scatter of {label}: {exc}"
                missing.append(
                    {"section": "studies", "what": what, "command": None, "message": message}
                )
        accuracy = None
        if result.get("checkable"):
            accuracy = {
                "verdict": verdict(result, "accuracy_gain"),
                "evidence": evidence_rows(result, "accuracy_gain"),
            }
        ordinary = None
        if (result.get("analysis_ordinary") or {}).get("improvement"):
            among = {"among": "analysis_ordinary"}
            ordinary = {
                "verdict": verdict(result, "improvement", **among),
                "evidence": evidence_rows(result, "improvement", **among),
            }
        pilot = result.get("pilot")
        plan = result.get("plan") or {}
        out.append({
            "run_id": run["run_id"],
            "status": run["status"],
            "name": result.get("name", params.get("name")),
            "pool": result.get("pool", params.get("pool")),
            "target": result.get("target", params.get("target")),
            **{k: result.get(k) for k in ("trainer", "model", "seeds", "target_rows",
                                          "checkable", "runs_total", "baseline", "stopped")},
            "plan": plan.get("summary"),
            "runs_done": len(result.get("runs") or []),
            "cost": (result.get("cost") or {}).get("text"),
            "notes": list(result.get("notes") or []),
            "note": study_note(result, run["status"]),
            "metrics": metrics,
            "verdict": verdict(result, "improvement"),
            "best": ((result.get("analysis") or {}).get("improvement") or {}).get("best"),
            "evidence": evidence,
            "accuracy": accuracy,
            "ordinary": ordinary,
            "pilot": None if not pilot else {
                k: pilot.get(k) for k in ("subsets", "planned_seeds", "reliability", "separable",
                                          "seeds_needed", "forced", "detail")
            },
            "subsets": rows,
            "charts": charts,
        })  # fmt: skip
    return out


def _quality(project: Project, dataset: str) -> list[Any]:
    """Each computed signal column: how many records each flag raises (and in which sources),
    a number's median and 5-95% range, a label's commonest values
    (:mod:`vendiscope.core.signals.summary`)."""
    from vendiscope.core.signals.summary import FlagSummary, LabelSummary, summarize_signals

    out = []
    for found in summarize_signals(project, dataset):  # none: the page says how to add them
        entry: dict[str, Any] = {"column": found.column, "kind": found.kind,
                                 "run_id": found.run_id}  # fmt: skip
        if isinstance(found, FlagSummary):
            entry.update(flagged=found.raised, share=found.share, by_source=dict(found.by_source))
        elif isinstance(found, LabelSummary):
            entry["top"] = list(found.top)
        else:
            entry.update(median=found.median, p5=found.p5, p95=found.p95)
        out.append(entry)
    return out


def _runs_used(numbers: dict[str, Any]) -> list[int]:
    found: set[int] = set()

    def walk(value: Any, key: str = "") -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, k)
        elif isinstance(value, list):
            for v in value:
                walk(v, key)
        elif key == "run_id" and isinstance(value, int):
            found.add(value)

    walk(numbers)
    return sorted(found)


def _finite(value: Any) -> Any:
    """NaN and infinities (e.g. an undefined objective) become None, so JSON stays strict."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


__all__ = [
    "LISTED_GROUPS",
    "LISTED_SPARSE",
    "LISTED_STUDIES",
    "LISTED_SYNTHESIS",
    "LISTED_UNCOVERED",
    "audit_numbers",
]
