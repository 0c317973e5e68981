"""``synthesize``: generate new examples that fill the dataset's gaps (Prismatic Synthesis)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from vendiscope.cli._app import DatasetArg, JsonOpt, ProjectArg, app
from vendiscope.cli._json_output import emit
from vendiscope.cli._output import console, errors, fail, plugin_params, reports_errors
from vendiscope.cli._vector_sets import GradientSetOpt
from vendiscope.core.base.text import shown_path

GENERATOR_OPTIONS = "Generator"


@app.command()
@reports_errors
def synthesize(
    project: ProjectArg,
    dataset: DatasetArg,
    n: Annotated[
        int, typer.Option("-n", "--budget", min=1, help="Accepted examples to make.")
    ] = 200,
    generator: Annotated[
        str,
        typer.Option(
            help="Generator plugin: transformers (a local model) or openai (a server).",
            rich_help_panel=GENERATOR_OPTIONS,
        ),
    ] = "transformers",
    model: Annotated[
        str | None,
        typer.Option(
            help="transformers: a folder, .gguf or hub id (default: the bundled "
            "SmolLM2); openai: the model name the server knows.",
            rich_help_panel=GENERATOR_OPTIONS,
        ),
    ] = None,
    base_url: Annotated[
        str | None,
        typer.Option(
            "--base-url",
            help="openai: the server, e.g. http://127.0.0.1:8000/v1.",
            rich_help_panel=GENERATOR_OPTIONS,
        ),
    ] = None,
    api_key_env: Annotated[
        str | None,
        typer.Option(
            "--api-key-env",
            help="openai: environment variable holding the API key "
            "(default OPENAI_API_KEY; never stored).",
            rich_help_panel=GENERATOR_OPTIONS,
        ),
    ] = None,
    timeout: Annotated[
        float | None,
        typer.Option(
            "--timeout",
            min=0.001,
            help="openai: seconds one request may take, its whole reply included (default: "
            "measured, scaled with max_new_tokens).",
            rich_help_panel=GENERATOR_OPTIONS,
        ),
    ] = None,
    concurrency: Annotated[
        int | None,
        typer.Option(
            "--concurrency",
            min=1,
            max=256,
            help="openai: requests in flight at once (default: measured; 1 for a server "
            "that serves one at a time).",
            rich_help_panel=GENERATOR_OPTIONS,
        ),
    ] = None,
    check: Annotated[
        bool,
        typer.Option(
            "--check",
            help="Make one real generation with the template, show whether it parses and "
            "how long -n would take; write nothing.",
            rich_help_panel=GENERATOR_OPTIONS,
        ),
    ] = False,
    param: Annotated[
        list[str] | None,
        typer.Option(
            "--param",
            "-p",
            help="Other generator parameter NAME=VALUE, repeatable "
            "(temperature, top_p, max_new_tokens, structured...).",
            rich_help_panel=GENERATOR_OPTIONS,
        ),
    ] = None,
    filter: Annotated[
        str,
        typer.Option(
            help="gain (keep what raises G-Vendi most; the default), sparse-cluster "
            "(the paper's rule) or none (the baseline)."
        ),
    ] = "gain",
    threshold: Annotated[
        float | None,
        typer.Option(
            help="gain filter: the least G-Vendi gain kept (default: the running "
            "median of the gains so far)."
        ),
    ] = None,
    rounds: Annotated[int | None, typer.Option(min=1, help="Stop after this many rounds.")] = None,
    target: Annotated[
        float | None, typer.Option(help="Stop once G-Vendi of pool + accepted reaches this.")
    ] = None,
    seeds: Annotated[
        str, typer.Option(help="Seed examples: sparse (from one sparse cluster) or uniform.")
    ] = "sparse",
    prompts: Annotated[int, typer.Option(min=1, help="Prompts per round.")] = 8,
    examples: Annotated[int, typer.Option(min=1, help="Seed examples per prompt.")] = 3,
    patience: Annotated[
        int, typer.Option(min=1, help="Stop after this many rounds in a row with no usable output.")
    ] = 3,
    template: Annotated[
        str | None,
        typer.Option(help="A template family (instruction, qa, math, nli) or file."),
    ] = None,
    write_template: Annotated[
        Path | None,
        typer.Option("--write-template", help="Write the template to this file and stop."),
    ] = None,
    name: Annotated[
        str | None, typer.Option(help="New dataset (default synth-N); resumes it if it exists.")
    ] = None,
    vectors: GradientSetOpt = None,
    seed: Annotated[int, typer.Option(help="Seed of the seeds, clustering and sampling.")] = 0,
    json: JsonOpt = False,
) -> None:
    """Generate examples that fill the dataset's sparse gradient clusters (Prismatic Synthesis).

    Rounds of: prompt the generator with seed examples, parse, drop duplicates, compute
    gradients, keep what the filter accepts. Each round is saved; run the same command again
    to resume a stopped run. The accepted examples become dataset NAME, every valid generation
    NAME-all (the unfiltered baseline). Try the generator first with --check.
    """
    from vendiscope.cli._progress import RichProgress
    from vendiscope.core.base.jobs import Cancelled
    from vendiscope.core.store.project import Project
    from vendiscope.core.synthesis.job import synthesize as run_synthesis
    from vendiscope.core.synthesis.options import SynthesisOptions

    params = plugin_params("generator", generator, param)
    for option, value in (("--timeout", timeout), ("--concurrency", concurrency)):
        if value is not None and generator != "openai":
            fail(f"{option} is an option of the openai generator, not '{generator}'", "usage", 2)
    given: dict[str, object] = {
        "model": model, "base_url": base_url, "api_key_env": api_key_env,
        "timeout": timeout, "concurrency": concurrency,
    }  # fmt: skip
    params.update({key: value for key, value in given.items() if value is not None})
    try:
        options = SynthesisOptions(
            generator=generator, generator_params=params, budget=n, rounds=rounds, target=target,
            filter=filter, threshold=threshold, seeds=seeds, examples_per_prompt=examples,
            prompts_per_round=prompts, patience=patience, template=template, name=name,
            vector_set=vectors, seed=seed,
        )  # fmt: skip
    except ValueError as exc:
        fail(str(exc), "usage", 2)
    with Project.open(project) as opened:
        if write_template is not None:
            _write_template(opened, dataset, options, write_template)
            return
        if check:
            _check(opened, dataset, options, json)
            return
        try:
            report = run_synthesis(
                opened, dataset, options, progress=RichProgress(),
                on_round=None if json else _print_round, notice=_notice,
            )  # fmt: skip
        except (KeyboardInterrupt, Cancelled) as stopped:
            word = "interrupted" if isinstance(stopped, KeyboardInterrupt) else "cancelled"
            fail(f"{word}; {STOPPED}", word, 130, markup=f"\n[yellow]{word}[/]; {STOPPED}")
    if json:
        emit({**report.summary(), "rounds": report.rounds})
        return
    summary = report.summary()
    resumed = f" (resumed at round {report.resumed_from + 1})" if report.resumed_from else ""
    console.print(
        f"[bold]{summary['accepted']}[/] accepted examples in dataset [bold]{report.name}[/], "
        f"{summary['generated']} valid generations in {report.all_name}; stopped: "
        f"{_stopped(report.stopped)}{resumed}"
    )
    baseline = "" if report.baseline is None else f", {report.baseline:.2f} with as many "
    baseline += "unfiltered generations" if report.baseline is not None else ""
    console.print(
        f"G-Vendi of {dataset}: {report.pool_gvendi:.2f} alone, {report.gvendi:.2f} with the "
        f"accepted examples{baseline}"
    )


STOPPED = (
    "the synthesis run was closed as cancelled; the rounds committed before are kept (run the "
    "same command again to resume it, or give another --name to start afresh)"
)


def _notice(line: str) -> None:
    errors.print(f"[yellow]note:[/] {escape(line)}", soft_wrap=True)


def _print_round(entry: dict[str, Any]) -> None:
    """One line per committed round, on stderr beside the progress (stdout stays the result)."""
    reasons = ", ".join(f"{reason} {count}" for reason, count in entry["reasons"].items())
    baseline = entry.get("baseline")
    versus = "" if baseline is None else f" vs {baseline:.2f} unfiltered"
    seconds, tokens = entry.get("seconds") or 0, entry.get("tokens") or 0
    pace = f"; {seconds / max(entry['generated'], 1):.1f} s per example"
    pace += f", {tokens / seconds:.1f} tokens/s" if tokens and seconds else ""
    if entry["round"] == 0 and entry.get("structured"):
        errors.print(f"structured output: {escape(entry['structured'])}", soft_wrap=True)
    errors.print(
        f"round {entry['round'] + 1}: {entry['generated']} generated, {entry['accepted']} "
        f"accepted (total {entry['accepted_total']}), G-Vendi {entry['gvendi']:.2f}{versus}"
        + (f"; rejected: {escape(reasons)}" if reasons else "")
        + pace,
        soft_wrap=True,
    )


def _check(project: Any, dataset: str, options: Any, json: bool) -> None:
    """``--check``: one real generation, parsed, timed; exit 1 when it does not parse."""
    from vendiscope.cli._progress import RichProgress
    from vendiscope.core.synthesis.probe import probe

    report = probe(project, dataset, options, progress=RichProgress())
    if json:
        emit(report.summary())
    else:
        console.print(f"generator: {escape(report.check)}", soft_wrap=True)
        console.print(f"structured output: {escape(report.structured or 'not asked for')}")
        pace = f"{report.seconds:.1f} s for one example"
        if report.tokens_per_s is not None:
            pace += f" ({report.tokens} tokens, {report.tokens_per_s:.1f} tokens/s)"
        console.print(pace)
        if report.ok:
            console.print("[green]parsed[/]: " + escape(_shown(report.values)), soft_wrap=True)
        else:
            detail = f": {report.detail}" if report.detail else ""
            why = report.error or f"{report.reason}{detail}"
            console.print(f"[red]not usable[/]: {escape(why)}", soft_wrap=True)
            if report.text:
                console.print(f"the generator wrote: {escape(repr(report.text))}", soft_wrap=True)
            console.print(f"advice: {escape(report.advice())}", soft_wrap=True)
        console.print(
            f"-n {report.budget}: at least {_duration(report.estimate_s)} at this pace "
            "(one generation at a time; not every generation is kept)"
        )
    if not report.ok:
        raise typer.Exit(1)


def _shown(values: Any) -> str:
    import json as json_module

    return json_module.dumps(values, ensure_ascii=False)


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} minutes"
    return f"{seconds / 3600:.1f} hours"


def _stopped(reason: str) -> str:
    return {
        "budget": "the budget was reached",
        "rounds": "the last round was run",
        "target": "the G-Vendi target was reached",
    }.get(reason, reason)


def _write_template(project: Any, dataset: str, options: Any, path: Path) -> None:
    from vendiscope.core.base.atomic import atomic_path, check_destination
    from vendiscope.core.synthesis.algorithms.templates import FAMILIES, family_for
    from vendiscope.core.synthesis.records import Keys

    keys = Keys.of(project.dataset(dataset).field_mapping)
    family = options.template or family_for(keys.names, keys.roles)
    if family not in FAMILIES:
        raise typer.BadParameter(f"--template {family!r} is not a family ({', '.join(FAMILIES)})")
    check_destination(path, force=True)
    with atomic_path(path) as temporary:
        temporary.write_text(FAMILIES[family], encoding="utf-8")
    shown = shown_path(path)
    console.print(f"wrote the '{family}' template to {shown}; edit it and pass --template {shown}")
