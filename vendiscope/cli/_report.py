"""Commands for maps, views (charts as images) and the diversity audit report.

``view`` and ``report`` build every chart through the one view builder,
:func:`vendiscope.core.view_data.build.build_view`, as the app does: the same parameter typing,
guards (``registry.running``, ``registry.check_result``) and errors naming the plugin.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from vendiscope.cli._app import (
    DatasetArg,
    JsonOpt,
    MinSimilarityOpt,
    ProjectArg,
    RadiusOpt,
    app,
    min_similarity_of,
)
from vendiscope.cli._json_output import command_line, emit
from vendiscope.cli._options import flag
from vendiscope.cli._output import console, reports_errors
from vendiscope.cli._vector_sets import EmbeddingSetOpt, VectorSetOpt
from vendiscope.core.base.text import shown_path
from vendiscope.core.maps.options import MapOptions
from vendiscope.core.neighbors.options import CoverageOptions
from vendiscope.core.report.options import ReportOptions


@app.command("map")
@reports_errors
def map_(
    project: ProjectArg,
    dataset: DatasetArg,
    vectors: VectorSetOpt = None,
    method: Annotated[str, flag(MapOptions, "method")] = MapOptions.method,
    n_neighbors: Annotated[int, flag(MapOptions, "n_neighbors")] = MapOptions.n_neighbors,
    min_dist: Annotated[float, flag(MapOptions, "min_dist")] = MapOptions.min_dist,
    seed: Annotated[int, flag(MapOptions, "seed")] = MapOptions.seed,
    fit_sample: Annotated[int, flag(MapOptions, "fit_sample")] = MapOptions.fit_sample,
    json: JsonOpt = False,
) -> None:
    """Compute a 2-D map of a dataset (UMAP on FAISS neighbours, or PCA) and store it."""
    from vendiscope.cli._progress import RichProgress
    from vendiscope.core.maps.jobs import map_dataset
    from vendiscope.core.store.project import Project

    with Project.open(project) as opened:
        report = map_dataset(
            opened,
            dataset,
            vector_set=vectors,
            method=method,
            n_neighbors=n_neighbors,
            min_dist=min_dist,
            seed=seed,
            fit_sample=fit_sample,
            progress=RichProgress(),
        )
    summary = report.summary()
    if json:
        draw = command_line("vendiscope", "view", "map", project, dataset, "-o", "map.png")
        emit({**summary, "records": report.fitted_rows + report.placed_rows, "next": draw})
        return
    console.print(
        f"mapped [bold]{report.fitted_rows + report.placed_rows:,}[/] records of {dataset} "
        f"with {report.method} in {summary['seconds']:.1f} s; stored as [bold]{report.name}[/]"
    )
    console.print(f"computed on {summary['computed_on']}")
    if report.trustworthiness is not None:
        console.print(
            f"trustworthiness (10 neighbours, a sample of up to 2,000 records): "
            f"{report.trustworthiness:.3f}"
        )
    if report.placed_rows:
        console.print(summary.get("note", ""))
    console.print(f"draw it with `vendiscope view map {project} {dataset} -o map.png`")


@app.command()
@reports_errors
def view(
    name: Annotated[str, typer.Argument(help="View plugin (see `vendiscope plugins`).")],
    project: ProjectArg,
    dataset: DatasetArg,
    output: Annotated[
        Path, typer.Option("--output", "-o", help="Image (.png, .svg) or chart JSON (.json).")
    ],
    param: Annotated[
        list[str] | None,
        typer.Option("--param", "-p", help="View parameter NAME=VALUE, repeatable."),
    ] = None,
    target: Annotated[
        str | None, typer.Option(help="Target dataset, for views that need one (coverage).")
    ] = None,
    vectors: VectorSetOpt = None,
    scores: Annotated[
        str | None,
        typer.Option(help="Score set given to views as data['scores'] (default: the latest)."),
    ] = None,
    width: Annotated[int, typer.Option(min=16, help="Image width in pixels.")] = 900,
    height: Annotated[int, typer.Option(min=16, help="Image height in pixels.")] = 560,
    dpi: Annotated[int, typer.Option(min=16, help="Pixels per inch (PNG).")] = 100,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing file.")] = False,
    json: JsonOpt = False,
) -> None:
    """Draw any view plugin (built-in or third-party) to PNG or SVG, or save its chart JSON.

    The view reads --vectors as data['vectors'] and --scores as data['scores'].
    """
    import json as jsonlib

    from vendiscope.cli._output import plugin_params
    from vendiscope.core.base.atomic import atomic_path, check_destination
    from vendiscope.core.store.project import Project
    from vendiscope.core.view_data.build import build_view
    from vendiscope.core.view_data.render import save_chart

    params = plugin_params("view", name, param) if param else {}
    suffix = output.suffix.lower()
    if suffix not in (".png", ".svg", ".json"):
        from vendiscope.core.base.errors import ExportError

        raise ExportError(f"{shown_path(output)}: use .png, .svg or .json")
    check_destination(output, force=force)
    with Project.open(project) as opened:
        built = build_view(
            opened, name, dataset, params,
            target=target, vector_set=vectors, score_set=scores, param_prefix="--param ",
        )  # fmt: skip
    chart = built.chart
    if suffix == ".json":
        with atomic_path(output) as temporary:
            temporary.write_text(jsonlib.dumps(chart, indent=1) + "\n", encoding="utf-8")
    else:
        save_chart(chart, output, force=force, width=width, height=height, dpi=dpi)
    if json:
        emit(
            {
                "view": name,
                "dataset": dataset,
                "kind": chart["kind"],
                "title": chart["title"],
                "output": output,
                "format": suffix.removeprefix("."),
            }
        )
        return
    written = f"written to {shown_path(output)}"
    console.print(f"{chart['kind']} chart [bold]{chart['title']}[/] {written}")


@app.command()
@reports_errors
def report(
    project: ProjectArg,
    dataset: DatasetArg,
    output: Annotated[
        Path, typer.Option("--output", "-o", help="The report file (.html, or .json).")
    ],
    format: Annotated[
        str | None, flag(ReportOptions, "format", "--format", "-f")
    ] = ReportOptions.format,
    target: Annotated[
        str | None,
        typer.Option(help="Also measure coverage of this dataset (a benchmark, a held-out split)."),
    ] = None,
    min_similarity: MinSimilarityOpt = CoverageOptions.min_similarity,
    radius: RadiusOpt = None,
    target_vectors: EmbeddingSetOpt = None,
    vectors: EmbeddingSetOpt = None,
    compute: Annotated[bool, flag(ReportOptions, "compute", "--compute")] = ReportOptions.compute,
    contributions: Annotated[
        bool, flag(ReportOptions, "contributions")
    ] = ReportOptions.contributions,
    images: Annotated[str, flag(ReportOptions, "images")] = ReportOptions.images,
    max_points: Annotated[int, flag(ReportOptions, "max_points")] = ReportOptions.max_points,
    force: Annotated[bool, flag(ReportOptions, "force", "--force")] = ReportOptions.force,
    json: JsonOpt = False,
) -> None:
    """Write a self-contained diversity audit of a dataset (one HTML file, or JSON).

    With --target it also measures how well the dataset covers TARGET, on the embedding sets
    --vectors (the dataset's) and --target-vectors (the target's).
    """
    from vendiscope.cli._progress import RichProgress
    from vendiscope.core.report.build import COMPUTE_STEPS, write_report
    from vendiscope.core.store.project import Project

    least = min_similarity_of(min_similarity, radius)
    with Project.open(project) as opened:
        result = write_report(
            opened,
            dataset,
            output,
            format=format,
            force=force,
            target=target,
            radius=least,
            target_vector_set=target_vectors,
            vector_set=vectors,
            compute=COMPUTE_STEPS if compute else (),
            images=images,
            max_points=max_points,
            contributions=contributions,
            progress=RichProgress(),
        )
    if json:
        emit(
            {
                "dataset": dataset,
                "format": result.format,
                "destination": result.destination,
                "seconds": round(result.seconds, 3),
                "computed": list(result.computed),
                "headline": result.numbers["headline"],
                "charts": list(result.charts),
                "missing": result.missing,
            }
        )
        return
    if result.computed:
        console.print(f"computed first: {', '.join(result.computed)}")
    headline = result.numbers["headline"]
    parts = [f"{headline['records']:,} records"]
    for key, label in (("gvendi", "G-Vendi"), ("embedding_vendi", "embedding-Vendi")):
        if headline[key]:
            parts.append(f"{label} {headline[key]['value']:,.1f}")
    console.print(
        f"wrote the {result.format.upper()} audit of [bold]{dataset}[/] to "
        f"{shown_path(result.destination)} "
        f"in {result.seconds:.1f} s ({'; '.join(parts)}"
        + (f"; {len(result.charts)} charts" if result.format == "html" else "")
        + ")"
    )
    for item in result.missing:
        hint = f"run `{item['command']}`" if item.get("command") else item["message"]
        console.print(f"[yellow]not in the report[/]: {item['what']} — {hint}", soft_wrap=True)
