"""Commands over vector indexes: nearest neighbours, near-duplicate groups, coverage."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

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
from vendiscope.cli._json_output import emit
from vendiscope.cli._options import flag
from vendiscope.cli._output import console, fail, reports_errors, shorten
from vendiscope.cli._vector_sets import EmbeddingSetOpt
from vendiscope.core.neighbors.options import CoverageOptions, NearDuplicateOptions

IndexOpt = Annotated[str, flag(NearDuplicateOptions, "index")]
DeviceOpt = Annotated[str, flag(NearDuplicateOptions, "device")]


def _text(record: Any, width: int = 70) -> str:
    return shorten(record.display_text(), width) if record is not None else ""


@app.command()
@reports_errors
def neighbors(
    project: ProjectArg,
    dataset: DatasetArg,
    vectors: EmbeddingSetOpt = None,
    record: Annotated[
        int | None, typer.Option("--record", "-r", min=0, help="Query by this record position.")
    ] = None,
    text: Annotated[
        str | None, typer.Option("--text", "-t", help="Query by free text (embedded).")
    ] = None,
    queries: Annotated[
        Path | None,
        typer.Option(help="Query by a batch of vectors: an .npy file of shape (m, dim); JSON out."),
    ] = None,
    k: Annotated[int, typer.Option("-k", "--k", min=1, help="How many neighbours.")] = 10,
    json: JsonOpt = False,
) -> None:
    """The records most similar to a record, a text, or each of a batch of vectors."""
    from vendiscope.core.neighbors.search import (
        neighbors_of_records,
        neighbors_of_text,
        records_at,
        resolve_vector_set,
    )
    from vendiscope.core.store.project import Project

    if sum(x is not None for x in (record, text, queries)) != 1:
        fail("give exactly one of --record POS, --text TEXT or --queries FILE", "usage", 2)
    with Project.open(project) as opened:
        info = resolve_vector_set(opened, dataset, vectors)
        if queries is not None:
            _batch_neighbors(opened, dataset, info.name, queries, k)
            return
        if record is not None:
            found = neighbors_of_records(opened, dataset, info.name, [record], k)[0]
            query: dict[str, Any] = {"record": record}
        else:
            assert text is not None
            found = neighbors_of_text(opened, dataset, info.name, text, k)[0]
            query = {"text": text}
        wanted = [n.position for n in found] + ([record] if record is not None else [])
        shown = records_at(opened, dataset, wanted)
    if json:
        emit(
            {
                "dataset": dataset,
                "vector_set": info.name,
                "query": query,
                "neighbors": [
                    {
                        "position": n.position,
                        "similarity": round(n.similarity, 6),
                        "text": shown[n.position].display_text() if n.position in shown else None,
                    }
                    for n in found
                ],
            }
        )
        return
    from rich.table import Table

    about = (
        f"record {record}: {_text(shown.get(record), 90)}"
        if record is not None
        else f"text: {shorten(text, 90)}"
    )
    console.print(f"neighbours in [bold]{dataset}[/] ({info.name}) of {about}")
    table = Table("#", "pos", "similarity", "text")
    for rank, n in enumerate(found, 1):
        table.add_row(str(rank), str(n.position), f"{n.similarity:.4f}", _text(shown[n.position]))
    console.print(table)


@app.command("near-dups")
@reports_errors
def near_dups(
    project: ProjectArg,
    dataset: DatasetArg,
    vectors: EmbeddingSetOpt = None,
    threshold: Annotated[
        float, flag(NearDuplicateOptions, "threshold")
    ] = NearDuplicateOptions.threshold,
    k: Annotated[int, flag(NearDuplicateOptions, "k", "-k", "--k")] = NearDuplicateOptions.k,
    save: Annotated[
        bool,
        typer.Option(help="Save redundant records as the subset near-duplicates@THRESHOLD."),
    ] = True,
    overwrite: Annotated[
        bool, typer.Option("--overwrite", help="Replace that subset if it exists.")
    ] = False,
    show: Annotated[int, typer.Option(min=0, help="Groups to print (largest first).")] = 10,
    index: IndexOpt = NearDuplicateOptions.index,
    device: DeviceOpt = NearDuplicateOptions.device,
    json: JsonOpt = False,
) -> None:
    """Find groups of near-duplicate records (cosine similarity >= threshold)."""
    from vendiscope.cli._progress import RichProgress
    from vendiscope.core.neighbors.search import find_near_duplicates, records_at
    from vendiscope.core.store.project import Project

    with Project.open(project) as opened:
        report = find_near_duplicates(
            opened,
            dataset,
            vectors,
            threshold=threshold,
            k=k,
            save=save,
            overwrite=overwrite,
            index=index,
            device=device,
            progress=RichProgress(),
        )
        listed = report.groups[:show]
        shown = records_at(opened, dataset, [p for g in listed for p in g.positions[:5]])
    if json:
        emit(
            {
                **report.summary(),
                "subset_size": report.subset.size if report.subset is not None else None,
                "index": report.index,
                "groups_detail": [
                    [
                        {"position": p, "similarity": s}
                        for p, s in zip(g.positions, g.similarities, strict=True)
                    ]
                    for g in report.groups
                ],
            }
        )
        return
    console.print(
        f"[bold]{len(report.groups)}[/] groups of near-duplicates (cosine >= {threshold:g}) in "
        f"{report.n_records} records of [bold]{dataset}[/]: "
        f"{report.records_in_groups} records in groups, [bold]{report.redundant}[/] redundant "
        f"({report.redundant / max(report.n_records, 1):.1%}); "
        f"index {_index_words(report.index)}; {report.seconds:.1f} s"
    )
    console.print(f"computed on {report.computed_on}")
    if listed:
        from rich.table import Table

        table = Table("group", "pos", "sim. to first", "text", show_lines=False)
        for number, group in enumerate(listed, 1):
            for i, (p, s) in enumerate(zip(group.positions, group.similarities, strict=True)):
                if i == 5:
                    table.add_row("", "…", "", f"and {len(group) - 5} more", end_section=True)
                    break
                table.add_row(
                    f"{number} ({len(group)})" if i == 0 else "",
                    str(p),
                    "kept" if i == 0 else f"{s:.4f}",
                    _text(shown.get(p)),
                    end_section=i == len(group) - 1,
                )
        console.print(table)
        if len(report.groups) > len(listed):
            console.print(f"… and {len(report.groups) - len(listed)} more groups (--show N)")
    if report.subset is not None:
        console.print(
            f"saved the {report.subset.size} redundant records as subset "
            f"[bold]{report.subset.name}[/] (run {report.run_id})"
        )


@app.command()
@reports_errors
def coverage(
    project: ProjectArg,
    train: Annotated[str, typer.Argument(help="Training dataset (the one that should cover).")],
    target: Annotated[str, typer.Argument(help="Target dataset (e.g. a benchmark).")],
    train_vectors: EmbeddingSetOpt = None,
    target_vectors: EmbeddingSetOpt = None,
    min_similarity: MinSimilarityOpt = CoverageOptions.min_similarity,
    radius: RadiusOpt = None,
    train_subset: Annotated[
        str | None, typer.Option(help="Use only this subset of the training dataset.")
    ] = None,
    show: Annotated[int, typer.Option(min=0, help="Least covered targets to print.")] = 10,
    index: IndexOpt = CoverageOptions.index,
    device: DeviceOpt = CoverageOptions.device,
    json: JsonOpt = False,
) -> None:
    """How many target records have a training record at least --min-similarity similar."""
    import numpy as np

    from vendiscope.cli._progress import RichProgress
    from vendiscope.core.neighbors.search import coverage as compute_coverage
    from vendiscope.core.neighbors.search import records_at
    from vendiscope.core.store.project import Project

    least = min_similarity_of(min_similarity, radius)
    with Project.open(project) as opened:
        report = compute_coverage(
            opened,
            train,
            train_vectors,
            target,
            target_vectors,
            radius=least,
            train_subset=train_subset,
            index=index,
            device=device,
            progress=RichProgress(),
        )
        worst = [int(i) for i in np.argsort(report.similarities, kind="stable")[:show]]
        targets = records_at(opened, target, worst)
        trains = records_at(opened, train, [int(report.nearest[i]) for i in worst])
    if json:
        emit(
            {
                **report.summary(),
                "index": report.index,
                "uncovered": report.uncovered,
                "nearest": [int(p) for p in report.nearest],
                "similarities": [round(float(s), 6) for s in report.similarities],
            }
        )
        return
    q = report.quantiles()
    console.print(
        f"[bold]{report.fraction:.1%}[/] of {report.n_targets} records of [bold]{target}[/] "
        f"have a record of [bold]{train}[/]"
        + (f" (subset {train_subset})" if train_subset else "")
        + f" at cosine similarity >= {least:g} ({report.covered} covered, "
        f"{report.n_targets - report.covered} not); nearest-train similarity: "
        + ", ".join(f"{name} {value:.3f}" for name, value in q.items())
    )
    console.print(f"computed on {report.computed_on}")
    if worst:
        from rich.table import Table

        table = Table("target", "similarity", "target text", "nearest train", show_lines=True)
        for i in worst:
            nearest = int(report.nearest[i])
            table.add_row(
                str(i),
                f"{report.similarities[i]:.4f}",
                _text(targets.get(i), 50),
                f"{nearest}: {_text(trains.get(nearest), 50)}",
            )
        console.print("least covered targets:")
        console.print(table)


def _index_words(index: dict[str, Any]) -> str:
    words = index.get("kind", "?")
    if "nprobe" in index:
        words += f" (nprobe {index['nprobe']} of {index['nlist']} lists)"
    if "ef_search" in index:
        words += f" (efSearch {index['ef_search']})"
    if index.get("calibrated_recall") is not None and index.get("kind") != "flat":
        words += f", estimated recall@10 {index['calibrated_recall']:.3f}"
    if index.get("fallback"):
        words += f" [{index['fallback']}]"
    return words


def _batch_neighbors(opened: Any, dataset: str, vector_set: str, queries: Path, k: int) -> None:
    """Neighbours of every row of an .npy matrix, printed as JSON (one list per query)."""
    import numpy as np

    from vendiscope.core.base.errors import InputError, Location
    from vendiscope.core.neighbors.search import neighbors_of_vectors

    try:
        matrix = np.load(queries, allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise InputError(f"not a readable .npy matrix ({exc})", Location(queries)) from None
    if matrix.ndim != 2:
        raise InputError(f"expected a 2-D matrix, got shape {matrix.shape}", Location(queries))
    if not np.issubdtype(matrix.dtype, np.number):
        raise InputError(f"expected numbers, got {matrix.dtype}", Location(queries))
    unfit = np.flatnonzero(~np.isfinite(matrix).all(axis=1))
    if unfit.size:
        rows = ", ".join(str(r) for r in unfit[:5]) + (" …" if unfit.size > 5 else "")
        raise InputError(
            f"{unfit.size} quer{'y' if unfit.size == 1 else 'ies'} hold NaN or infinity "
            f"(rows {rows}); every query must be finite",
            Location(queries),
        )
    found = neighbors_of_vectors(opened, dataset, vector_set, matrix, k)
    emit(
        {
            "dataset": dataset,
            "vector_set": vector_set,
            "queries": str(queries),
            "neighbors": [
                [{"position": n.position, "similarity": round(n.similarity, 6)} for n in row]
                for row in found
            ],
        }
    )
