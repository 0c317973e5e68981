"""The reads and texts of the "Study…" workflow (usable and testable without Qt).

Functions that read a project take its location and open their own connection, so they
can run off the GUI thread (:class:`~vendiscope.gui.jobs.background.Loader`) or in a child
process (:func:`estimate_job`: the trainer imports torch, which the window's process never
does); the others turn a study run's ``result`` (see :mod:`vendiscope.core.studies.job`) into
what the dialog and the monitor show, through :mod:`vendiscope.core.studies.algorithms.chart`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from vendiscope.core.studies.options import DEFAULT_SIZE
from vendiscope.gui.jobs.run_texts import STATUS_TEXT, stored_message
from vendiscope.gui.jobs.tasks import opened

if TYPE_CHECKING:
    from vendiscope.core.store.models import RunInfo
    from vendiscope.core.store.project import Project
    from vendiscope.core.studies.run_result import StudyResult

LARGEST_DEFAULT_SIZE = DEFAULT_SIZE
"""The default subset size: a quarter of the pool, at most this many rows."""
OUTCOME_SHORT = {"improvement": "Loss improvement", "accuracy_gain": "Accuracy gain"}
"""The outcome's column in the subsets table (the mean over the subset's seeds)."""
OUTCOME_TEXT = {
    "improvement": "Target loss improvement",
    "accuracy_gain": "Target accuracy gain",
}


# ----------------------------------------------------------------------------- the dialog
def default_size(rows: int) -> int:
    """Rows per subset by default: a quarter of the pool, at most 500 (at least 1)."""
    return max(1, min(LARGEST_DEFAULT_SIZE, rows // 4))


@dataclass(frozen=True)
class PoolFacts:
    """What the dialog needs to know of the pool: its rows, sources and gradient features."""

    rows: int
    sources: int  # distinct known sources
    gradients: bool  # a complete gradient (or feature) vector set


def pool_facts(location: str, pool: str) -> PoolFacts:
    """Rows, known sources and whether the pool has gradient features (a full scan, cached)."""
    from vendiscope.core.store import vectors

    with opened(location) as project:
        stats = project.stats(pool)
        sets = vectors.list_sets(project, pool)
    known = [name for name in stats["sources"] if name not in ("(none)", "")]
    gradients = any(s.kind in ("gradient", "feature") and s.status == "complete" for s in sets)
    return PoolFacts(int(stats["rows"]), len(known), gradients)


def target_choices(datasets: Sequence[str], pool: str) -> list[str]:
    """The datasets a study of ``pool`` can be scored on: every other one."""
    return [name for name in datasets if name != pool]


def estimate_job(
    location: str,
    pool: str,
    target: str,
    options: dict[str, Any],
    *,
    progress: Any = None,
    cancel: Any = None,
) -> dict[str, Any]:
    """:func:`~vendiscope.core.studies.job.estimate_study` as a job (a child process runs it):
    its summary (``plan``, ``runs``, ``cost.text``, ``notes``); nothing is written."""
    from vendiscope.core.studies.job import estimate_study
    from vendiscope.core.studies.options import StudyOptions

    with opened(location) as project:
        found = estimate_study(
            project, pool, target, StudyOptions(**options), progress=progress, cancel=cancel
        )
    return found.summary()


def estimate_text(summary: Mapping[str, Any]) -> str:
    """The estimate as the dialog shows it: the plan, the cost here, and any notes."""
    cost = (summary.get("cost") or {}).get("text") or ""
    lines = [_sentence(str(summary.get("plan") or ""))]
    if cost:
        lines.append(f"It would take {cost}.")
    target = summary.get("target_rows")
    if target:
        checkable = int(summary.get("checkable") or 0)
        scored = f"Each model is scored on {int(target):,} target rows"
        lines.append(
            f"{scored}, {checkable:,} with an answer to check (accuracy)."
            if checkable
            else f"{scored} (none has an answer to check: the loss only)."
        )
    lines.extend(app_note(note) for note in summary.get("notes") or [])
    lines.append(too_long_text(summary.get("longer_than_a_day")))
    return "\n".join(line for line in lines if line)


def too_long_text(longer: Mapping[str, Any] | None) -> str:
    """What brings a study estimated over a day within one (``longer``: the estimate's
    ``longer_than_a_day``), or ``""`` when it fits in a day."""
    if not longer:
        return ""
    ways = []
    sample = longer.get("target_rows")
    if sample:
        ways.append(
            f"score on {int(sample):,} target rows instead of {int(longer['scored_rows']):,} "
            "(Target rows: every run scores each of them)"
        )
    fit = int(longer.get("runs_in_a_day") or 0)
    if fit:
        runs = int(longer.get("runs") or 0)
        ways.append(
            f"plan fewer training runs: about {fit:,} of the {runs:,} fit in a day "
            "(fewer subsets or seeds)"
        )
    else:
        ways.append("shorten each run: not even one fits in a day (fewer training steps, or "
                    "fewer rows per subset)")  # fmt: skip
    return f"That is more than a day. To bring it within one, {' or '.join(ways)}."


def long_study_question(longer: Mapping[str, Any]) -> str:
    """What the dialog asks before it starts a study estimated over a day."""
    from vendiscope.core.studies.algorithms.feasibility import duration

    advice = too_long_text(longer).removeprefix("That is more than a day. ")
    return (
        f"The estimate says this study would take about "
        f"{duration(float(longer['total_seconds']))} on this computer. {advice}\n\n"
        "Start it anyway?"
    )


def _sentence(text: str) -> str:
    text = str(text).strip()
    if not text:
        return ""
    text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else f"{text}."


# ----------------------------------------------------------------------------- runs
def study_runs(project: Project, dataset: str) -> list[RunInfo]:
    """The studies whose pool or target is ``dataset``, oldest first."""
    from vendiscope.core.studies.reading import study_runs as runs_of

    return runs_of(project, dataset)


def read(result: Mapping[str, Any] | None) -> StudyResult | None:
    """A study run's stored result, typed (None before the run has stored one)."""
    from vendiscope.core.studies.run_result import StudyResult

    return StudyResult.from_json(result) if result else None


