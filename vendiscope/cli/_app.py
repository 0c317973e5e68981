"""Command definitions. Each command is a thin wrapper over a core function."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from vendiscope import __version__
from vendiscope.cli._output import all_option, console, plugin_params, reports_errors

app = typer.Typer(
    name="vendiscope",
    help="Dataset curation and diversity auditing for language-model training data.",
    no_args_is_help=False,  # no command: open the desktop app (see _root)
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)

ProjectArg = Annotated[str, typer.Argument(help="Project file (*.vscope) or database URL.")]
DatasetArg = Annotated[str, typer.Argument(help="Dataset name (see `vendiscope datasets`).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]


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


@app.command()
@reports_errors
def new(project: ProjectArg) -> None:
    """Create a new, empty project file."""
    from vendiscope.core.store.project import Project

    with Project.create(project) as opened:
        console.print(f"created project [bold]{opened.location}[/]")


@app.command("import")
@reports_errors
def import_(
    project: ProjectArg,
    path: Annotated[Path, typer.Argument(help="A data file or folder.")],
    name: Annotated[str | None, typer.Option(help="Dataset name (default: file name).")] = None,
    format: Annotated[
        str | None,
        typer.Option("--format", "-f", help="Importer (see `vendiscope plugins`); default: guess."),
    ] = None,
    map_: Annotated[
        list[str] | None,
        typer.Option(
            "--map",
            "-m",
            help="ROLE=COLUMN, repeatable; roles: prompt response text "
            "label source id. Overrides the detected mapping.",
        ),
    ] = None,
    param: Annotated[
        list[str] | None,
        typer.Option("--param", "-p", help="Importer parameter NAME=VALUE, repeatable."),
    ] = None,
    skip_bad: Annotated[
        bool, typer.Option("--skip-bad", help="Import good rows; write bad ones to a report.")
    ] = False,
    bad_report: Annotated[
        Path | None,
        typer.Option(help="Where --skip-bad writes bad rows (default: beside the input)."),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Show the detected format and mapping only.")
    ] = False,
    create: Annotated[bool, typer.Option(help="Create the project if it does not exist.")] = True,
) -> None:
    """Import a dataset (JSONL, JSON, CSV/TSV, Parquet, HF datasets folder, .txt folder)."""
    from vendiscope.cli import _views
    from vendiscope.cli._progress import RichProgress
    from vendiscope.core.io.importing import import_dataset, preview
    from vendiscope.core.store.project import Project

    params = {}
    if param:
        from vendiscope.core.plugins import default_registry

        importer = format or default_registry().importer_for(path).name
        params = plugin_params("importer", importer, param)
    if dry_run:
        _views.print_preview(preview(path, format=format, importer_params=params), map_ or [])
        return
    with Project.open(project, create=create) as opened:
        result = import_dataset(
            opened,
            path,
            name=name,
            format=format,
            overrides=map_ or None,
            importer_params=params,
            skip_bad=skip_bad,
            bad_report=bad_report,
            progress=RichProgress(),
        )
        _views.print_import(result)


@app.command()
@reports_errors
def datasets(project: ProjectArg, json: JsonOpt = False) -> None:
    """List the datasets of a project."""
    from vendiscope.cli import _views
    from vendiscope.core.store.project import Project

    with Project.open(project) as opened:
        _views.print_datasets(opened.datasets(), as_json=json)


@app.command()
@reports_errors
def show(
    project: ProjectArg,
    dataset: DatasetArg,
    offset: Annotated[int, typer.Option(min=0, help="First position to show.")] = 0,
    limit: Annotated[int, typer.Option(min=1, help="How many records.")] = 5,
    raw: Annotated[bool, typer.Option(help="Show the original rows.")] = False,
    json: JsonOpt = False,
) -> None:
    """Show a few records of a dataset."""
    from vendiscope.cli import _views
    from vendiscope.core.store.project import Project

    with Project.open(project) as opened:
        opened.dataset(dataset)
        _views.print_records(opened.records(dataset, offset, limit), raw=raw, as_json=json)


@app.command()
@reports_errors
def stats(
    project: ProjectArg,
    dataset: DatasetArg,
    all_: Annotated[bool, all_option("source")] = False,
    json: JsonOpt = False,
) -> None:
    """Counts for a dataset: rows, exact duplicates, fields filled, sources, lengths."""
    from vendiscope.cli import _views
    from vendiscope.core.store.project import Project

    with Project.open(project) as opened:
        _views.print_stats(opened.stats(dataset), as_json=json, show_all=all_)


@app.command()
@reports_errors
def export(
    project: ProjectArg,
    dataset: DatasetArg,
    destination: Annotated[Path, typer.Argument(help="Output file or folder.")],
    subset: Annotated[str | None, typer.Option(help="Export only this subset.")] = None,
    format: Annotated[
        str | None,
        typer.Option("--format", "-f", help="jsonl, csv, parquet, hf-disk; default: from suffix."),
    ] = None,
    param: Annotated[
        list[str] | None,
        typer.Option("--param", "-p", help="Exporter parameter NAME=VALUE, repeatable."),
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing output.")] = False,
) -> None:
    """Export a dataset or subset in its original schema, with a manifest beside it."""
    from vendiscope.cli._progress import RichProgress
    from vendiscope.core.io.exporting import choose_exporter, export_dataset
    from vendiscope.core.plugins import default_registry
    from vendiscope.core.store.project import Project

    params = {}
    if param:
        exporter = choose_exporter(destination, format, default_registry())
        params = plugin_params("exporter", exporter, param)
    with Project.open(project) as opened:
        result = export_dataset(
            opened,
            dataset,
            destination,
            subset=subset,
            format=format,
            exporter_params=params,
            force=force,
            progress=RichProgress(),
        )
    console.print(
        f"exported [bold]{result.rows}[/] rows to {result.destination} ({result.exporter}); "
        f"manifest: {result.manifest}"
    )


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
    from vendiscope.cli import _views
    from vendiscope.core.plugins import default_registry

    registry = default_registry()
    if check:
        registry.verify()
    _views.print_plugins(registry, as_json=json)


@app.command()
@reports_errors
def doctor(
    project: Annotated[str | None, typer.Argument(help="Also check this project file.")] = None,
    json: JsonOpt = False,
) -> None:
    """Versions, GPU, bundled models and plugins; with PROJECT, whether that file is sound.

    Exits 1 when the project fails SQLite's integrity or foreign-key check.
    """
    from vendiscope.cli import _views
    from vendiscope.core.doctor import project_report, report

    info = report()
    if project is not None:
        info["project"] = project_report(project)
    _views.print_doctor(info, as_json=json)
    if project is not None and not info["project"]["ok"]:
        raise typer.Exit(1)


@app.command()
@reports_errors
def demo(
    path: Annotated[Path | None, typer.Option(help="Where to create the demo project.")] = None,
) -> None:
    """Create (once) and summarise the bundled demo project."""
    from vendiscope.cli import _views
    from vendiscope.cli._progress import RichProgress
    from vendiscope.core.io.demo import DEMO_DATASET, ensure_demo_project
    from vendiscope.core.store.project import Project

    location = ensure_demo_project(path, progress=RichProgress())
    with Project.open(location) as opened:
        _views.print_summary(opened, DEMO_DATASET)


@app.command()
@reports_errors
def gui(
    project: Annotated[
        str | None, typer.Argument(help="Project file (*.vscope) or database URL to open.")
    ] = None,
    demo: Annotated[bool, typer.Option("--demo", help="Open the bundled demo project.")] = False,
    theme: Annotated[str | None, typer.Option(help="Force a colour theme: light or dark.")] = None,
) -> None:
    """Open the desktop application (on PROJECT, the demo project, or the start page)."""
    from vendiscope.core.base.errors import ProjectError
    from vendiscope.core.base.project_files import is_url

    if project is not None and not is_url(project) and not Path(project).exists():
        raise ProjectError(f"{project}: no such project file")
    from vendiscope.gui import run

    raise typer.Exit(run(project, demo=demo, theme=theme))


# Commands defined in their own modules register themselves on `app` when imported.
from vendiscope.cli import _gvendi, _plugins, _report, _search, _select, _subsets, _vectors  # noqa: E402, F401
