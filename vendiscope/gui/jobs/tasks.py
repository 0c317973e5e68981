"""The app's jobs: each opens the project through the Python API and calls its method.

Every function here is Qt-free and takes ``progress`` and ``cancel`` keywords; the
:class:`~vendiscope.gui.jobs.manager.JobManager` calls it on a worker thread (or in a child
process). A task is the app's thin view of an operation, as a command is the CLI's: it opens
the project by its location (SQLite connections never cross threads; WAL lets the app's reader
connection and the task's writer coexist), calls the :mod:`vendiscope.scripting` method a
script would call — with the options the dialog chose, defaults left to the operation's
options class — and words the result for the status bar. No task writes a default of its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vendiscope.core.base.jobs import CancelToken, Progress

if TYPE_CHECKING:
    from vendiscope.core.store.project import Project
    from vendiscope.scripting import Project as ScriptedProject


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


@contextmanager
def scripted(location: str) -> Iterator[ScriptedProject]:
    """The project at ``location`` as the Python API opens it, closed afterwards."""
    from vendiscope.scripting import open as open_project

    project = open_project(location, progress=False)
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
    mapping: dict[str, Any] | None = None,
    importer_params: dict[str, Any] | None = None,
    progress: Progress,
    cancel: CancelToken,
    **options: Any,
) -> TaskResult:
    """Import one file or folder as a new dataset (all rows or none); ``mapping`` is the
    import dialog's whole field mapping (``FieldMapping.to_json()``)."""
    from vendiscope.core.io.fields import FieldMapping

    chosen = FieldMapping.from_json(mapping) if mapping else None
    with scripted(location) as project:
        result = project.import_file(
            path, mapping=chosen, params=importer_params, progress=progress, cancel=cancel,
            **options,
        )  # fmt: skip
    skipped = f", {len(result.skipped)} bad rows skipped" if result.skipped else ""
    return TaskResult(
        f"Imported {result.rows:,} records into '{result.dataset.name}' "
        f"({result.duplicates:,} exact duplicates{skipped})",
        {"dataset": result.dataset.name, "rows": result.rows},
    )


def embed(
    location: str, dataset: str, *, progress: Progress, cancel: CancelToken, **options: Any
) -> TaskResult:
    """Sentence embeddings of a dataset (resumes an interrupted vector set)."""
    with scripted(location) as project:
        result = project.embed(dataset, progress=progress, cancel=cancel, **options)
    return _vector_message(result, dataset)


def featurize(
    location: str,
    dataset: str,
    *,
    params: dict[str, Any] | None = None,
    progress: Progress,
    cancel: CancelToken,
    **options: Any,
) -> TaskResult:
    """Proxy-LM gradient features (the vectors of G-Vendi); ``params`` are the featurizer's,
    its ``mode`` among them (as a resumed set records them)."""
    params = dict(params or {})
    if "mode" in params:
        options["mode"] = params.pop("mode")
    with scripted(location) as project:
        result = project.gradients(
            dataset, params=params, progress=progress, cancel=cancel, **options
        )
    return _vector_message(result, dataset)


def score(
    location: str,
    dataset: str,
    *,
    vector_set: str | None = None,
    progress: Progress,
    cancel: CancelToken,
    **options: Any,
) -> TaskResult:
    """G-Vendi (``gvendi``) or embedding-Vendi (``vendi``) of a dataset, recorded as a run."""
    with scripted(location) as project:
        result = project.score(
            dataset, vectors=vector_set, progress=progress, cancel=cancel, **options
        )
    assert not isinstance(result, list)  # one dataset, no subsets
    label = "G-Vendi" if result.metric == "gvendi" else "Embedding-Vendi"
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
    vector_set: str | None = None,
    with_dataset: bool = True,
    progress: Progress,
    cancel: CancelToken,
    **options: Any,
) -> TaskResult:
    """The dataset (unless ``with_dataset`` is false) and each subset scored, one run each
    (with ``vs_random``, each subset against random subsets of its size)."""
    from vendiscope.core.metrics.scoring import KIND_FOR_METRIC
    from vendiscope.core.metrics.subset_scoring import check_request

    metric = options.get("metric", "")
    vs_random = bool(options.get("vs_random")) and bool(subsets)
    check_request("vendi" if metric in KIND_FOR_METRIC else metric, subsets[0] if subsets else None,
                  vs_random)  # fmt: skip
    common = {"vectors": vector_set, "progress": progress, "cancel": cancel}
    with scripted(location) as project:
        for name in subsets:  # every name checked before any run starts
            project.store.subset(dataset, name)
        if with_dataset:
            plain = {key: value for key, value in options.items() if key != "vs_random"}
            project.score(dataset, **common, **plain)
        found = project.score(dataset, subset=list(subsets), **common, **options)
    results = found if isinstance(found, list) else [found]
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
    progress: Progress,
    cancel: CancelToken,
    **options: Any,
) -> TaskResult:
    """Near-duplicate groups over an embedding set; the redundant records saved as a subset."""
    with scripted(location) as project:
        report = project.near_duplicates(
            dataset, vectors=vector_set, progress=progress, cancel=cancel, **options
        )
    return TaskResult(
        f"Near-duplicates in '{dataset}' at {report.threshold:g}: {len(report.groups):,} groups, "
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
    progress: Progress,
    cancel: CancelToken,
    **options: Any,
) -> TaskResult:
    """Export a dataset (or one of its subsets) with its provenance manifest."""
    with scripted(location) as project:
        result = project.export(dataset, destination, progress=progress, cancel=cancel, **options)
    return TaskResult(
        f"Exported {result.rows:,} records to {result.destination}",
        {"destination": str(result.destination), "manifest": str(result.manifest)},
    )


