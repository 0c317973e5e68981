"""Commands over a project's datasets: new, import, datasets, show, stats, export."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from vendiscope.cli._app import DatasetArg, JsonOpt, ProjectArg, app
from vendiscope.cli._json_output import emit
from vendiscope.cli._options import flag
from vendiscope.cli._output import all_option, console, plugin_params, reports_errors
from vendiscope.core.base.text import shown_path
from vendiscope.core.io.options import ExportOptions, ImportOptions


@app.command()
@reports_errors
def new(project: ProjectArg, json: JsonOpt = False) -> None:
    """Create a new, empty project file."""
    from vendiscope.core.store.project import Project

    with Project.create(project) as opened:
        location = opened.location
    if json:
        emit({"project": str(location), "created": True})
        return
    console.print(f"created project [bold]{location}[/]")


@app.command("import")
@reports_errors
def import_(
    project: ProjectArg,
    path: Annotated[Path, typer.Argument(help="A data file or folder.")],
    name: Annotated[str | None, typer.Option(help="Dataset name (default: file name).")] = None,
    format: Annotated[
        str | None, flag(ImportOptions, "format", "--format", "-f")
    ] = ImportOptions.format,
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
        bool, flag(ImportOptions, "skip_bad", "--skip-bad")
    ] = ImportOptions.skip_bad,
    bad_report: Annotated[
        Path | None,
        typer.Option(help="Where --skip-bad writes bad rows (default: beside the input)."),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Show the detected format and mapping only.")
    ] = False,
    create: Annotated[bool, typer.Option(help="Create the project if it does not exist.")] = True,
    json: JsonOpt = False,
) -> None:
    """Import a dataset (JSONL, JSON, CSV/TSV, Parquet, HF datasets folder, .txt folder)."""
    from vendiscope.cli import _printing
    from vendiscope.cli._progress import RichProgress
    from vendiscope.core.io.importing import import_dataset, preview
    from vendiscope.core.store.project import Project

    params = {}
    if param:
        from vendiscope.core.plugin_host import default_registry

        importer = format or default_registry().importer_for(path).name
        params = plugin_params("importer", importer, param)
    if dry_run:
        found = preview(path, format=format, importer_params=params)
        if json:
            emit(_preview_document(found, map_ or []))
            return
        _printing.print_preview(found, map_ or [])
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
        location = opened.location
    if json:
        emit(
            {
                "project": str(location),
                "dataset": result.dataset.name,
                "rows": result.rows,
                "importer": result.importer,
                "seconds": round(result.seconds, 3),
                "mapping": {**result.mapping.to_json(), "describe": result.mapping.describe()},
                "duplicates": result.duplicates,
                "skipped": len(result.skipped),
                "skipped_rows": [_bad_row(bad) for bad in result.skipped],
                "bad_report": result.bad_report,
                "run_id": result.run_id,
            }
        )
        return
    _printing.print_import(result)


def _bad_row(bad: Any) -> dict[str, Any]:
    return {"number": bad.number, "message": bad.message, "field": bad.field}


def _preview_document(found: Any, overrides: list[str]) -> dict[str, Any]:
    """What ``import --dry-run`` shows, as the JSON of ``import --dry-run --json``."""
    from vendiscope.core.io.fields import parse_assignments

    mapping = found.mapping
    if overrides:
        mapping = parse_assignments(overrides, base=mapping)
    rows = []
    for row in found.rows:
        values = None
        if mapping is not None:
            try:
                values = mapping.apply(row)
            except ValueError as exc:
                values = {"error": str(exc)}
        rows.append({"row": row, "mapped": values})
    return {
        "dry_run": True,
        "importer": found.importer,
        "columns": list(found.info.columns or []),
        "mapping": None
        if mapping is None
        else {**mapping.to_json(), "describe": mapping.describe()},
        "mapping_error": found.mapping_error if mapping is None else None,
        "bad_rows": [_bad_row(bad) for bad in found.bad_rows],
        "rows": rows,
    }


@app.command()
@reports_errors
def datasets(project: ProjectArg, json: JsonOpt = False) -> None:
    """List the datasets of a project."""
    from vendiscope.cli import _printing
    from vendiscope.core.store.project import Project

    with Project.open(project) as opened:
        _printing.print_datasets(opened.datasets(), as_json=json)


@app.command()
@reports_errors
def show(
    project: ProjectArg,
    dataset: DatasetArg,
    offset: Annotated[int, typer.Option(min=0, help="First position to show.")] = 0,
    limit: Annotated[int, typer.Option(min=1, help="How many records.")] = 5,
    raw: Annotated[bool, typer.Option(help="Show the original rows.")] = False,
    where: Annotated[
        str | None,
        typer.Option(
            help="Only records matching a signal filter: 'pii', 'not pii', 'loss > 4', "
            "'language != en', joined with 'and' (docs/signals.md).",
        ),
    ] = None,
    json: JsonOpt = False,
) -> None:
    """Show a few records of a dataset (with --where, of those matching a signal filter)."""
    from vendiscope.cli import _printing
    from vendiscope.core.signals.reading import matching_page
    from vendiscope.core.store import record_lookup
    from vendiscope.core.store.project import Project

    with Project.open(project) as opened:
        if where is None:
            shown = record_lookup.page(opened, dataset, offset, limit)
        else:
            matching, shown = matching_page(opened, dataset, where, offset, limit)
            if not json:
                total = opened.dataset(dataset).row_count
                console.print(f"{matching:,} of {total:,} records match '{where}'")
        _printing.print_records(shown, raw=raw, as_json=json)


@app.command()
@reports_errors
def stats(
    project: ProjectArg,
    dataset: DatasetArg,
    all_: Annotated[bool, all_option("source")] = False,
    json: JsonOpt = False,
) -> None:
    """Counts for a dataset: rows, exact duplicates, fields filled, sources, lengths."""
    from vendiscope.cli import _printing
    from vendiscope.core.store.project import Project

    with Project.open(project) as opened:
        _printing.print_stats(opened.stats(dataset), as_json=json, show_all=all_)


@app.command()
@reports_errors
def export(
    project: ProjectArg,
    dataset: DatasetArg,
    destination: Annotated[Path, typer.Argument(help="Output file or folder.")],
    subset: Annotated[str | None, typer.Option(help="Export only this subset.")] = None,
    format: Annotated[
        str | None, flag(ExportOptions, "format", "--format", "-f")
    ] = ExportOptions.format,
    param: Annotated[
        list[str] | None,
        typer.Option("--param", "-p", help="Exporter parameter NAME=VALUE, repeatable."),
    ] = None,
    force: Annotated[bool, flag(ExportOptions, "force", "--force")] = ExportOptions.force,
    redact: Annotated[
        str | None,
        typer.Option(
            help="pii: write e-mail addresses, phone numbers, IP addresses, cards and secrets "
            "as [EMAIL], [PHONE], ... (the project keeps the originals; the manifest says so)."
        ),
    ] = None,
    json: JsonOpt = False,
) -> None:
    """Export a dataset or subset in its original schema, with a manifest beside it."""
    from vendiscope.cli._progress import RichProgress
    from vendiscope.core.io.exporting import choose_exporter, export_dataset
    from vendiscope.core.plugin_host import default_registry
    from vendiscope.core.signals.redaction import redaction
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
            redaction=redaction(redact) if redact is not None else None,
            progress=RichProgress(),
        )
    if json:
        emit(
            {
                "dataset": dataset,
                "subset": subset,
                "rows": result.rows,
                "destination": result.destination,
                "exporter": result.exporter,
                "manifest": result.manifest,
                "seconds": round(result.seconds, 3),
            }
        )
        return
    console.print(
        f"exported [bold]{result.rows}[/] rows to {shown_path(result.destination)} "
        f"({result.exporter}); "
        f"manifest: {shown_path(result.manifest)}"
    )
