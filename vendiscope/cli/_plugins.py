"""``vendiscope plugins`` lists the plugins; ``vendiscope plugin ...`` writes a new plugin package
and shows a contribution's parameters."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from vendiscope.cli._app import JsonOpt, app
from vendiscope.cli._json_output import emit
from vendiscope.cli._output import console, reports_errors
from vendiscope.core.plugin_host.scaffold import SCAFFOLD_KINDS

plugin_app = typer.Typer(
    help="Write and inspect plugins (see docs/plugins.md).", no_args_is_help=True
)
app.add_typer(plugin_app, name="plugin")

KIND_HELP = f"{', '.join(SCAFFOLD_KINDS[:-1])} or {SCAFFOLD_KINDS[-1]}."


@app.command()
@reports_errors
def plugins(
    json: JsonOpt = False,
    check: Annotated[
        bool,
        typer.Option(help="Import every contribution to find the broken ones (slower)."),
    ] = True,
) -> None:
    """List installed plugins, their contributions, and any that failed to load."""
    from vendiscope.cli import _printing
    from vendiscope.core.plugin_host import default_registry

    registry = default_registry()
    if check:
        registry.verify()
    _printing.print_plugins(registry, as_json=json)


@plugin_app.command("new")
@reports_errors
def new_plugin(
    name: Annotated[str, typer.Argument(help="Plugin name, e.g. 'spread' or 'acme-metrics'.")],
    kind: Annotated[str, typer.Option("--kind", "-k", help=KIND_HELP)] = "metric",
    directory: Annotated[
        Path, typer.Option("--dir", help="Where to create the package folder.")
    ] = Path("."),
    force: Annotated[
        bool, typer.Option("--force", help="Write into an existing, non-empty folder.")
    ] = False,
    json: JsonOpt = False,
) -> None:
    """Create a ready plugin package: pyproject with the entry point, example, kit test, README."""
    from vendiscope.core.plugin_host.scaffold import scaffold_plugin

    made = scaffold_plugin(name, kind, directory, force=force)
    if json:
        emit(
            {
                "dist": made.dist,
                "package": made.package,
                "kind": kind,
                "contribution": made.contribution,
                "folder": made.folder,
                "files": [str(path.relative_to(made.folder)) for path in made.files],
                "next": f"cd {made.folder} && pip install -e '.[test]' && pytest",
            }
        )
        return
    console.print(f"created [bold]{made.dist}[/] in {made.folder}:")
    for path in made.files:
        console.print(f"  {path.relative_to(made.folder)}")
    console.print(
        f"next: [bold]cd {made.folder} && pip install -e '.[test]' && pytest[/], then "
        f"`vendiscope plugins` lists {kind} '{made.contribution}'"
    )


@plugin_app.command("info")
@reports_errors
def plugin_info(
    kind: Annotated[str, typer.Argument(help=KIND_HELP)],
    name: Annotated[str, typer.Argument(help="Contribution name (see `vendiscope plugins`).")],
    json: JsonOpt = False,
) -> None:
    """A contribution's plugin, state and parameters (what `--param NAME=VALUE` accepts)."""
    from rich.table import Table

    from vendiscope.core.base.errors import PluginError
    from vendiscope.core.plugin_host import default_registry

    registry = default_registry()
    contribution = registry.get(kind, name)
    try:
        specs = registry.describe(kind, name)
    except PluginError:
        specs = []
    status = registry.status(kind, name)
    if json:
        emit({**status.to_dict(), "params": [s.to_dict() for s in specs]})
        return
    console.print(
        f"[bold]{kind} '{name}'[/] — {contribution.label} (plugin {contribution.plugin}, "
        f"{contribution.target}): {status.state}"
    )
    if contribution.description:
        console.print(contribution.description)
    for failure in status.failures:
        console.print(f"[red]failed:[/] {failure.message}")
    if not specs:
        if status.ok:
            console.print("no parameters")
        return
    table = Table("parameter", "accepts", "default", "help")
    for spec in specs:
        default = "(required)" if spec.required else repr(spec.default)
        table.add_row(spec.name, spec.expects(), default, spec.help)
    console.print(table)