def compute_map(
    location: str,
    dataset: str,
    *,
    vector_set: str | None = None,
    progress: Progress,
    cancel: CancelToken,
    **options: Any,
) -> TaskResult:
    """A 2-D map (UMAP or PCA) of a vector set, stored as ``map/METHOD/run-N``."""
    with scripted(location) as project:
        report = project.map(
            dataset, vectors=vector_set, progress=progress, cancel=cancel, **options
        )
    trust = f", trustworthiness {report.trustworthiness:.2f}" if report.trustworthiness else ""
    what = f"{report.method.upper()} of {report.source}"
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
    progress: Progress,
    cancel: CancelToken,
    **options: Any,
) -> TaskResult:
    """Spherical k-means clusters; the sparse (under-represented) ones marked."""
    with scripted(location) as project:
        report = project.clusters(
            dataset, vectors=vector_set, progress=progress, cancel=cancel, **options
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
    k: int,
    vector_set: str | None = None,
    progress: Progress,
    cancel: CancelToken,
    **options: Any,
) -> TaskResult:
    """A selection of ``k`` records by a selector plugin, saved as a subset with its curves
    (a subset of that name is replaced only with ``overwrite``)."""
    with scripted(location) as project:
        report = project.select(
            dataset, k, vectors=vector_set, progress=progress, cancel=cancel, **options
        )
    chosen = report.curve["vendi"].get(report.vector_set, [float("nan")])[-1]
    baseline = report.curve["random"].get(report.vector_set, [float("nan")])[-1]
    return TaskResult(
        f"{report.method} chose {report.k:,} records of '{dataset}' as subset "
        f"'{report.subset.name}': Vendi {chosen:.1f} vs {baseline:.1f} for random (computed on "
        f"{report.computed_on})",
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
    with scripted(location) as project:
        report = project.synthesize(dataset, progress=progress, cancel=cancel, **options)
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
    with scripted(location) as project:
        report = project.study(pool, target, progress=progress, cancel=cancel, **options)
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
    with scripted(location) as project:
        info = project.save_subset(dataset, name, positions, description=description)
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
    with scripted(location) as project:
        info = project.copy_subset(dataset, source, name)
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

    Built by :func:`vendiscope.core.view_data.build.build_view`, as the command line, the
    report and :meth:`vendiscope.scripting.Project.view` build it: a chart that does not fit
    is a malformed result, raised as a PluginRuntimeError and recorded, so the Plugins window
    lists the view as failed when run.
    """
    with scripted(location) as project:
        return project.view(dataset, view, params, target=target, registry=registry)


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


def compute_signals(
    location: str,
    dataset: str,
    signals: list[str],
    *,
    params: dict[str, dict[str, Any]] | None = None,
    targets: dict[str, str] | None = None,
    progress: Progress,
    cancel: CancelToken,
    **options: Any,
) -> TaskResult:
    """Curation signals of a dataset, one after the other (each resumes where an interrupted
    run stopped); ``params`` and ``targets`` (the dataset a signal compares with) by signal,
    ``options`` those of :class:`~vendiscope.core.signals.options.SignalOptions`."""
    params, targets = params or {}, targets or {}
    done = []
    with scripted(location) as project:
        for name in signals:
            done += project.signals(
                dataset, name, params=params.get(name), target=targets.get(name),
                progress=progress, cancel=cancel, **options,
            )  # fmt: skip
    resumed = sum(1 for r in done if getattr(r, "resumed_from", 0))
    again = f" ({resumed} resumed)" if resumed else ""
    return TaskResult(
        f"Computed {len(done)} signal{'s' if len(done) != 1 else ''} of '{dataset}'{again}: "
        f"{', '.join(signals)}",
        {"vector_sets": [r.vector_set.name for r in done]},
    )


def clean_up(
    location: str,
    dataset: str,
    name: str,
    *,
    drop: list[str],
    keep: list[str],
    progress: Progress,
    cancel: CancelToken,
    **options: Any,
) -> TaskResult:
    """Save the records that pass every rule as the subset ``name`` (records never deleted;
    ``overwrite`` among ``options`` replaces a subset of that name)."""
    with scripted(location) as project:
        report = project.clean(dataset, drop=drop, keep=keep, name=name, **options)
    return TaskResult(
        f"Kept {report.kept:,} of {report.records:,} records of '{dataset}' as subset '{name}'",
        {"subset": name, "kept": report.kept},
    )
