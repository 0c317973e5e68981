"""Qt-free reads and texts of the "Fill gaps…" workflow (usable and testable without Qt).

Functions that read a project take its location and open their own connection, so they
can run off the GUI thread (:class:`~vendiscope.gui.jobs.background.Loader`); the others
turn a synthesis run's ``result`` (see :mod:`vendiscope.core.synthesis.job`) into what the
monitor shows.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from vendiscope.gui.jobs.run_texts import STATUS_TEXT, stored_message
from vendiscope.gui.jobs.tasks import opened

if TYPE_CHECKING:
    from vendiscope.core.plugin_host.registry import PluginRegistry
    from vendiscope.core.store.models import RunInfo
    from vendiscope.core.store.project import Project
    from vendiscope.core.synthesis.run_result import SynthesisResult

FILTER_TEXT = {
    "gain": "Keep those that raise G-Vendi most (recommended)",
    "sparse-cluster": "Keep those that land in a sparse cluster",
    "none": "Keep everything (no filter)",
}
FILTER_TIPS = {
    "sparse-cluster": "The rule of Prismatic Synthesis: a new example is kept when its "
    "gradient features fall in a cluster smaller than the median",
    "gain": "A new example is kept when it raises the G-Vendi of the dataset at least as "
    "much as the median of the examples judged before it (about half are kept)",
    "none": "Every usable output is kept: what the generator gives without a filter",
}
SEED_TEXT = {
    "sparse": "From one sparse cluster per prompt",
    "uniform": "From anywhere in the dataset",
}
SEED_TIPS = {
    "sparse": "Each prompt shows the generator a few records of one under-represented "
    "cluster, so it writes more of that kind",
    "uniform": "Each prompt shows records drawn from the whole dataset",
}
STOPPED_TEXT = {
    "budget": "the budget of accepted examples was reached",
    "rounds": "the number of rounds was reached",
    "target": "the target G-Vendi was reached",
}
REASONS_SHOWN = 3
"""Reasons listed per round in the rounds table (the most frequent first)."""


# ----------------------------------------------------------------------------- generators
def check_generator(
    name: str, params: dict[str, Any], registry: PluginRegistry | None = None
) -> str:
    """Reach the generator once ("Test connection"): its one-line description.

    Raises :class:`~vendiscope.core.base.errors.PluginError` naming what is wrong (the URL
    that cannot be reached, the model that is unknown).
    """
    from vendiscope.core.plugin_host.registry import default_registry

    generator = (registry or default_registry()).create("generator", name, **params)
    return str(generator.check())


def check_generator_job(
    name: str,
    params: dict[str, Any],
    location: str | None = None,
    dataset: str | None = None,
    options: dict[str, Any] | None = None,
    *,
    progress: Any = None,
    cancel: Any = None,
) -> str | dict[str, Any]:
    """:func:`check_generator` as a job (a child process runs it: a local model imports
    torch, which the window's process never does). Given the project, the dataset and the
    dialog's options, one real generation instead (:func:`probe_text`)."""
    if location is None or dataset is None or options is None:
        return check_generator(name, params)
    from vendiscope.core.synthesis.options import SynthesisOptions
    from vendiscope.core.synthesis.probe import probe

    chosen = SynthesisOptions(**{**options, "generator": name, "generator_params": params})
    with opened(location) as project:
        report = probe(project, dataset, chosen, progress=progress, cancel=cancel)
    return {"ok": report.ok, "text": probe_text(report)}


def probe_text(report: Any) -> str:
    """What one real generation showed, in a few lines (the dialog's Test connection)."""
    pace = f"one example in {report.seconds:.1f} s"
    if report.tokens_per_s is not None:
        pace += f" ({report.tokens_per_s:.1f} tokens/s)"
    minutes = report.estimate_s / 60
    lines = [
        f"{report.check}; {pace}; {report.budget} examples: at least {minutes:.0f} min",
        f"Structured output: {report.structured or 'not asked for'}",
    ]
    if report.ok:
        shown = "; ".join(f"{k}: {v[:120]}" for k, v in report.values.items())
        lines.append(f"Parsed: {shown}")
    else:
        why = report.error or f"{report.reason}" + (f" ({report.detail})" if report.detail else "")
        lines.append(f"Not usable: {why}. {report.advice()}")
        if report.text:
            lines.append(f"It wrote: {report.text[:200]}")
    return "\n".join(lines)


# ----------------------------------------------------------------------------- preview
@dataclass(frozen=True)
class SeedChoice:
    """A record to build the previewed prompt around (its sparse cluster gives the seeds)."""

    position: int
    cluster: int
    text: str


def seed_choices(location: str, dataset: str, limit: int = 12) -> list[SeedChoice]:
    """One example record of each of the smallest sparse clusters (none when not clustered)."""
    from vendiscope.core.view_data.data import NotComputed, sparse_cluster_examples

    with opened(location) as project:
        try:
            found = sparse_cluster_examples(project, dataset, limit=limit, width=110)
        except NotComputed:
            return []
    return [
        SeedChoice(int(r["position"]), int(c["cluster"]), str(r["text"]))
        for c in found
        for r in c["records"][:1]
    ]


def preview(
    location: str, dataset: str, options: dict[str, Any], position: int | None = None
) -> list[dict[str, str]]:
    """The chat messages the generator would receive for one prompt (no model is loaded).

    ``position`` is a record of the dataset whose sparse cluster gives the seed examples
    (None: chosen as the job would).
    """
    from vendiscope.core.synthesis.options import SynthesisOptions
    from vendiscope.core.synthesis.reading import preview_prompt

    with opened(location) as project:
        return preview_prompt(project, dataset, SynthesisOptions(**options), record=position)


def messages_text(messages: Sequence[dict[str, str]]) -> str:
    """Chat messages as text to read: each under its role."""
    titles = {"system": "Instructions", "user": "Prompt", "assistant": "Answer"}
    parts = []
    for message in messages:
        role = str(message.get("role", ""))
        title = titles.get(role, role.capitalize() or "Message")
        parts.append(f"── {title} ──\n{str(message.get('content', '')).strip()}")
    return "\n\n".join(parts)


# ----------------------------------------------------------------------------- runs
def synthesis_runs(project: Project, dataset: str) -> list[RunInfo]:
    """The synthesis runs whose pool is ``dataset`` or that wrote it, oldest first."""
    from vendiscope.core.synthesis.reading import synthesis_runs as runs_of

    return runs_of(project, dataset)


def read(result: dict[str, Any] | None) -> SynthesisResult | None:
    """A synthesis run's stored result, typed (None before the run has stored one)."""
    from vendiscope.core.synthesis.run_result import SynthesisResult

    return SynthesisResult.from_json(result) if result else None


def run_names(run: RunInfo) -> tuple[str, str, str]:
    """``(pool, new dataset, unfiltered stream)`` of a synthesis run (its parameters say them
    from the start)."""
    params = run.params or {}
    name = str(params["name"])
    return str(params["dataset"]), name, str(params.get("all", f"{name}-all"))


def run_options(run: RunInfo) -> dict[str, Any]:
    """The options the run was started with (what Resume starts again)."""
    options = dict((run.params or {}).get("options") or {})
    _, name, _ = run_names(run)
    if name:
        options["name"] = name
    return options


def run_label(run: RunInfo) -> str:
    """How the run chooser names a run: ``synth-1 · 12 of 200 accepted · running``."""
    stored = read(run.result)
    _, name, _ = run_names(run)
    options = (run.params or {}).get("options", {})
    budget = stored.budget if stored is not None and stored.budget else options.get("budget")
    accepted = stored.accepted if stored is not None else 0
    of = f" of {int(budget):,}" if budget else ""
    when = run.started_at.strftime("%Y-%m-%d %H:%M")
    status = STATUS_TEXT.get(run.status, run.status).lower()
    return f"{name or 'new dataset'} · {accepted:,}{of} accepted · {status} · {when}"


def status_text(run: RunInfo | None) -> str:
    """One line on how the run stands (or ended) and what Resume would do."""
    if run is None:
        return "Waiting for the job to start (loading the generator can take a minute)."
    stored = read(run.result)
    rounds = stored.rounds if stored is not None else ()
    if run.status == "running":
        if not rounds:
            return "Running: writing and judging the first round of examples…"
        return f"Running: {len(rounds):,} round{'s' if len(rounds) != 1 else ''} done."
    if run.status == "complete":
        why = STOPPED_TEXT.get(str(stored.stopped if stored is not None else None), "")
        return f"Finished: {why}." if why else "Finished."
    done = f" after {len(rounds):,} round{'s' if len(rounds) != 1 else ''}" if rounds else ""
    resume = " Resume continues after the last finished round."
    if run.status == "cancelled":
        return f"Cancelled{done}.{resume}"
    if run.status == "failed":
        error = (run.error or "").strip()
        return f"Failed{done}: {short_error(error)}.{resume}" if error else f"Failed{done}."
    return f"{STATUS_TEXT.get(run.status, run.status)}{done}.{resume}"


def short_error(error: str) -> str:
    """A stored error (``PluginError('...')``) as its message."""
    return stored_message(error)[:300]


def totals_text(result: dict[str, Any] | None) -> str:
    """The run's totals: accepted of generated, and G-Vendi with and without the filter."""
    stored = read(result)
    if stored is None:
        return ""
    parts = [f"{stored.accepted:,} accepted of {stored.generated:,} usable outputs"]
    if stored.budget:
        parts[0] += f" (budget {stored.budget:,})"
    if stored.gvendi is not None:
        text = f"G-Vendi {stored.gvendi:,.1f}"
        if stored.baseline is not None:
            text += f", without the filter {stored.baseline:,.1f}"
        if stored.pool_gvendi is not None:
            text += f", the dataset alone {stored.pool_gvendi:,.1f}"
        parts.append(text)
    return " · ".join(parts)


# ----------------------------------------------------------------------------- curve
def curve_chart(result: dict[str, Any] | None, status: str | None = None) -> dict[str, Any] | None:
    """The chart of the curve (None before the first round or for a malformed result): the
    description :func:`vendiscope.core.synthesis.algorithms.curve.synthesis_chart` makes for the
    command line, the report and the views (``status``: the run's)."""
    from vendiscope.core.synthesis.algorithms.curve import synthesis_chart

    if not result or not result.get("rounds"):
        return None
    try:
        return synthesis_chart(result, title="G-Vendi", status=status)
    except ValueError:
        return None


# ----------------------------------------------------------------------------- rounds
ROUND_COLUMNS = ("Round", "Usable", "Accepted", "Rejected", "G-Vendi", "Unfiltered",
                 "Top reasons for rejecting")  # fmt: skip


def round_rows(result: dict[str, Any] | None) -> list[list[str]]:
    """One row per round of the run, newest last, as the rounds table shows it."""
    stored = read(result)
    rows = []
    for found in stored.rounds if stored is not None else ():
        reasons = Counter(found.reasons)
        top = ", ".join(f"{reason} ({count:,})" for reason, count in reasons.most_common(
            REASONS_SHOWN))  # fmt: skip
        rows.append(
            [
                f"{found.number + 1}",
                f"{found.usable:,}",
                f"{found.accepted:,}",
                f"{found.rejected:,}",
                _number(found.gvendi),
                _number(found.baseline),
                top,
            ]
        )
    return rows


def _number(value: Any) -> str:
    return "" if value is None else f"{float(value):,.1f}"


# ----------------------------------------------------------------------------- outputs
@dataclass(frozen=True)
class Output:
    """One generated output: kept, rejected by the filter, or never usable as a record."""

    accepted: bool
    reason: str
    round: int | None
    text: str
    cluster: int | None = None
    seeds: tuple[int, ...] = ()
    dataset: str | None = None  # the dataset holding it (None: it never became a record)
    position: int | None = None
    detail: str = ""  # more on the reason, when the job gave it

    @property
    def decision(self) -> str:
        return "Accepted" if self.accepted else "Rejected"


def read_outputs(
    location: str, name: str, all_name: str, result: dict[str, Any] | None, limit: int = 5000
) -> list[Output]:
    """The run's outputs: the records of the unfiltered stream (accepted or rejected by the
    filter; the new dataset when there is no stream), then those that never became records
    (``result["rejects"]``). Up to ``limit`` records are read."""
    with opened(location) as project:
        names = {d.name for d in project.datasets()}
        source = all_name if all_name in names else name if name in names else None
        outputs = [] if source is None else _record_outputs(project, source, limit)
    stored = read(result)
    for reject in stored.rejects if stored is not None else ():
        outputs.append(
            Output(
                accepted=False,
                reason=str(reject.get("reason") or "not usable"),
                round=_int(reject.get("round")),
                text=str(reject.get("text") or ""),
                detail=str(reject.get("detail") or ""),
            )
        )
    return outputs


def _record_outputs(project: Project, dataset: str, limit: int) -> list[Output]:
    outputs = []
    for record in project.records(dataset, 0, limit):
        original = record.original()
        made = original.get("synthesis") if isinstance(original, dict) else None
        made = made if isinstance(made, dict) else {}
        accepted = str(made.get("decision", "accepted")) == "accepted"
        outputs.append(
            Output(
                accepted=accepted,
                reason=str(made.get("reason") or ""),
                round=_int(made.get("round")),
                text=record.display_text(),
                cluster=_int(made.get("cluster")),
                seeds=tuple(int(s) for s in made.get("seeds") or () if _int(s) is not None),
                dataset=dataset,
                position=record.seq,
            )
        )
    return outputs


def _int(value: Any) -> int | None:
    try:
        return None if value is None or isinstance(value, bool) else int(value)
    except (TypeError, ValueError):
        return None


def output_details(output: Output) -> str:
    """Everything known about one output, to read in full."""
    lines = [f"{output.decision}" + (f": {output.reason}" if output.reason else "")]
    if output.detail:
        lines.append(output.detail[:1].upper() + output.detail[1:])
    facts = []
    if output.round is not None:
        facts.append(f"round {output.round + 1}")
    if output.cluster is not None:
        facts.append(f"cluster {output.cluster}")
    if output.seeds:
        facts.append("written from records " + ", ".join(f"#{s}" for s in output.seeds))
    if output.dataset is None:
        facts.append("not saved as a record")
    if facts:
        lines.append(" · ".join(facts))
    return "\n".join(lines) + "\n\n" + output.text
