"""Scaling out: engine options shared by the vector commands, and ``migrate-project``."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from vendiscope.cli._app import JsonOpt, app
from vendiscope.cli._json_output import emit
from vendiscope.cli._output import console, reports_errors

EngineOpt = Annotated[
    str | None,
    typer.Option(
        "--engine",
        help="Where chunks are computed: local (this process) or ray (Ray actors on a cluster). "
        "Default: $VENDISCOPE_ENGINE, else local.",
    ),
]
AddressOpt = Annotated[
    str | None,
    typer.Option(
        "--address",
        help="Ray cluster to join (ray://HOST:10001, HOST:6379, auto). Default: "
        "$VENDISCOPE_RAY_ADDRESS, else a running local cluster, else a new local one.",
    ),
]
WorkersOpt = Annotated[
    int | None,
    typer.Option("--workers", min=1, help="Ray actors (default: one per GPU, else per CPU)."),
]
GpusOpt = Annotated[
    float | None,
    typer.Option(
        "--gpus-per-worker", min=0, help="GPUs each Ray actor reserves (default: 1 if any, 0.5 ok)."
    ),
]


def engine_choice(
    engine: str | None, address: str | None, workers: int | None, gpus: float | None
) -> Any:
    """The engine the options name (an error names an option that does not fit)."""
    from vendiscope.core.vectors.engines import get_engine

    return get_engine(engine, address=address, workers=workers, gpus_per_worker=gpus)


@app.command("migrate-project")
@reports_errors
def migrate_project(
    source: Annotated[str, typer.Argument(help="The project to copy (*.vscope or a URL).")],
    target: Annotated[
        str,
        typer.Argument(help="Where to: a database URL (postgresql://...) or a new *.vscope file."),
    ],
    force: Annotated[
        bool, typer.Option("--force", help="Replace the target's contents if it has any.")
    ] = False,
    json: JsonOpt = False,
) -> None:
    """Copy a project to PostgreSQL (or back to a file), verified by row counts and hashes."""
    from rich.table import Table

    from vendiscope.cli._progress import RichProgress
    from vendiscope.core.store.transfer import copy_project

    report = copy_project(source, target, force=force, progress=RichProgress())
    if json:
        emit({**report.to_dict(), "rows": report.rows})
        return
    table = Table("table", "rows", "content hash (blake2b)", title="copied and verified")
    for item in report.tables:
        table.add_row(item.table, f"{item.rows:,}", item.digest)
    console.print(table)
    replaced = " (its previous contents replaced)" if report.replaced else ""
    console.print(
        f"copied {report.rows:,} rows to [bold]{report.target}[/]{replaced} in "
        f"{report.seconds:.1f} s; every table's count and hash match the source"
    )
