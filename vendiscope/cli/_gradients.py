"""``vendiscope gradients``: projected per-example gradients of a proxy LM (G-Vendi's features)."""

from __future__ import annotations

from typing import Annotated

import typer

from vendiscope.cli import _json_output
from vendiscope.cli._app import DatasetArg, JsonOpt, ProjectArg, app
from vendiscope.cli._options import flag
from vendiscope.cli._output import console, plugin_params, reports_errors
from vendiscope.cli._scale import AddressOpt, EngineOpt, GpusOpt, WorkersOpt, engine_choice
from vendiscope.core.vectors.options import GradientOptions


@app.command()
@reports_errors
def gradients(
    project: ProjectArg,
    dataset: DatasetArg,
    model: Annotated[
        str | None,
        typer.Option(help="Proxy LM folder or hub id (default: bundled SmolLM2-135M-Instruct)."),
    ] = None,
    mode: Annotated[str, flag(GradientOptions, "mode")] = GradientOptions.mode,
    preset: Annotated[str | None, flag(GradientOptions, "preset")] = GradientOptions.preset,
    device: Annotated[str | None, typer.Option(help="auto, cpu, cuda, cuda:1 ...")] = None,
    batch_size: Annotated[
        int | None, typer.Option(min=1, help="Most examples per batch (default 16 on a CPU).")
    ] = None,
    max_memory: Annotated[
        str | None,
        typer.Option(
            help="Peak memory to plan batches for, e.g. 2.5GB or 800MB (default: 2.5GB on a "
            "CPU, 80% of free GPU memory). Changes the batching, never the rows."
        ),
    ] = None,
    name: Annotated[
        str | None, typer.Option(help="Vector set name (default: gradients/MODE).")
    ] = None,
    param: Annotated[
        list[str] | None,
        typer.Option("--param", "-p", help="Other featurizer parameter NAME=VALUE, repeatable."),
    ] = None,
    engine: EngineOpt = None,
    address: AddressOpt = None,
    workers: WorkersOpt = None,
    gpus_per_worker: GpusOpt = None,
    estimate: Annotated[
        bool,
        typer.Option(
            "--estimate",
            help="Time the job on 8 of the dataset's records and say how long it would take "
            "on this machine; compute nothing.",
        ),
    ] = False,
    chunk_rows: Annotated[
        int | None, flag(GradientOptions, "chunk_rows")
    ] = GradientOptions.chunk_rows,
    json: JsonOpt = False,
) -> None:
    """Compute projected per-example gradients of a proxy LM (the features of G-Vendi).

    Chunks are committed as they are done: an interrupted run resumes where it stopped when
    the same command is run again (`vendiscope vectors` shows the command).
    """
    from vendiscope.cli._progress import RichProgress
    from vendiscope.core.gradients.presets import set_name, with_preset
    from vendiscope.core.store.project import Project
    from vendiscope.core.vectors.featurizing import (
        DEFAULT_FEATURIZER,
        estimate_features,
        featurize_dataset,
    )

    params = with_preset(preset, plugin_params("featurizer", DEFAULT_FEATURIZER, param))
    params["mode"] = mode
    name = set_name(name, preset, mode)
    options = (
        ("model", model),
        ("device", device),
        ("batch_size", batch_size),
        ("max_memory", max_memory),
    )
    for key, value in options:
        if value is not None:
            params[key] = value
    if estimate:
        with Project.open(project) as opened:
            found = estimate_features(
                opened, dataset, params=params, name=name, progress=RichProgress()
            )
        if json:
            _json_output.emit(_json_output.estimate_document(dataset, found))
            return
        console.print(f"gradients of {dataset}: {found.describe()}", soft_wrap=True)
        return
    with Project.open(project) as opened:
        result = featurize_dataset(
            opened,
            dataset,
            params=params,
            name=name,
            **({"chunk_rows": chunk_rows} if chunk_rows else {}),
            engine=engine_choice(engine, address, workers, gpus_per_worker),
            progress=RichProgress(),
        )
    if json:
        next_command = _json_output.command_line(
            "vendiscope", "score", project, dataset, "--metric", "gvendi"
        )
        document = _json_output.vector_job_document(dataset, result, next_command=next_command)
        document["featurized"] = result.counts.get("featurized", 0)
        _json_output.emit(document)
        return
    vs = result.vector_set
    if result.already_complete:
        console.print(f"vector set [bold]{vs.name}[/] is already complete ({vs.n_rows} x {vs.dim})")
        return
    resumed = f", resumed at row {result.resumed_from}" if result.resumed_from else ""
    counts = result.counts
    done = f" ({counts.get('featurized', 0)} computed, {counts.get('reused', 0)} reused)"
    console.print(
        f"vector set [bold]{vs.name}[/]: {vs.n_rows} x {vs.dim} in {result.seconds:.1f} s"
        f"{done}{resumed}; next: `vendiscope score PROJECT {dataset} --metric gvendi`"
    )
