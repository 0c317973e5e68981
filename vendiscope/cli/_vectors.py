"""Commands that compute and list vector sets."""

from __future__ import annotations

from typing import Annotated

import typer

from vendiscope.cli import _json_output
from vendiscope.cli._app import DatasetArg, JsonOpt, ProjectArg, app
from vendiscope.cli._options import flag
from vendiscope.cli._output import console, plugin_params, reports_errors
from vendiscope.cli._scale import AddressOpt, EngineOpt, GpusOpt, WorkersOpt, engine_choice
from vendiscope.core.vectors.options import EmbedOptions


@app.command()
@reports_errors
def embed(
    project: ProjectArg,
    dataset: DatasetArg,
    model: Annotated[
        str | None,
        typer.Option(help="Model folder or hub id (default: the bundled all-MiniLM-L6-v2)."),
    ] = None,
    field: Annotated[str, flag(EmbedOptions, "field")] = EmbedOptions.field,
    name: Annotated[
        str | None, typer.Option(help="Vector set name (default: EMBEDDER/FIELD).")
    ] = None,
    embedder: Annotated[str, flag(EmbedOptions, "embedder")] = EmbedOptions.embedder,
    device: Annotated[str | None, typer.Option(help="auto, cpu, cuda, cuda:1 ...")] = None,
    batch_size: Annotated[int | None, typer.Option(min=1, help="Default: from memory.")] = None,
    param: Annotated[
        list[str] | None,
        typer.Option("--param", "-p", help="Other embedder parameter NAME=VALUE, repeatable."),
    ] = None,
    reuse: Annotated[bool, flag(EmbedOptions, "reuse")] = EmbedOptions.reuse,
    engine: EngineOpt = None,
    address: AddressOpt = None,
    workers: WorkersOpt = None,
    gpus_per_worker: GpusOpt = None,
    estimate: Annotated[
        bool,
        typer.Option(
            "--estimate",
            help="Time the embedder on some of the dataset's records and say how long the job "
            "would take on this machine; compute nothing.",
        ),
    ] = False,
    chunk_rows: Annotated[int | None, flag(EmbedOptions, "chunk_rows")] = EmbedOptions.chunk_rows,
    json: JsonOpt = False,
) -> None:
    """Compute sentence embeddings for a dataset (resumes an interrupted run)."""
    from vendiscope.cli._progress import RichProgress
    from vendiscope.core.vectors.embedding import embed_dataset, estimate_embedding

    params = plugin_params("embedder", embedder, param)
    for key, value in (("model", model), ("device", device), ("batch_size", batch_size)):
        if value is not None:
            params[key] = value
    from vendiscope.core.store.project import Project

    if estimate:
        with Project.open(project) as opened:
            found = estimate_embedding(
                opened, dataset, embedder=embedder, params=params, field=field, name=name,
                progress=RichProgress(),
            )  # fmt: skip
        if json:
            _json_output.emit(_json_output.estimate_document(dataset, found))
            return
        console.print(f"embeddings of {dataset}: {found.describe()}", soft_wrap=True)
        return
    with Project.open(project) as opened:
        result = embed_dataset(
            opened,
            dataset,
            embedder=embedder,
            params=params,
            field=field,
            name=name,
            reuse=reuse,
            engine=engine_choice(engine, address, workers, gpus_per_worker),
            **({"chunk_rows": chunk_rows} if chunk_rows else {}),
            progress=RichProgress(),
        )
    if json:
        document = _json_output.vector_job_document(dataset, result)
        for key in ("embedded", "empty", "truncated"):
            document[key] = result.counts.get(key, 0)
        _json_output.emit(document)
        return
    vs = result.vector_set
    counts = result.counts
    if result.already_complete:
        console.print(f"vector set [bold]{vs.name}[/] is already complete ({vs.n_rows} x {vs.dim})")
        return
    console.print(
        f"vector set [bold]{vs.name}[/]: {vs.n_rows} x {vs.dim} in {result.seconds:.1f} s "
        f"({counts.get('embedded', 0)} texts embedded, {counts.get('reused', 0)} reused"
        + (f", resumed at row {result.resumed_from}" if result.resumed_from else "")
        + ")"
    )
    if counts.get("empty"):
        console.print(
            f"[yellow]{counts['empty']} records have no text in this field[/] (embedded as empty)"
        )
    if counts.get("truncated"):
        console.print(
            f"[yellow]{counts['truncated']} texts were longer than the model accepts[/] "
            "and were truncated"
        )


@app.command("vectors")
@reports_errors
def list_vectors(project: ProjectArg, dataset: DatasetArg, json: JsonOpt = False) -> None:
    """List the vector sets of a dataset."""
    from rich.table import Table

    from vendiscope.core.store import vectors
    from vendiscope.core.store.project import Project
    from vendiscope.core.vectors.resume import resume_command

    with Project.open(project) as opened:
        sets = vectors.list_sets(opened, dataset)
        mapping = opened.dataset(dataset).field_mapping
        states = [vectors.set_state(opened, s) for s in sets]
    commands = [
        resume_command(project, dataset, s, mapping) if state.resumable else None
        for s, state in zip(sets, states, strict=True)
    ]
    if json:
        _json_output.emit(
            [
                {**s.__dict__, "state": state.state, "state_text": state.describe(command),
                 "resume_command": command}
                for s, state, command in zip(sets, states, commands, strict=True)
            ]
        )  # fmt: skip
        return
    if not sets:
        console.print(f"no vector sets yet; compute one with `vendiscope embed PROJECT {dataset}`")
        return
    table = Table("name", "kind", "rows", "dim", "status", "model")
    for s, state in zip(sets, states, strict=True):
        status = state.describe().partition(" — ")[0]  # the resume command goes below
        table.add_row(s.name, s.kind, str(s.n_rows), str(s.dim), status, s.model or "")
    console.print(table)
    for s, state, command in zip(sets, states, commands, strict=True):
        if state.state != vectors.COMPLETE:
            console.print(f"{s.name}: {state.describe(command)}", markup=False, soft_wrap=True)
