"""``vendiscope select``: choose a diverse subset under a budget, with its diversity curve."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from vendiscope.cli._app import DatasetArg, JsonOpt, ProjectArg, app
from vendiscope.cli._json_output import emit
from vendiscope.cli._output import console, plugin_params, reports_errors


@app.command()
@reports_errors
def select(
    project: ProjectArg,
    dataset: DatasetArg,
    k: Annotated[int, typer.Option("-k", "--k", help="Budget: how many records to choose.")],
    method: Annotated[
        str,
        typer.Option(
            help="Selector: greedy-vendi, prismatic, k-center, facility-location, dpp, "
            "random, or a plugin's."
        ),
    ] = "greedy-vendi",
    vectors: Annotated[
        str | None,
        typer.Option(help="Vector set (default: the latest gradients, else embeddings)."),
    ] = None,
    quality: Annotated[
        str | None,
        typer.Option(help="Weight by a numeric record field or a one-column score set."),
    ] = None,
    exclude: Annotated[
        list[str] | None,
        typer.Option(help="Leave out this subset's records (e.g. near-duplicates@0.95)."),
    ] = None,
    dedupe: Annotated[
        float | None,
        typer.Option(help="Drop near-duplicates at this cosine similarity first."),
    ] = None,
    seed: Annotated[int | None, typer.Option(help="Seed of the selector.")] = None,
    name: Annotated[
        str | None, typer.Option(help="Subset name (default: METHOD-K); refused if it exists.")
    ] = None,
    overwrite: Annotated[
        bool, typer.Option(help="Replace the subset of that name (or METHOD-K) if it exists.")
    ] = False,
    param: Annotated[
        list[str] | None,
        typer.Option("--param", "-p", help="Other selector parameter NAME=VALUE, repeatable."),
    ] = None,
    json: JsonOpt = False,
) -> None:
    """Choose the most diverse K records and save them as a subset, with their curve."""
    from vendiscope.cli._progress import RichProgress
    from vendiscope.core.selection.job import select_dataset
    from vendiscope.core.store.project import Project

    params = plugin_params("selector", method, param)
    if seed is not None:
        params["seed"] = seed
    with Project.open(project) as opened:
        report = select_dataset(
            opened, dataset, method=method, k=k, vector_set=vectors, params=params,
            quality=quality, exclude=exclude or (), dedupe=dedupe, name=name,
            overwrite=overwrite, progress=RichProgress(),
        )  # fmt: skip
    if json:
        emit({**report.summary(), "curve": report.curve})
        return
    _print_selection(report)


def _print_selection(report: object) -> None:
    summary = report.summary()  # type: ignore[attr-defined]
    curve = report.curve  # type: ignore[attr-defined]
    console.print(
        f"[bold]{summary['method']}[/] chose {summary['k']} of {summary['candidates']} "
        f"candidates in {summary['seconds']:.1f} s"
    )
    console.print(f"saved as subset [bold]{summary['subset']}[/]")
    console.print(f"computed on {summary['computed_on']}")
    if summary["excluded"]:
        console.print(f"left out {summary['excluded']} excluded records")
    objective = summary["objective"]
    console.print(f"objective ({objective['name']}): {objective['value']:.6g}")
    table = Table("budget", title="diversity vs budget (Vendi; random order for comparison)")
    for name in curve["vendi"]:
        table.add_column(name, justify="right")
        table.add_column("random", justify="right")
    for i, budget in enumerate(curve["budgets"]):
        cells = []
        for name, values in curve["vendi"].items():
            cells += [f"{values[i]:.2f}", f"{curve['random'][name][i]:.2f}"]
        table.add_row(str(budget), *cells)
    console.print(table)
