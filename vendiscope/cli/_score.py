"""``vendiscope score``: a dataset's diversity (G-Vendi, embedding-Vendi or a metric plugin)."""

from __future__ import annotations

from typing import Annotated

import typer

from vendiscope.cli._app import DatasetArg, JsonOpt, ProjectArg, app
from vendiscope.cli._output import all_option, plugin_params, reports_errors


@app.command()
@reports_errors
def score(
    project: ProjectArg,
    dataset: DatasetArg,
    metric: Annotated[
        str, typer.Option(help="gvendi (gradients), vendi (embeddings), or a metric plugin.")
    ] = "gvendi",
    vectors: Annotated[
        str | None, typer.Option(help="Vector set (default: the latest of the metric's kind).")
    ] = None,
    q: Annotated[float, typer.Option(help="Order of the Vendi score (0.5, 1, 2, inf).")] = 1.0,
    bootstrap: Annotated[
        int, typer.Option(min=0, help="Bootstrap resamples for a confidence interval.")
    ] = 0,
    quality: Annotated[
        str | None,
        typer.Option(help="Weight records by a numeric field or a one-column score set."),
    ] = None,
    param: Annotated[
        list[str] | None,
        typer.Option("--param", "-p", help="Other metric parameter NAME=VALUE, repeatable."),
    ] = None,
    all_: Annotated[bool, all_option("source")] = False,
    json: JsonOpt = False,
) -> None:
    """Score a dataset's diversity: the score, n, the effective number of distinct examples."""
    from vendiscope.cli._printing import print_json, print_score
    from vendiscope.cli._progress import RichProgress
    from vendiscope.core.metrics.scoring import KIND_FOR_METRIC, score_dataset
    from vendiscope.core.store.project import Project

    params = plugin_params("metric", "vendi" if metric in KIND_FOR_METRIC else metric, param)
    if metric in ("gvendi", "vendi"):
        params.setdefault("q", q)
        if bootstrap:
            params.setdefault("bootstrap", bootstrap)
    with Project.open(project) as opened:
        result = score_dataset(
            opened,
            dataset,
            metric=metric,
            vector_set=vectors,
            params=params,
            quality=quality,
            progress=RichProgress(),
        )
        # Every source with its record count, so the table can list the ones too small for
        # a score of their own instead of leaving them out.
        source_counts = None if json else opened.stats(dataset)["sources"]
    if json:
        print_json(
            {
                "metric": result.metric,
                "vector_set": result.vector_set.name,
                "computed_on": result.computed_on,
                "value": result.value,
                "n": result.n,
                "details": result.details,
                "per_source": result.per_source,
                "per_record_set": result.per_record_set,
                "run_id": result.run_id,
            }
        )
        return
    print_score(result, show_all=all_, source_counts=source_counts)