def run_names(run: RunInfo) -> tuple[str, str, str]:
    """``(pool, target, name)`` of a study run (its parameters say them from the start)."""
    params = run.params or {}
    return str(params["pool"]), str(params["target"]), str(params["name"])


def run_options(run: RunInfo, *, force: bool | None = None) -> dict[str, Any]:
    """The options the run was started with (what Resume starts again; ``force``: Run
    anyway)."""
    options = dict((run.params or {}).get("options") or {})
    _, _, name = run_names(run)
    if name:
        options["name"] = name
    if force is not None:
        options["force"] = force
    return options


def progress_counts(result: Mapping[str, Any] | None) -> tuple[int, int | None]:
    """``(runs done, runs planned)``; planned is None before the plan is made."""
    study = read(result)
    return (0, None) if study is None else (study.done, study.runs_total or None)


def run_label(run: RunInfo) -> str:
    """How the run chooser names a study: ``study-1 · on held-out · 4 of 10 runs · running``."""
    _, target, name = run_names(run)
    done, total = progress_counts(run.result)
    runs = f"{done:,} of {total:,} runs" if total else f"{done:,} runs"
    status = "refused after its pilot" if refused(run) else STATUS_TEXT.get(run.status, run.status)
    when = run.started_at.strftime("%Y-%m-%d %H:%M")
    return f"{name or 'study'} · scored on {target} · {runs} · {status.lower()} · {when}"


def refused(run: RunInfo | None) -> bool:
    """Whether the study stopped after its pilot because seed noise swamps it."""
    study = read(run.result) if run is not None else None
    return (
        run is not None
        and run.status != "complete"
        and study is not None
        and (study.stopped == "refused")
    )


