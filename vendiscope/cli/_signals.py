"""Curation signals: ``signals`` (compute per-record values) and ``clean`` (a subset of the
records that pass)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from vendiscope.cli import _judge
from vendiscope.cli._app import DatasetArg, JsonOpt, ProjectArg, app
from vendiscope.cli._json_output import emit
from vendiscope.cli._options import flag
from vendiscope.cli._output import console, fail, plugin_params, reports_errors, split_params
from vendiscope.core.signals.options import SignalOptions


@app.command()
@reports_errors
def signals(
    project: ProjectArg,
    dataset: DatasetArg,
    signal: Annotated[
        list[str] | None,
        typer.Option(
            "--signal",
            "-s",
            help="Signal plugin to compute, repeatable (default: every one that needs no "
            "target and loads no model: not contamination or proxy-loss; `vendiscope plugins`).",
        ),
    ] = None,
    target: Annotated[
        str | None,
        typer.Option(help="The dataset a signal compares with (contamination: the benchmark)."),
    ] = None,
    param: Annotated[
        list[str] | None,
        typer.Option("--param", "-p", help="Signal parameter NAME=VALUE (one --signal only)."),
    ] = None,
    chunk_rows: Annotated[int | None, flag(SignalOptions, "chunk_rows")] = SignalOptions.chunk_rows,
    replace: Annotated[bool, flag(SignalOptions, "replace", "--replace")] = SignalOptions.replace,
    estimate: Annotated[
        bool,
        typer.Option(
            "--estimate",
            help="llm-judge: print the tokens and time judging would take (one real "
            "judgement); write nothing.",
        ),
    ] = False,
    write_rubric: Annotated[
        Path | None,
        typer.Option(
            "--write-rubric", help="llm-judge: write the built-in rubric to this file and stop."
        ),
    ] = None,
    json: JsonOpt = False,
) -> None:
    """Compute per-record curation signals (quality heuristics, PII, language, ...); an
    interrupted run resumes where it stopped when the same command runs again.

    llm-judge rates each record 1-5 with a reason: -s llm-judge -p generator=openai
    -p "generator_params=base_url=URL, model=NAME"; it prints an estimate first."""
    from vendiscope.cli._progress import RichProgress
    from vendiscope.core.plugin_host import default_registry
    from vendiscope.core.signals.job import compute_signal
    from vendiscope.core.signals.reading import signal_columns
    from vendiscope.core.store.project import Project
    from vendiscope.core.vectors.signal_sets import LEXICAL

    if write_rubric is not None:
        _judge.write_rubric(write_rubric)
        return
    registry = default_registry()
    names = list(signal or [])
    if estimate and names != [_judge.JUDGE]:
        fail(f"--estimate goes with --signal {_judge.JUDGE} alone", "usage", 2)
    if not names:  # the built-in and installed signals, those comparing with a target if given
        names = [
            c.name
            for c in registry.contributions("signal")
            if not c.meta.get("on_demand")
            and (target is not None or not _needs_target(registry.load("signal", c.name)))
        ]
        names += [LEXICAL] if target is None else []
    if not names:
        from vendiscope.core.base.errors import ProjectError

        raise ProjectError("no signal plugins are installed (see `vendiscope plugins`)")
    if param and len(names) != 1:
        from vendiscope.core.base.errors import ProjectError

        raise ProjectError("--param goes with one --signal (each signal has its own parameters)")
    if names[0] == LEXICAL:  # no plugin: its options class types the values
        params: dict[str, object] = dict(split_params(param)) if param else {}
    else:
        params = plugin_params("signal", names[0], param) if param else {}
    done = []
    judged: dict[str, object] = {}
    with Project.open(project) as opened:
        for name in names:
            if name == _judge.JUDGE:  # the estimate first: tokens, time, one real judgement
                found = _judge.estimate(opened, dataset, params, quiet=json)
                if estimate:
                    if json:
                        emit({"dataset": dataset, "estimate": found.summary()})
                    return
                judged["estimate"] = found.summary()
            result = compute_signal(
                opened, dataset, name, params=params, target=target, chunk_rows=chunk_rows,
                replace=replace, registry=registry, progress=RichProgress(),
            )  # fmt: skip
            done.append(result)
            if name == _judge.JUDGE:
                judged["unreadable"] = _judge.unreadable(opened, dataset)
        columns = signal_columns(opened, dataset)
    rows = []
    for result in done:
        info = result.vector_set
        for key, values in columns.items():
            if values.vector_set == info.name and "." in key:
                rows.append(_column_row(key, values))
    if json:
        document = {"dataset": dataset, "signals": [r.vector_set.name for r in done]}
        emit({**document, "columns": rows, **({_judge.JUDGE: judged} if judged else {})})
        return
    for result in done:
        name = f"[bold]{result.vector_set.name}[/] of {dataset}"
        if result.already_complete:
            console.print(f"{name}: {result.vector_set.n_rows:,} records, computed already")
            continue
        resumed = f", resumed at row {result.resumed_from:,}" if result.resumed_from else ""
        console.print(
            f"{name}: {result.vector_set.n_rows:,} records in {result.seconds:.1f} s{resumed}"
        )
    for row in rows:
        console.print(f"  {row['column']}: {row['summary']}", soft_wrap=True)
    if judged:
        _judge.print_unreadable(judged["unreadable"])  # type: ignore[arg-type]


def _needs_target(cls: type) -> bool:
    from vendiscope.core.plugin_host.interfaces import Signal

    return issubclass(cls, Signal) and cls.needs_target


def _column_row(key: str, values: object) -> dict[str, object]:
    """How one column reads in a table: flagged counts, the commonest labels, the range."""
    import numpy as np

    from vendiscope.core.signals.reading import SignalValues

    assert isinstance(values, SignalValues)
    data = values.values
    if values.kind == "flag":
        count = int((data > 0).sum())
        summary = f"{count:,} flagged ({count / max(len(data), 1):.1%})"
    elif values.kind == "label":
        labels = [label for label in values.labels() if label is not None]
        common = {label: labels.count(label) for label in sorted(set(labels))}
        top = sorted(common.items(), key=lambda item: -item[1])[:5]
        summary = ", ".join(f"{label} {count:,}" for label, count in top) or "no labels"
    else:
        finite = data[~np.isnan(data)]
        summary = (
            f"median {float(np.median(finite)):,.3g}, 5-95% {float(np.percentile(finite, 5)):,.3g}"
            f" to {float(np.percentile(finite, 95)):,.3g}"
            if finite.size
            else "not applicable to any record"
        )
    return {"column": key, "kind": values.kind, "summary": summary}


@app.command()
@reports_errors
def clean(
    project: ProjectArg,
    dataset: DatasetArg,
    drop: Annotated[
        list[str] | None,
        typer.Option(
            help="Leave out records with this flag raised (pii, contaminated, ...); "
            "comma-separated or repeatable."
        ),
    ] = None,
    keep: Annotated[
        list[str] | None,
        typer.Option(
            help="Keep only records matching this filter ('words >= 5', 'language == en'); "
            "repeatable."
        ),
    ] = None,
    name: Annotated[
        str | None, typer.Option(help="The subset of the records kept (required unless --dry-run).")
    ] = None,
    overwrite: Annotated[bool, typer.Option(help="Replace a subset of that name.")] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Say what each rule would remove; save nothing.")
    ] = False,
    json: JsonOpt = False,
) -> None:
    """Save the records that pass every rule as a subset (records are never deleted), and say
    what each rule removed."""
    from vendiscope.core.signals.clean import clean_dataset
    from vendiscope.core.store.project import Project

    flags = [part.strip() for item in drop or [] for part in item.split(",") if part.strip()]
    with Project.open(project) as opened:
        report = clean_dataset(
            opened, dataset, drop=flags, keep=list(keep or []), name=name, overwrite=overwrite,
            dry_run=dry_run,
        )  # fmt: skip
    if json:
        emit(report.summary())
        return
    for rule in report.rules:
        console.print(
            f"{rule.rule}: {rule.matched:,} records match, {rule.removed:,} removed by it",
            markup=False,
        )
    where = f" as subset [bold]{report.subset.name}[/]" if report.subset is not None else ""
    verb = "would keep" if dry_run else "kept"
    console.print(f"{verb} {report.kept:,} of {report.records:,} records of {dataset}{where}")
