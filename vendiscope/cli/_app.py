"""The ``vendiscope`` Typer application and the options its commands share.

This module only defines :data:`app`; the commands live in modules of their own (one per
command group) that import it and register on it. :mod:`vendiscope.cli._commands` imports
them all, so nothing here imports a command module and no import runs in a circle.
"""

from __future__ import annotations

from typing import Annotated

import typer

from vendiscope import __version__
from vendiscope.cli._options import flag
from vendiscope.cli._output import console, errors, fail
from vendiscope.core.neighbors.options import CoverageOptions

app = typer.Typer(
    name="vendiscope",
    help="Dataset curation and diversity auditing for language-model training data.",
    no_args_is_help=False,  # no command: open the desktop app (see _root)
    add_completion=False,
    rich_markup_mode="markdown",  # a docstring's paragraphs rewrap to the terminal
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)

ProjectArg = Annotated[str, typer.Argument(help="Project file (*.vscope) or database URL.")]
DatasetArg = Annotated[str, typer.Argument(help="Dataset name (see `vendiscope datasets`).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]
MinSimilarityOpt = Annotated[float, flag(CoverageOptions, "min_similarity")]
RadiusOpt = Annotated[
    float | None,
    typer.Option("--radius", hidden=True, help="Deprecated: the old name of --min-similarity."),
]


def min_similarity_of(min_similarity: float, radius: float | None) -> float:
    """``--min-similarity``, or the deprecated ``--radius`` (its old name: a cosine similarity,
    not a radius), which still works, with a note on stderr."""
    if radius is None:
        return min_similarity
    if min_similarity not in (CoverageOptions.min_similarity, radius):
        fail("give --min-similarity, or --radius (its old name), not both", "usage", 2)
    errors.print(
        "[yellow]note:[/] --radius is deprecated: it is a cosine similarity, not a radius; "
        f"use --min-similarity {radius:g}"
    )
    return radius


def _version(value: bool) -> None:
    if value:
        console.print(f"vendiscope {__version__}")
        raise typer.Exit()


@app.callback(invoke_without_command=True)
def _root(
    ctx: typer.Context,
    version: Annotated[
        bool | None,
        typer.Option("--version", callback=_version, is_eager=True, help="Show the version."),
    ] = None,
) -> None:
    """Dataset curation and diversity auditing for language-model training data.

    Without a command, opens the desktop application.
    """
    if ctx.invoked_subcommand is None:
        from vendiscope.gui import run

        raise typer.Exit(run())
