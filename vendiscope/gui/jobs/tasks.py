"""The GUI's jobs: core functions wrapped so each opens its own Project in its worker thread.

Every function here is Qt-free and takes ``progress`` and ``cancel`` keywords; the
:class:`~vendiscope.gui.jobs.manager.JobManager` calls it on a worker thread. SQLite connections
never cross threads: each task opens the project by its location (WAL lets the GUI's reader
connection and the task's writer coexist) and closes it before returning.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vendiscope.core.base.jobs import CancelToken, Progress
from vendiscope.core.maps.options import MapOptions
from vendiscope.core.neighbors.options import NearDuplicateOptions

if TYPE_CHECKING:
    from vendiscope.core.store.project import Project


@dataclass(frozen=True)
class TaskResult:
    """What a finished task tells the user (``message``) and the GUI (``data``)."""

    message: str
    data: dict[str, Any] = field(default_factory=dict)


@contextmanager
def opened(location: str) -> Iterator[Project]:
    """The project at ``location``, opened in the calling thread and closed afterwards."""
    from vendiscope.core.store.project import Project

    project = Project.open(location)
    try:
        yield project
    finally:
        project.close()


def build_demo(path: str | None, *, progress: Progress, cancel: CancelToken) -> TaskResult:
    """Create the demo project (once) from the bundled dataset."""
    from vendiscope.core.io.demo import ensure_demo_project

    location = ensure_demo_project(Path(path) if path else None, progress=progress)
    return TaskResult(f"Demo project ready: {location}", {"location": str(location)})


def import_file(
    location: str,
    path: str,
    *,
    name: str | None = None,
    format: str | None = None,
    mapping: dict[str, Any] | None = None,
    importer_params: dict[str, Any] | None = None,
    skip_bad: bool = False,
    progress: Progress,
    cancel: CancelToken,
) -> TaskResult:
    """Import one file or folder as a new dataset (all rows or none)."""
    from vendiscope.core.io.fields import FieldMapping
    from vendiscope.core.io.importing import import_dataset

    with opened(location) as project:
        result = import_dataset(
            project,
            path,
            name=name,
            format=format,
            mapping=FieldMapping.from_json(mapping) if mapping else None,
            importer_params=importer_params,
            skip_bad=skip_bad,
            progress=progress,
            cancel=cancel,
        )
    skipped = f", {len(result.skipped)} bad rows skipped" if result.skipped else ""
    return TaskResult(
        f"Imported {result.rows:,} records into '{result.dataset.name}' "
        f"({result.duplicates:,} exact duplicates{skipped})",
        {"dataset": result.dataset.name, "rows": result.rows},
    )


def embed(
    location: str,
    dataset: str,
    *,
    field: str = "auto",
    name: str | None = None,
    params: dict[str, Any] | None = None,
    chunk_rows: int | None = None,
    progress: Progress,
    cancel: CancelToken,
) -> TaskResult:
    """Sentence embeddings of a dataset (resumes an interrupted vector set)."""
    from vendiscope.core.vectors.embedding import embed_dataset

    extra = {"chunk_rows": chunk_rows} if chunk_rows else {}
    with opened(location) as project:
        result = embed_dataset(
            project,
            dataset,
            field=field,
            name=name,
            params=params,
            progress=progress,
            cancel=cancel,
            **extra,
        )
    return _vector_message(result, dataset)


def featurize(
    location: str,
    dataset: str,
    *,
    name: str | None = None,
    params: dict[str, Any] | None = None,
    chunk_rows: int | None = None,
    progress: Progress,
    cancel: CancelToken,
) -> TaskResult:
    """Proxy-LM gradient features (the vectors of G-Vendi)."""
    from vendiscope.core.vectors.featurizing import featurize_dataset

    extra = {"chunk_rows": chunk_rows} if chunk_rows else {}
    with opened(location) as project:
        result = featurize_dataset(
            project, dataset, name=name, params=params, progress=progress, cancel=cancel, **extra
        )
    return _vector_message(result, dataset)


def score(
    location: str,
    dataset: str,
    *,
    metric: str = "gvendi",
    vector_set: str | None = None,
    params: dict[str, Any] | None = None,
    progress: Progress,
    cancel: CancelToken,
) -> TaskResult:
    """G-Vendi (``gvendi``) or embedding-Vendi (``vendi``) of a dataset, recorded as a run."""
    from vendiscope.core.metrics.scoring import score_dataset

    with opened(location) as project:
        result = score_dataset(
            project,
            dataset,
            metric=metric,
            vector_set=vector_set,
            params=params,
            progress=progress,
            cancel=cancel,
        )
    label = "G-Vendi" if metric == "gvendi" else "Embedding-Vendi"
    return TaskResult(
        f"{label} of '{dataset}': {result.value:,.1f} effective examples of {result.n:,}"
        f" (computed on {result.computed_on})",
        {"run_id": result.run_id, "value": result.value, "computed_on": result.computed_on},
    )


def score_subsets(
    location: str,
    dataset: str,
    subsets: list[str],
    *,
    metric: str = "gvendi",
    vector_set: str | None = None,
    params: dict[str, Any] | None = None,
    vs_random: bool = True,
    with_dataset: bool = True,
    progress: Progress,
    cancel: CancelToken,
) -> TaskResult:
    """The dataset (unless ``with_dataset`` is false) and each subset scored, one run each,
    each subset (with ``vs_random``) against random subsets of its size."""
    from vendiscope.core.metrics.scoring import KIND_FOR_METRIC, score_dataset
    from vendiscope.core.metrics.subset_scoring import check_request

    plugin = "vendi" if metric in KIND_FOR_METRIC else metric
    check_request(plugin, subsets[0] if subsets else None, vs_random and bool(subsets))
    with opened(location) as project:
        for name in subsets:  # every name checked before any run starts
            project.subset(dataset, name)
        common = {"metric": metric, "vector_set": vector_set, "params": params}
        if with_dataset:
            score_dataset(project, dataset, progress=progress, cancel=cancel, **common)
        draws = {"vs_random": vs_random, "progress": progress, "cancel": cancel}
        results = [score_dataset(project, dataset, subset=n, **draws, **common) for n in subsets]
    shown = ", ".join(f"{r.subset} {r.value:,.1f} of {r.n:,}" for r in results[:3])
    more = f" and {len(results) - 3} more" if len(results) > 3 else ""
    return TaskResult(
        f"Scored {len(results)} subset{'s' if len(results) != 1 else ''} of '{dataset}': "
        f"{shown}{more}",
        {"run_ids": [r.run_id for r in results], "subsets": [r.subset for r in results]},
    )


def near_duplicates(
    location: str,
    dataset: str,
    *,
    vector_set: str | None = None,
    threshold: float = NearDuplicateOptions.threshold,
    k: int = NearDuplicateOptions.k,
    overwrite: bool = False,
    progress: Progress,
    cancel: CancelToken,
) -> TaskResult:
    """Near-duplicate groups over an embedding set; the redundant records saved as a subset."""
    from vendiscope.core.neighbors.search import find_near_duplicates

    with opened(location) as project:
        report = find_near_duplicates(
            project,
            dataset,
            vector_set,
            threshold=threshold,
            k=k,
            overwrite=overwrite,
            progress=progress,
            cancel=cancel,
        )
    return TaskResult(
        f"Near-duplicates in '{dataset}' at {threshold:g}: {len(report.groups):,} groups, "
        f"{report.redundant:,} redundant records (computed on {report.computed_on})",
        {
            "run_id": report.run_id,
            "redundant": report.redundant,
            "computed_on": report.computed_on,
        },
    )


def export(
    location: str,
    dataset: str,
    destination: str,
    *,
    subset: str | None = None,
    format: str | None = None,
    force: bool = False,
    progress: Progress,
    cancel: CancelToken,
) -> TaskResult:
    """Export a dataset (or one of its subsets) with its provenance manifest."""
    from vendiscope.core.io.exporting import export_dataset

    with opened(location) as project:
        result = export_dataset(
            project,
            dataset,
            destination,
            subset=subset,
            format=format,
            force=force,
            progress=progress,
            cancel=cancel,
        )
    return TaskResult(
        f"Exported {result.rows:,} records to {result.destination}",
        {"destination": str(result.destination), "manifest": str(result.manifest)},
    )


def compute_map(
    location: str,
    dataset: str,
    *,
    vector_set: str | None = None,
    method: str = MapOptions.method,
    n_neighbors: int = MapOptions.n_neighbors,
    min_dist: float = MapOptions.min_dist,
    seed: int = MapOptions.seed,
    progress: Progress,
    cancel: CancelToken,
) -> TaskResult:
    """A 2-D map (UMAP or PCA) of a vector set, stored as ``map/METHOD/run-N``."""
    from vendiscope.core.maps.jobs import map_dataset

    with opened(location) as project:
        report = map_dataset(
            project,
            dataset,
            vector_set=vector_set,
            method=method,
            n_neighbors=n_neighbors,
            min_dist=min_dist,
            seed=seed,
            progress=progress,
            cancel=cancel,
        )
    trust = f", trustworthiness {report.trustworthiness:.2f}" if report.trustworthiness else ""
    what = f"{method.upper()} of {report.source}"
    return TaskResult(
        f"Map of '{dataset}' ({what}) in {report.seconds:.1f} s{trust}; computed on "
        f"{report.computed_on}",
        {"map": report.name, "run_id": report.run_id, "computed_on": report.computed_on},
    )


def cluster(
    location: str,
    dataset: str,
    *,
    vector_set: str | None = None,
    n_clusters: int | None = None,
    seed: int = 0,
    progress: Progress,
    cancel: CancelToken,
) -> TaskResult:
    """Spherical k-means clusters; the sparse (under-represented) ones marked."""
    from vendiscope.core.clusters.jobs import cluster_dataset

    with opened(location) as project:
        report = cluster_dataset(
            project,
            dataset,
            vector_set=vector_set,
            n_clusters=n_clusters,
            seed=seed,
            progress=progress,
            cancel=cancel,
        )
    return TaskResult(
        f"{report.n_clusters:,} clusters of '{dataset}': {len(report.sparse):,} sparse, holding "
        f"{report.records_in_sparse:,} records (computed on {report.computed_on})",
        {
            "run_id": report.run_id,
            "labels": report.labels_set,
            "computed_on": report.computed_on,
        },
    )


def select(
    location: str,
    dataset: str,
    *,
    method: str,
    k: int,
    vector_set: str | None = None,
    params: dict[str, Any] | None = None,
    quality: str | None = None,
    exclude: list[str] | None = None,
    dedupe: float | None = None,
    name: str | None = None,
    overwrite: bool = False,
    progress: Progress,
    cancel: CancelToken,
) -> TaskResult:
    """A selection of ``k`` records by a selector plugin, saved as a subset with its curves
    (a subset of that name is replaced only with ``overwrite``)."""
    from vendiscope.core.selection.job import select_dataset

    with opened(location) as project:
        report = select_dataset(
            project,
            dataset,
            method=method,
            k=k,
            vector_set=vector_set,
            params=params,
            quality=quality,
            exclude=tuple(exclude or ()),
            dedupe=dedupe,
            name=name,
            overwrite=overwrite,
            progress=progress,
            cancel=cancel,
        )
    chosen = report.curve["vendi"].get(report.vector_set, [float("nan")])[-1]
    baseline = report.curve["random"].get(report.vector_set, [float("nan")])[-1]
    return TaskResult(
        f"{method} chose {report.k:,} records of '{dataset}' as subset '{report.subset.name}': "
        f"Vendi {chosen:.1f} vs {baseline:.1f} for random (computed on {report.computed_on})",
        {
            "run_id": report.run_id,
            "subset": report.subset.name,
            "computed_on": report.computed_on,
        },
    )


def synthesize(
    location: str,
    dataset: str,
    options: dict[str, Any],
    *,
    progress: Progress,
    cancel: CancelToken,
) -> TaskResult:
    """Prismatic Synthesis: new examples for the dataset's sparse clusters, kept only when
    they fill a gap, as a new dataset (resumes a run of the same name and options)."""
    from vendiscope.core.synthesis.job import synthesize as synthesize_dataset
    from vendiscope.core.synthesis.options import SynthesisOptions

    with opened(location) as project:
        report = synthesize_dataset(
            project, dataset, SynthesisOptions(**options), progress=progress, cancel=cancel
        )
    baseline = "" if report.baseline is None else f" ({report.baseline:,.1f} without the filter)"
    resumed = f", resumed after round {report.resumed_from:,}" if report.resumed_from else ""
    return TaskResult(
        f"Accepted {report.accepted:,} of {report.generated:,} generated examples into "
        f"'{report.name}': G-Vendi {report.pool_gvendi:,.1f} -> {report.gvendi:,.1f}{baseline}"
        f"{resumed}",
        {"run_id": report.run_id, "dataset": report.name, "all": report.all_name},
    )


def study(
    location: str,
    pool: str,
    target: str,
    options: dict[str, Any],
    *,
    progress: Progress,
    cancel: CancelToken,
) -> TaskResult:
    """A study: a small model trained on many subsets of ``pool``, each scored on ``target``
    (resumes a study of the same name and options; refused when seed noise swamps it)."""
    from vendiscope.core.studies.job import run_study
    from vendiscope.core.studies.options import StudyOptions

    with opened(location) as project:
        report = run_study(
            project, pool, target, StudyOptions(**options), progress=progress, cancel=cancel
        )
    resumed = f", resumed after run {report.resumed_from:,}" if report.resumed_from else ""
    return TaskResult(
        f"Study '{report.name}' finished: {report.runs_done:,} of {report.runs_total:,} "
        f"training runs{resumed}",
        {"run_id": report.run_id, "name": report.name},
    )


def save_subset(
    location: str,
    dataset: str,
    name: str,
    positions: Any,
    *,
    description: str | None = None,
    progress: Progress,
    cancel: CancelToken,
) -> TaskResult:
    """Save records chosen by position (a selection on the map) as a new subset."""
    from vendiscope.core.store.subsets import from_positions

    with opened(location) as project:
        info = from_positions(project, dataset, name, positions, description=description)
    return TaskResult(f"Saved {info.size:,} records of '{dataset}' as subset '{name}'",
                      {"subset": name})  # fmt: skip


def copy_subset(
    location: str,
    dataset: str,
    source: str,
    name: str,
    *,
    progress: Progress,
    cancel: CancelToken,
) -> TaskResult:
    """Save a subset under a new name, keeping its ranks, gains and the run that made it."""
    from vendiscope.core.store import subsets

    with opened(location) as project:
        info = subsets.copy_subset(project, dataset, source, name)
    return TaskResult(f"Saved subset '{source}' of '{dataset}' as '{name}' ({info.size:,} records)",
                      {"subset": name})  # fmt: skip


def build_view(
    location: str,
    dataset: str,
    view: str,
    params: dict[str, Any] | None = None,
    *,
    target: str | None = None,
    registry: Any = None,
) -> dict[str, Any]:
    """A view plugin's chart description for ``dataset``, checked against the chart schema.

    Built by :func:`vendiscope.core.view_data.build.build_view`, as the command line and the
    report build it: a chart that does not fit is a malformed result, raised as a
    PluginRuntimeError and recorded, so the Plugins window lists the view as failed when run.
    """
    from vendiscope.core.view_data.build import build_view as build

    with opened(location) as project:
        return build(project, view, dataset, params, registry=registry, target=target).chart


def _vector_message(result: Any, dataset: str) -> TaskResult:
    vs = result.vector_set
    if result.already_complete:
        text = f"Vector set '{vs.name}' of '{dataset}' was already complete ({vs.n_rows:,} rows)"
    else:
        resumed = f", resumed at row {result.resumed_from:,}" if result.resumed_from else ""
        text = (
            f"Vector set '{vs.name}' of '{dataset}': {vs.n_rows:,} x {vs.dim} "
            f"in {result.seconds:.1f} s{resumed}"
        )
    return TaskResult(text, {"vector_set": vs.name})
