"""What a study shows: a scatter per metric, the per-subset table, the evidence table.

Pure functions of a study run's ``result`` (the dict :mod:`vendiscope.core.studies.job`
rewrites after every training run): no project, no store, no Qt. The view ``study-scatter``,
the audit report, the command line and the app draw the same charts and tables from them.

- :func:`study_chart` — a scatter (:mod:`vendiscope.core.plugin_host.charts`): x = a metric's
  value for each subset, y = the subset's outcome averaged over its seeds, one colour per
  kind of subset (random, a selector's, source-restricted, duplicate-heavy, existing);
- :func:`subset_rows` — per subset: kind, each metric, runs done, mean outcome and its spread
  over seeds;
- :func:`evidence_rows` — per metric: Spearman and Kendall with their intervals and p-values;
- :func:`study_note` — one line: the trainer, runs done, the baseline, why it stopped.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from vendiscope.core.plugin_host.charts import CHART_SCHEMA_VERSION

OUTCOME_LABELS = {
    "improvement": "Target loss improvement (nats)",
    "accuracy_gain": "Target accuracy gain",
}
KIND_LABELS = {
    "random": "random",
    "selector": "selector",
    "sources": "source-restricted",
    "duplicates": "duplicate-heavy",
    "existing": "existing subset",
}
STOPPED = {
    "done": "finished",
    "refused": "stopped after the pilot (seed noise)",
    "cancelled": "cancelled",
    "failed": "failed",
}


def subsets(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The plan's subsets (name, kind, positions, detail); ``ValueError`` when there is none."""
    plan = result.get("plan")
    if not isinstance(plan, Mapping) or not plan.get("subsets"):
        raise ValueError("the study has no plan yet (it stopped before its subsets were made)")
    return list(plan["subsets"])


def outcomes(result: Mapping[str, Any], outcome: str = "improvement") -> np.ndarray:
    """``(subsets, seeds)`` outcomes of the runs done so far, NaN where not done."""
    names = [s["name"] for s in subsets(result)]
    return outcome_table(result.get("runs", []), names, outcome)


def outcome_table(
    runs: Sequence[Mapping[str, Any]], names: Sequence[str], outcome: str = "improvement"
) -> np.ndarray:
    """``(len(names), seeds)`` outcomes, run ``seed`` of subset ``i`` at ``[i, seed]``; NaN
    where a run is not done or has no such outcome."""
    row = {name: i for i, name in enumerate(names)}
    mine = [r for r in runs if r.get("subset") in row]
    width = 1 + max((int(r["seed"]) for r in mine), default=0)
    table = np.full((len(names), width), np.nan)
    for run in mine:
        value = run.get(outcome)
        if value is not None:
            table[row[run["subset"]], int(run["seed"])] = float(value)
    return table


def metric_label(result: Mapping[str, Any], metric: str) -> str:
    entry = (result.get("metrics") or {}).get(metric)
    if entry is None:
        known = ", ".join(result.get("metrics") or {}) or "none"
        raise ValueError(f"metric {metric!r} is not one of this study's (its metrics: {known})")
    return str(entry.get("label") or metric)


def study_chart(
    result: Mapping[str, Any],
    metric: str,
    *,
    outcome: str = "improvement",
    title: str | None = None,
) -> dict[str, Any]:
    """The scatter of ``metric`` against the mean ``outcome`` per subset (subsets with a run).

    The title gives the metric's Spearman with its interval when the analysis has it.
    """
    if outcome not in OUTCOME_LABELS:
        raise ValueError(f"outcome must be one of {', '.join(OUTCOME_LABELS)}; got {outcome!r}")
    label = metric_label(result, metric)
    values = result["metrics"][metric]["values"]
    planned = subsets(result)
    means = _means(outcomes(result, outcome))
    spread = _spreads(outcomes(result, outcome))
    series: dict[str, dict[str, list[Any]]] = {}
    for subset, x, y, sd in zip(planned, values, means, spread, strict=True):
        if not (math.isfinite(y) and x is not None and math.isfinite(x)):
            continue
        kind = KIND_LABELS.get(subset["kind"], subset["kind"])
        if subset["kind"] == "selector":
            kind = str(subset.get("detail", {}).get("selector", kind))
        points = series.setdefault(kind, {"x": [], "y": [], "label": []})
        points["x"].append(float(x))
        points["y"].append(float(y))
        noise = "" if not math.isfinite(sd) else f" ± {sd:.3g} over seeds"
        points["label"].append(f"{subset['name']}: {label} {x:.4g}, outcome {y:.4g}{noise}")
    if not series:
        raise ValueError("no training run has finished yet: nothing to plot")
    head = title or f"{label} vs {OUTCOME_LABELS[outcome].split(' (')[0].lower()}"
    reading = _reading(result, metric, outcome)
    return {
        "kind": "scatter",
        "title": f"{head}: {reading}" if reading else head,
        "x_label": f"{label} of the subset",
        "y_label": OUTCOME_LABELS[outcome],
        "series": [{"name": name, **points} for name, points in series.items()],
        "version": CHART_SCHEMA_VERSION,
    }