def refusal_text(run: RunInfo) -> str:
    """Why the pilot stopped the study, and what Run anyway does."""
    study = read(run.result)
    detail = study.pilot_detail if study is not None else ""
    if not detail:
        detail = short_error(run.error or "").removeprefix("the study stops after its pilot: ")
        detail = detail.split(". Change the plan")[0]
    return (
        f"The study stopped after its pilot: {detail.rstrip('.')}. Run anyway goes on (the "
        "pilot's runs are kept), or start a study with another plan."
    )


def last_run_text(result: Mapping[str, Any] | None) -> str:
    """The latest finished training run: ``run 4 (random-02, seed 2)``, or ``""``."""
    study = read(result)
    if study is None or not study.runs:
        return ""
    last = study.runs[-1]
    return f"run {last.number} ({last.subset}, seed {last.seed + 1})"


def status_text(run: RunInfo | None, current: str = "") -> str:
    """One line on how the study stands (``current``: what its job is doing now)."""
    if run is None:
        return "Waiting for the study to start (loading the trainer's model can take a minute)."
    done, total = progress_counts(run.result)
    counted = f"{done:,} of {total:,} training runs done" if total else "making the plan"
    if run.status == "running":
        now = f" — now {current}" if current else ""
        return f"Running: {counted}{now}."
    if run.status == "complete":
        return f"Finished: {done:,} training runs."
    if refused(run):
        return f"Stopped after its pilot: {done:,} of {total or 0:,} training runs done."
    resume = " Resume goes on with the next run."
    if run.status == "cancelled":
        return f"Cancelled: {counted}.{resume}"
    if run.status == "failed":
        error = short_error(run.error or "")
        return f"Failed ({counted}): {error}.{resume}" if error else f"Failed ({counted}).{resume}"
    return f"{STATUS_TEXT.get(run.status, run.status)}: {counted}.{resume}"


def short_error(error: str) -> str:
    """A stored error (``StudyRefused('...')``) as its message."""
    return stored_message(error).strip()[:400]


def note_text(result: Mapping[str, Any] | None, status: str | None = None) -> str:
    """The header line: runs done, the untrained loss, the model, how it stopped."""
    from vendiscope.core.studies.algorithms.chart import study_note

    return study_note(result or {}, status) if result else ""


MENU_FOR_COMMAND = {
    "`vendiscope embed`": "Jobs > Compute embeddings…",
    "`vendiscope gradients`": "Jobs > Compute gradient features…",
}
"""The app's menu item for a command a core note names."""


def notes_text(result: Mapping[str, Any] | None) -> str:
    """The study's notes (skipped metrics, rows shared with the target), as sentences that
    name the app's menus rather than commands."""
    study = read(result)
    notes = [app_note(note) for note in (study.notes if study is not None else ())]
    return " ".join(n for n in notes if n)


def app_note(note: str) -> str:
    """A core note as a sentence that names the app's menu for a command it names."""
    text = str(note)
    for command, menu in MENU_FOR_COMMAND.items():
        text = text.replace(f"run {command} first", f"compute them first ({menu})")
        text = text.replace(command, menu)
    return _sentence(text)


# ----------------------------------------------------------------------------- the chart
def metric_choices(result: Mapping[str, Any] | None) -> list[tuple[str, str]]:
    """``(metric, label)`` of each metric the study scored, in its order."""
    study = read(result)
    return list(study.metrics.items()) if study is not None else []


def outcome_choices(result: Mapping[str, Any] | None) -> list[tuple[str, str]]:
    """``(outcome, label)``: the loss improvement, and the accuracy gain where measured."""
    choices = [("improvement", OUTCOME_TEXT["improvement"])]
    study = read(result)
    if study is not None and study.checkable > 0:
        choices.append(("accuracy_gain", OUTCOME_TEXT["accuracy_gain"]))
    return choices


