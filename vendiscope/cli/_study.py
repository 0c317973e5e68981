"""``study``: does a diversity score of a training subset predict how a model trained on it does?"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from vendiscope.cli._app import JsonOpt, ProjectArg, app
from vendiscope.cli._json_output import emit
from vendiscope.cli._output import console, errors, fail, plugin_params, reports_errors
from vendiscope.cli._vector_sets import EmbeddingSetOpt, GradientSetOpt
from vendiscope.core.studies.options import (
    DEFAULT_METRICS,
    DEFAULT_SIZE,
    DEFAULT_TARGET_ROWS,
    DEFAULT_TRAINER,
    StudyOptions,
)

PLAN = "Plan"
TRAINER = "Trainer"


@app.command()
@reports_errors
def study(
    project: ProjectArg,
    pool: Annotated[str, typer.Argument(help="The dataset the training subsets come from.")],
    target: Annotated[
        str,
        typer.Option(help="A held-out dataset each trained model is scored on (required)."),
    ],
    size: Annotated[
        int, typer.Option(min=2, help="Rows per training subset.", rich_help_panel=PLAN)
    ] = DEFAULT_SIZE,
    subsets: Annotated[
        int,
        typer.Option(
            min=1,
            help="Subsets in all: random draws fill what the other kinds leave.",
            rich_help_panel=PLAN,
        ),
    ] = StudyOptions.random,
    duplicates: Annotated[
        int,
        typer.Option(
            min=0,
            help="Duplicate-heavy controls (few distinct rows, repeated): low diversity by "
            "construction.",
            rich_help_panel=PLAN,
        ),
    ] = StudyOptions.duplicates,
    sources: Annotated[
        int,
        typer.Option(
            min=0, help="Subsets drawn from only some of the pool's sources.", rich_help_panel=PLAN
        ),
    ] = StudyOptions.sources,
    selector: Annotated[
        list[str] | None,
        typer.Option(
            help="A selector's picks as a subset, repeatable (greedy-vendi, dpp, ...).",
            rich_help_panel=PLAN,
        ),
    ] = None,
    selector_draws: Annotated[
        int,
        typer.Option(min=1, help="Subsets per selector (one seed each).", rich_help_panel=PLAN),
    ] = StudyOptions.selector_draws,
    existing: Annotated[
        list[str] | None,
        typer.Option(help="One of the pool's own subsets, repeatable.", rich_help_panel=PLAN),
    ] = None,
    seeds: Annotated[int, typer.Option(min=1, help="Training runs per subset, one seed each.")] = (
        StudyOptions.seeds
    ),
    trainer: Annotated[
        str,
        typer.Option(help="Trainer plugin (see `vendiscope plugins`).", rich_help_panel=TRAINER),
    ] = DEFAULT_TRAINER,
    model: Annotated[
        str | None,
        typer.Option(
            help="causal-lm: a folder, .gguf or hub id (default: the bundled SmolLM2).",
            rich_help_panel=TRAINER,
        ),
    ] = None,
    param: Annotated[
        list[str] | None,
        typer.Option(
            "--param",
            "-p",
            help="Other trainer parameter NAME=VALUE, repeatable (method=lora, steps=60, "
            "blocks=4, device=cuda...).",
            rich_help_panel=TRAINER,
        ),
    ] = None,
    metric: Annotated[
        list[str] | None,
        typer.Option(
            help="What to compare, repeatable: g-vendi, embedding-vendi, ngram (default: all "
            "three) or a metric plugin (computed on the gradients).",
        ),
    ] = None,
    target_rows: Annotated[
        int | None,
        typer.Option(
            min=0,
            help="Score on the first this many target rows; every run scores each of them "
            f"(default: {DEFAULT_TARGET_ROWS}; 0: all).",
        ),
    ] = None,
    pilot: Annotated[
        int,
        typer.Option(min=2, help="Subsets trained with two seeds first, to measure seed noise."),
    ] = StudyOptions.pilot,
    force: Annotated[
        bool,
        typer.Option(
            "--force",
            help="Go on when the pilot finds seed noise too large; with --estimate, accept a "
            "plan of more than a day.",
        ),
    ] = False,
    estimate: Annotated[
        bool,
        typer.Option(
            "--estimate",
            help="Print the plan and its cost here, then stop (exit status 1 when it would "
            "take more than a day, unless --force).",
        ),
    ] = False,
    vectors: GradientSetOpt = None,
    embeddings: EmbeddingSetOpt = None,
    name: Annotated[
        str | None, typer.Option(help="The study's name (default study-N); resumes it.")
    ] = None,
    seed: Annotated[int, typer.Option(min=0, help="Seed of the plan and of the runs.")] = (
        StudyOptions.seed
    ),
    json: JsonOpt = False,
) -> None:
    """Train a small model on many subsets of POOL and find which diversity score predicts
    how well it does on the held-out TARGET.

    The study measures its cost first, trains a pilot to measure seed noise (and stops if
    the planned seeds cannot tell subsets apart, unless --force), then trains every
    (subset, seed) run, saving each. Run the same command again to resume, or with more
    --seeds or --subsets to grow a study.
    """
    from vendiscope.cli._progress import RichProgress
    from vendiscope.core.store.project import Project
    from vendiscope.core.studies.job import StudyRefused, estimate_study, run_study

    params = plugin_params("trainer", trainer, param)
    if model is not None:
        params["model"] = model
    sample: dict[str, Any] = {} if target_rows is None else {"target_rows": target_rows or None}
    chosen = _options(
        size=size, subsets=subsets, duplicates=duplicates, sources=sources,
        selectors=tuple(selector or ()), selector_draws=selector_draws,
        existing=tuple(existing or ()), seeds=seeds, trainer=trainer, trainer_params=params,
        metrics=tuple(metric or ()), pilot=pilot, force=force, **sample,
        vector_set=vectors, embedding_set=embeddings, name=name, seed=seed,
    )  # fmt: skip
    with Project.open(project) as opened:
        if estimate:
            found = estimate_study(opened, pool, target, chosen, progress=RichProgress())
            if json:
                emit(found.summary())
            else:
                console.print(f"plan: {found.plan}, {seeds} seeds each ({found.runs} runs)")
                console.print(f"cost: {found.cost.text} ({found.cost.measured})")
                for note in found.notes:
                    console.print(note)
            if found.cheaper is not None and not force:
                fail(_too_long(found.cheaper), "refused", 1)
            return
        try:
            report = run_study(
                opened, pool, target, chosen, progress=RichProgress(),
                on_run=None if json else _print_run, on_note=None if json else _print_note,
            )  # fmt: skip
        except StudyRefused as exc:
            fail(f"{exc}: run the same command with --force, or with more --seeds", "refused", 1)
    if json:
        emit(report.summary())
        return
    _print_report(report.summary())


def _options(*, subsets: int, **values: Any) -> Any:
    """The study's options, the random subsets filling what the other kinds leave."""
    others = (
        len(values["selectors"]) * values["selector_draws"]
        + values["sources"]
        + values["duplicates"]
        + len(values["existing"])
    )
    if others > subsets:
        fail(
            f"--subsets {subsets} is fewer than the {others} selector, source, duplicate and "
            "existing subsets asked for",
            "usage",
            2,
        )
    values["metrics"] = values["metrics"] or DEFAULT_METRICS
    try:
        return StudyOptions(random=subsets - others, **values)
    except ValueError as exc:
        fail(str(exc), "usage", 2)


