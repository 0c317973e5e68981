"""Prismatic gap analysis: ``clusters`` (sparse gradient clusters) and ``filter-candidates``."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from vendiscope.cli._app import DatasetArg, JsonOpt, ProjectArg, app
from vendiscope.cli._json_output import emit
from vendiscope.cli._options import flag
from vendiscope.cli._output import console, reports_errors
from vendiscope.cli._vector_sets import CandidateSetOpt, GradientFirstSetOpt
from vendiscope.core.clusters.options import ClusterOptions, FilterOptions


@app.command()
@reports_errors
def clusters(
    project: ProjectArg,
    dataset: DatasetArg,
    vectors: GradientFirstSetOpt = None,
    n_clusters: Annotated[
        int | None, flag(ClusterOptions, "n_clusters", "--n-clusters", "-n")
    ] = ClusterOptions.n_clusters,
    seed: Annotated[int, flag(ClusterOptions, "seed")] = ClusterOptions.seed,
    show: Annotated[int, typer.Option(help="Sparse clusters to list.")] = 10,
    json: JsonOpt = False,
) -> None:
    """Cluster gradients (spherical k-means) and list the sparse, under-represented clusters."""
    from vendiscope.cli._output import shorten
    from vendiscope.cli._progress import RichProgress
    from vendiscope.core.clusters.jobs import cluster_dataset
    from vendiscope.core.neighbors.search import records_at
    from vendiscope.core.store.project import Project

    with Project.open(project) as opened:
        report = cluster_dataset(
            opened, dataset, vector_set=vectors, n_clusters=n_clusters, seed=seed,
            progress=RichProgress(),
        )  # fmt: skip
        from vendiscope.core.clusters.run_result import ClusterResult

        examples = ClusterResult.from_json(opened.run(report.run_id).result).examples
        listed = list(examples.items())[:show]
        records = records_at(opened, dataset, [p for _, ps in listed for p in ps])
    if json:
        emit({**report.summary(), "sizes": report.sizes, "sparse": report.sparse})
        return
    summary = report.summary()
    console.print(
        f"{summary['clusters']} clusters of {dataset} "
        f"(median size {summary['median_size']:g}); [bold]{summary['sparse_clusters']}[/] "
        f"sparse clusters hold {summary['records_in_sparse_clusters']} records; labels in "
        f"vector set {summary['labels']}"
    )
    console.print(f"computed on {summary['computed_on']}")
    table = Table("cluster", "size", "example records", title="smallest sparse clusters")
    for cluster, positions in listed:
        text = "\n".join(f"#{p}: {shorten(records[p].display_text(), 70)}" for p in positions)
        table.add_row(str(cluster), str(report.sizes[cluster]), text)
    console.print(table)


@app.command("filter-candidates")
@reports_errors
def filter_candidates_(
    project: ProjectArg,
    pool: Annotated[str, typer.Argument(help="The dataset whose sparse clusters to fill.")],
    candidates: Annotated[str, typer.Argument(help="The dataset of new candidate records.")],
    vectors: CandidateSetOpt = None,
    cluster_run: Annotated[
        int | None, typer.Option(help="Clustering run of the pool (default: the latest).")
    ] = None,
    name: Annotated[
        str | None, typer.Option(help="Subset of kept candidates (default: sparse-fill@run-N).")
    ] = None,
    overwrite: Annotated[bool, typer.Option(help="Replace a subset of that name.")] = False,
    trials: Annotated[
        int, flag(FilterOptions, "random_trials", "--trials")
    ] = FilterOptions.random_trials,
    seed: Annotated[int, flag(FilterOptions, "seed")] = FilterOptions.seed,
    json: JsonOpt = False,
) -> None:
    """Keep only candidates that land in the pool's sparse clusters (Prismatic filter)."""
    from vendiscope.cli._progress import RichProgress
    from vendiscope.core.clusters.jobs import filter_candidates
    from vendiscope.core.store.project import Project

    with Project.open(project) as opened:
        report = filter_candidates(
            opened, pool, candidates, candidate_vectors=vectors, cluster_run=cluster_run,
            name=name, overwrite=overwrite, random_trials=trials, seed=seed,
            progress=RichProgress(),
        )  # fmt: skip
    summary = report.summary()
    if json:
        emit(summary)
        return
    console.print(
        f"kept [bold]{summary['kept']}[/] of {summary['candidates_total']} candidates "
        f"(they land in sparse clusters of {pool})"
        + (f"; saved as subset [bold]{summary['subset']}[/]" if summary["subset"] else "")
    )
    console.print(f"computed on {summary['computed_on']}")
    console.print(
        f"Vendi of {pool}: {summary['pool_vendi']:.2f} -> {summary['pool_plus_kept_vendi']:.2f} "
        f"with the kept candidates (+{summary['gain_kept']:.2f}); "
        f"{summary['pool_plus_random_vendi']:.2f} with as many random ones "
        f"(+{summary['gain_random']:.2f}, mean of {summary['random_trials']})"
    )