def chart(
    result: Mapping[str, Any] | None, metric: str | None, outcome: str = "improvement"
) -> dict[str, Any] | None:
    """The scatter of ``metric`` against the outcome (None before any run has finished)."""
    from vendiscope.core.studies.algorithms.chart import study_chart

    if not result or metric is None:
        return None
    try:
        return study_chart(result, metric, outcome=outcome)
    except (ValueError, KeyError):
        return None


def verdict_text(result: Mapping[str, Any] | None, outcome: str = "improvement") -> str:
    """The analysis's reading in words, or why there is none yet."""
    from vendiscope.core.studies.algorithms.chart import verdict

    if not result or not result.get("plan"):
        return ""
    return verdict(result, outcome)


# ----------------------------------------------------------------------------- tables
def subset_table(
    result: Mapping[str, Any] | None, outcome: str = "improvement"
) -> tuple[list[str], list[list[str]]]:
    """The subsets table: its column titles and one row of texts per subset (the outcome
    first, then the runs, the rows and each metric)."""
    from vendiscope.core.studies.algorithms.chart import subset_rows

    metrics = metric_choices(result)
    columns = ["Subset", "Kind", OUTCOME_SHORT.get(outcome, outcome), "± over seeds", "Runs",
               "Rows", *(label for _, label in metrics)]  # fmt: skip
    if not result or not result.get("plan"):
        return columns, []
    try:
        found = subset_rows(result, outcome)
    except (ValueError, KeyError):
        return columns, []
    rows = []
    for row in found:
        size = f"{row['rows']:,}"
        if row["distinct"] != row["rows"]:
            size += f" ({row['distinct']:,} distinct)"
        rows.append(
            [
                str(row["subset"]),
                str(row["kind"]),
                number(row["outcome"]),
                number(row["seed_sd"]),
                f"{row['runs']:,}",
                size,
                *(number(row.get(metric)) for metric, _ in metrics),
            ]
        )
    return columns, rows


EVIDENCE_COLUMNS = ("Score", "Spearman [95% CI]", "p", "Kendall", "p ")
"""The evidence table's columns: each rank correlation with its p-value (over the subsets
with a finished run: :func:`evidence_subsets`)."""


def evidence_table(
    result: Mapping[str, Any] | None, outcome: str = "improvement"
) -> list[list[str]]:
    """The evidence table's rows: per metric, strongest first (columns
    :data:`EVIDENCE_COLUMNS`)."""
    from vendiscope.core.studies.algorithms.chart import evidence_rows

    if not result:
        return []
    try:
        found = evidence_rows(result, outcome)
    except (ValueError, KeyError):
        return []
    rows = []
    for row in found:
        low, high = [*(row.get("spearman_ci") or []), None, None][:2]
        interval = "" if low is None or high is None else f" [{low:.2f}, {high:.2f}]"
        rows.append(
            [
                str(row["label"]),
                number(row["spearman"], 2) + interval,
                p_value(row["spearman_p"]),
                number(row["kendall"], 2),
                p_value(row["kendall_p"]),
            ]
        )
    return rows


def evidence_subsets(result: Mapping[str, Any] | None, outcome: str = "improvement") -> int:
    """How many subsets the evidence is read over (those with a finished run)."""
    from vendiscope.core.studies.algorithms.chart import evidence_rows

    try:
        found = evidence_rows(result or {}, outcome)
    except (ValueError, KeyError):
        return 0
    return max((int(row["n"]) for row in found), default=0)


def number(value: Any, digits: int = 3) -> str:
    """A value as a table shows it (``""`` when missing or not a number)."""
    if value is None or isinstance(value, bool):
        return ""
    try:
        found = float(value)
    except (TypeError, ValueError):
        return str(value)
    if not math.isfinite(found):
        return ""
    return f"{found:.{digits}f}" if digits <= 2 else f"{found:.{digits}g}"


def p_value(value: Any) -> str:
    if value is None:
        return ""
    found = float(value)
    if not math.isfinite(found):
        return ""
    return "< 0.001" if found < 0.001 else f"{found:.3f}"
