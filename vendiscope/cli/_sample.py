"""``vendiscope sample``: a stratified random sample of a dataset, as a new dataset.

G-Vendi costs about a second per record on a CPU and scores are compared at equal n, so a
large dataset is scored by a sample of it (:mod:`vendiscope.core.io.sampling`).
"""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from vendiscope.cli._app import DatasetArg, JsonOpt, ProjectArg, app
from vendiscope.cli._json_output import command_line, emit
from vendiscope.cli._output import (
    all_option,
    console,
    count_range,
    cut_rows,
    print_hidden,
    reports_errors,
    shorten,
)


@app.command()
@reports_errors
def sample(
    project: ProjectArg,
    dataset: DatasetArg,
    rows: Annotated[int, typer.Option("--rows", "-n", help="Records in the sample.")],
    name: Annotated[
        str | None, typer.Option(help="The new dataset (default: DATASET-sample-ROWS).")
    ] = None,
    seed: Annotated[int, typer.Option(min=0, help="Seed of the random draw.")] = 0,
    all_: Annotated[bool, all_option("source")] = False,
    json: JsonOpt = False,
) -> None:
    """Write a stratified random sample of a dataset as a new dataset, to score a large
    dataset (or compare two) at an affordable, equal n.

    Each source keeps its share of the rows (at least one each); the rows taken are also a
    subset of DATASET named like the sample.
    """
    from vendiscope.cli._progress import RichProgress
    from vendiscope.core.io.sampling import sample_dataset
    from vendiscope.core.store.project import Project

    with Project.open(project) as opened:
        result = sample_dataset(
            opened, dataset, rows, name=name, seed=seed, progress=RichProgress()
        )
    new = result.dataset.name
    commands = [
        command_line("vendiscope", "gradients", project, new),
        command_line("vendiscope", "score", project, new),
    ]
    if json:
        emit(_document(result, commands))
        return
    console.print(
        f"dataset [bold]{escape(new)}[/]: a stratified sample of {result.rows:,} of "
        f"{escape(dataset)}'s {result.parent_rows:,} rows (by {result.by}, seed {result.seed}) "
        f"in {result.seconds:.1f} s; the rows taken are subset {escape(result.subset)} of "
        f"{escape(dataset)}"
    )
    _print_strata(result, show_all=all_)
    console.print(f"next: `{commands[0]}` then `{commands[1]}`", markup=False)


def _print_strata(result: Any, *, show_all: bool) -> None:
    shown, hidden = cut_rows(result.strata, show_all)
    title = f"the {len(shown)} largest of {len(result.strata)} sources" if hidden else None
    table = Table(
        "source", "in sample", "in dataset", "share", title=title,
        caption="share: of the source's rows, in the sample",
    )  # fmt: skip
    for column in table.columns[1:]:
        column.no_wrap = True
        column.justify = "right"
    for stratum in shown:
        table.add_row(
            shorten(stratum.name, 40),
            f"{stratum.sampled:,}",
            f"{stratum.rows:,}",
            f"{stratum.sampled / stratum.rows:.1%}",
        )
    console.print(table)
    print_hidden(
        len(hidden), "source", "sources", count_range([s.rows for s in hidden]) if hidden else ""
    )


def _document(result: Any, commands: list[str]) -> dict[str, Any]:
    return {
        "dataset": result.dataset.name,
        "parent": result.parent,
        "rows": result.rows,
        "parent_rows": result.parent_rows,
        "by": result.by,
        "seed": result.seed,
        "strata": [
            {"source": s.name, "sample": s.sampled, "dataset": s.rows} for s in result.strata
        ],
        "subset": result.subset,
        "positions": result.positions,
        "run_id": result.run_id,
        "seconds": round(result.seconds, 3),
        "next": commands[0],
        "then": commands[1],
    }