def subset_rows(result: Mapping[str, Any], outcome: str = "improvement") -> list[dict[str, Any]]:
    """One row per subset: name, kind, size, each metric, runs, mean and sd of ``outcome``."""
    table = outcomes(result, outcome)
    metrics = result.get("metrics") or {}
    rows = []
    for i, subset in enumerate(subsets(result)):
        done = table[i][np.isfinite(table[i])]
        row: dict[str, Any] = {
            "subset": subset["name"],
            "kind": KIND_LABELS.get(subset["kind"], subset["kind"]),
            "rows": len(subset["positions"]),
            "distinct": len(set(subset["positions"])),
        }
        for metric, entry in metrics.items():
            row[metric] = entry["values"][i]
        row["runs"] = int(done.size)
        row["outcome"] = float(done.mean()) if done.size else None
        row["seed_sd"] = float(done.std(ddof=1)) if done.size > 1 else None
        rows.append(row)
    return rows


def evidence_rows(
    result: Mapping[str, Any], outcome: str = "improvement", *, among: str = "analysis"
) -> list[dict[str, Any]]:
    """Per metric, strongest first: Spearman, its interval and p, Kendall and its p.

    ``among="analysis_ordinary"`` reads the subsets other than the duplicate-heavy controls.
    """
    analysis = (result.get(among) or {}).get(outcome)
    if not analysis:
        return []
    rows = []
    for found in analysis["evidence"]:
        rows.append(
            {
                "metric": found["metric"],
                "label": metric_label(result, found["metric"]),
                "n": found["n"],
                "spearman": found["spearman"],
                "spearman_ci": found["spearman_ci"],
                "spearman_p": found["spearman_p"],
                "kendall": found["kendall"],
                "kendall_p": found["kendall_p"],
            }
        )
    return rows


def verdict(
    result: Mapping[str, Any], outcome: str = "improvement", *, among: str = "analysis"
) -> str:
    """The analysis's plain-words reading, or why there is none yet (``among``: as
    :func:`evidence_rows`)."""
    analysis = (result.get(among) or {}).get(outcome)
    if analysis:
        return str(analysis["verdict"])
    if outcome == "accuracy_gain" and not result.get("checkable"):
        return "The target has no checkable answers, so accuracy is not measured."
    return "Too few subsets have a finished run to read (3 are needed)."


def study_note(result: Mapping[str, Any], status: str | None = None) -> str:
    """One line: runs done of planned, the trainer's model, the baseline, how it stopped."""
    done, total = len(result.get("runs", [])), result.get("runs_total")
    parts = [f"{done} of {total} training runs" if total else f"{done} training runs"]
    base = result.get("baseline") or {}
    if base.get("loss") is not None:
        line = f"untrained target loss {base['loss']:.4g}"
        if base.get("accuracy") is not None:
            line += f", accuracy {base['accuracy']:.1%}"
        parts.append(line)
    trained = _trained(result)
    if trained:
        parts.append(trained)
    stopped = result.get("stopped")
    if stopped:
        parts.append(STOPPED.get(stopped, stopped))
    elif status and status != "complete":
        parts.append({"running": "still running"}.get(status, status))
    return "; ".join(parts)


def _trained(result: Mapping[str, Any]) -> str:
    """ "causal-lm: SmolLM2-135M-Instruct, lora": the trainer, its model's name, its method."""
    details = result.get("trainer_details") or {}
    model = str(details.get("model") or "").rstrip("/\\")
    if not model:
        return str(result.get("model") or "")
    name = model.replace("\\", "/").rsplit("/", 1)[-1]
    method = f", {details['method']}" if details.get("method") else ""
    return f"{result.get('trainer') or 'trainer'}: {name}{method}"


def _reading(result: Mapping[str, Any], metric: str, outcome: str) -> str:
    analysis = (result.get("analysis") or {}).get(outcome) or {}
    for found in analysis.get("evidence", []):
        if found["metric"] == metric and found.get("spearman") is not None:
            low, high = found["spearman_ci"]
            interval = "" if low is None or high is None else f" [{low:.2f}, {high:.2f}]"
            p = found["spearman_p"]
            shown = "p < 0.001" if p is not None and p < 0.001 else f"p = {p:.2g}"
            return f"Spearman {found['spearman']:.2f}{interval}, {shown}"
    return ""


def _means(table: np.ndarray) -> list[float]:
    return [float(row[np.isfinite(row)].mean()) if np.isfinite(row).any() else math.nan
            for row in table]  # fmt: skip


def _spreads(table: np.ndarray) -> list[float]:
    found = []
    for row in table:
        done = row[np.isfinite(row)]
        found.append(float(done.std(ddof=1)) if done.size > 1 else math.nan)
    return found