def _too_long(cheaper: Any) -> str:
    """Why an estimate over a day refuses, and what would bring the study within one."""
    from vendiscope.core.studies.algorithms.feasibility import duration

    ways = []
    if cheaper.target_rows is not None:
        ways.append(
            f"score on fewer target rows (--target-rows {cheaper.target_rows} instead of "
            f"{cheaper.scored_rows:,}: every run scores each of them)"
        )
    if cheaper.runs_in_a_day:
        ways.append(
            f"plan fewer runs (about {cheaper.runs_in_a_day:,} of the {cheaper.runs:,} fit in a "
            "day: fewer --subsets or --seeds)"
        )
    else:
        ways.append(
            "shorten each run (not even one fits in a day: fewer steps, or a smaller --size)"
        )
    return (
        f"the study would take about {duration(cheaper.total_seconds)} here, more than a day; "
        f"to bring it within one, {' or '.join(ways)}. --force accepts it as it is"
    )


def _print_note(text: str) -> None:
    errors.print(text, soft_wrap=True)


def _print_run(entry: dict[str, Any]) -> None:
    """One line per finished training run, on stderr beside the progress."""
    accuracy = ""
    if entry.get("accuracy") is not None:
        accuracy = f", accuracy {entry['accuracy']:.1%}"
    errors.print(
        f"run {entry['run']}: {entry['subset']} seed {entry['seed'] + 1}: target loss "
        f"{entry['loss']:.4f} (improved {entry['improvement']:+.4f}){accuracy}, "
        f"{entry['seconds']:.0f} s",
        soft_wrap=True,
    )


def _print_report(summary: dict[str, Any]) -> None:
    resumed = summary["resumed_from_run"]
    console.print(
        f"study [bold]{summary['name']}[/] (run {summary['run_id']}): {summary['runs_done']} of "
        f"{summary['runs_total']} runs" + (f", resumed after run {resumed}" if resumed else "")
    )
    analysis = (summary.get("analysis") or {}).get("improvement")
    if not analysis:
        console.print("too few subsets have a finished run to read (3 are needed)")
        return
    _print_analysis(analysis, "Which score predicts the target loss improvement")
    ordinary = (summary.get("analysis_ordinary") or {}).get("improvement")
    if ordinary:
        _print_analysis(ordinary, "Without the duplicate-heavy controls")


def _print_analysis(analysis: dict[str, Any], title: str) -> None:
    from rich.table import Table

    table = Table(title=title)
    for column in ("metric", "Spearman", "95% interval", "p", "Kendall", "p "):
        table.add_column(column, justify="left" if column == "metric" else "right")
    for found in analysis["evidence"]:
        low, high = found["spearman_ci"]
        table.add_row(
            found["metric"],
            _number(found["spearman"]),
            f"[{_number(low)}, {_number(high)}]",
            _p(found["spearman_p"]),
            _number(found["kendall"]),
            _p(found["kendall_p"]),
        )
    console.print(table)
    console.print(analysis["verdict"], soft_wrap=True)


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _p(value: float | None) -> str:
    if value is None:
        return "-"
    return "< 0.001" if value < 0.001 else f"{value:.3f}"
