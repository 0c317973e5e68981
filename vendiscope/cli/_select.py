"""``vendiscope select``: choose a diverse subset under a budget, with its diversity curve."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from vendiscope.cli._app import DatasetArg, JsonOpt, ProjectArg, app
from vendiscope.cli._json_output import emit
from vendiscope.cli._options import flag
from vendiscope.cli._output import console, plugin_params, reports_errors
from vendiscope.cli._vector_sets import GradientFirstSetOpt
from vendiscope.core.selection.options import SelectOptions, selector_params

if TYPE_CHECKING:
    from vendiscope.core.selection.job import SelectionReport


@app.command()
@reports_errors
def select(
    project: ProjectArg,
    dataset: DatasetArg,
    k: Annotated[int, typer.Option("-k", "--k", help="Budget: how many records to choose.")],
    method: Annotated[str, flag(SelectOptions, "method")] = SelectOptions.method,
    vectors: GradientFirstSetOpt = None,
    quality: Annotated[
        str | None,
        typer.Option(help="Weight by a numeric record field or a one-column score set."),
    ] = None,
    exclude: Annotated[
        list[str] | None,
        typer.Option(help="Leave out this subset's records (e.g. near-duplicates@0.95)."),
    ] = None,
    drop: Annotated[
        list[str] | None,
        typer.Option(
            help="Leave out records a signal flags (pii, low-quality) or a filter matches "
            "('words < 5'); comma-separated or repeatable. See `vendiscope signals`."
        ),
    ] = None,
    dedupe: Annotated[float | None, flag(SelectOptions, "dedupe")] = SelectOptions.dedupe,
    seed: Annotated[int | None, flag(SelectOptions, "seed")] = SelectOptions.seed,
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

    params = selector_params(plugin_params("selector", method, param), seed)
    with Project.open(project) as opened:
        report = select_dataset(
            opened, dataset, method=method, k=k, vector_set=vectors, params=params,
            quality=quality, exclude=exclude or (), drop=_split(drop), dedupe=dedupe, name=name,
            overwrite=overwrite, progress=RichProgress(),
        )  # fmt: skip
    if json:
        emit({**report.summary(), "curve": report.curve})
        return
    _print_selection(report)


def _split(items: list[str] | None) -> list[str]:
    """``--drop pii,low-quality --drop 'words < 5'`` as one list (commas split flags only)."""
    out = []
    for item in items or []:
        out.extend(item.split(",") if not any(op in item for op in "<>=!") else [item])
    return [part.strip() for part in out if part.strip()]


def _print_selection(report: SelectionReport) -> None:
    result = report.result
    curve = result.curve
    console.print(
        f"[bold]{result.method}[/] chose {result.k} of {result.n_candidates} "
        f"candidates in {result.seconds:.1f} s"
    )
    console.print(f"saved as subset [bold]{result.subset}[/]")
    console.print(f"computed on {result.computed_on}")
    if result.excluded:
        console.print(f"left out {result.excluded} excluded records")
    console.print(f"objective ({result.objective_name}): {result.objective:.6g}")
    table = Table("budget", title="diversity vs budget (Vendi; random order for comparison)")
    for name in curve.vendi:
        table.add_column(name, justify="right")
        table.add_column("random", justify="right")
    for i, budget in enumerate(curve.budgets):
        cells = []
        for name, values in curve.vendi.items():
            cells += [f"{values[i]:.2f}", f"{curve.random[name][i]:.2f}"]
        table.add_row(str(budget), *cells)
    console.print(table)
