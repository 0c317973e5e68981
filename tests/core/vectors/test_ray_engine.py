"""The Ray engine on a local two-CPU cluster: the same vectors as the local engine, chunks
committed once each, a worker that dies mid-job replaced, a failed job resumed."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.conftest import qa_rows, write_jsonl
from tests.core.vectors import _engine_plugins
from vendiscope.core.base.jobs import RecordingProgress
from vendiscope.core.io.importing import import_dataset
from vendiscope.core.plugin_host import PluginRegistry
from vendiscope.core.store import vectors
from vendiscope.core.store.project import Project
from vendiscope.core.vectors.embedding import embed_dataset
from vendiscope.core.vectors.engines import EngineError
from vendiscope.core.vectors.featurizing import featurize_dataset

ray = pytest.importorskip("ray")

DEMO = Path(__file__).resolve().parents[3] / "vendiscope" / "resources" / "demo" / "demo.jsonl"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def cluster():
    """A local Ray cluster with 2 CPUs, shared by the tests of this module."""
    import os

    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    started = not ray.is_initialized()
    if started:
        ray.init(
            num_cpus=2,
            include_dashboard=False,
            log_to_driver=False,
            object_store_memory=128 * 2**20,
        )
    yield
    if started:
        ray.shutdown()


@pytest.fixture(scope="module")
def registry() -> PluginRegistry:
    registry = PluginRegistry.discover(plugin_dir=None)
    registry.add_manifest(_engine_plugins.manifest)
    return registry


def chunk_rows_of(project: Project, dataset: str, name: str) -> list[tuple[int, int]]:
    with project.engine.connect() as connection:
        set_id = vectors.get_set(project, dataset, name).id
        return [
            tuple(row)
            for row in connection.exec_driver_sql(
                f"SELECT chunk_index, n_rows FROM vector_chunks WHERE vector_set_id = {set_id} "
                "ORDER BY chunk_index"
            )
        ]


def test_embedding_on_ray_equals_local_with_a_worker_killed(cluster, registry, tmp_path) -> None:
    source = tmp_path / "demo.jsonl"
    lines = DEMO.read_bytes().splitlines()[:40]
    source.write_bytes(b"\n".join(lines) + b"\n")
    with Project.create(tmp_path / "local.vscope") as project:
        import_dataset(project, source, name="demo")
        local = embed_dataset(project, "demo", name="minilm", chunk_rows=8, engine="local")
        expected = vectors.load(project, "demo", "minilm")
        victim = project.records("demo", 21, 1)[0].response

    marker = tmp_path / "crashed"
    progress = RecordingProgress()
    with Project.create(tmp_path / "ray.vscope") as project:
        import_dataset(project, source, name="demo")
        result = embed_dataset(
            project,
            "demo",
            embedder="crash-once-minilm",
            params={"crash_on": victim, "crash_marker": str(marker)},
            name="minilm",
            chunk_rows=8,
            registry=registry,
            engine="ray",
            progress=progress,
        )
        assert marker.exists(), "the worker holding chunk 2 should have died once"
        got = vectors.load(project, "demo", "minilm")
        assert chunk_rows_of(project, "demo", "minilm") == [(i, 8) for i in range(5)]
        run = project.runs("demo")[-1]
        assert run.status == "complete" and run.params["engine"]["engine"] == "ray"
    assert result.vector_set.model == local.vector_set.model  # the same model id
    assert result.counts["embedded"] == local.counts["embedded"] == 40
    assert got.shape == expected.shape == (40, 384)
    np.testing.assert_allclose(got, expected, atol=2e-5)
    assert progress.updates[-1] == (40, 40)


def test_gradients_on_ray_equal_local(cluster, tmp_path) -> None:
    from tests.core.gradients.test_gradients import tiny_model, tiny_tokenizer, varied_records

    model_dir = tmp_path / "tiny-lm"
    tokenizer = tiny_tokenizer()
    tiny_model(len(tokenizer), tie=True).save_pretrained(model_dir)
    tokenizer.save_pretrained(model_dir)
    rows = [
        {"question": r.get("prompt") or "", "answer": r.get("response") or ""}
        for r in varied_records(12)
    ]
    source = write_jsonl(tmp_path / "g.jsonl", rows)
    params = {"model": str(model_dir), "mode": "fast", "dim": 64, "device": "cpu"}
    matrices = {}
    for engine in ("local", "ray"):
        with Project.create(tmp_path / f"{engine}.vscope") as project:
            import_dataset(project, source, name="g")
            result = featurize_dataset(
                project, "g", params=params, chunk_rows=4, engine=engine, name="grad"
            )
            assert result.vector_set.status == "complete"
            matrices[engine] = vectors.load(project, "g", "grad")
    assert matrices["ray"].shape == (12, 64)
    np.testing.assert_allclose(matrices["ray"], matrices["local"], atol=1e-5)


def test_a_plugin_error_stops_the_job_and_a_rerun_resumes(cluster, registry, tmp_path) -> None:
    source = write_jsonl(tmp_path / "d.jsonl", qa_rows(60))
    with Project.create(tmp_path / "p.vscope") as project:
        import_dataset(project, source, name="d")
        failing = {"fail_on": "What is 55 +", "fail_delay": 1.0}
        with pytest.raises(ValueError, match="refuses 'What is 55 \\+'"):
            featurize_dataset(
                project, "d", featurizer="toy", params=failing, chunk_rows=10,
                registry=registry, engine="ray", name="toy",
            )  # fmt: skip
        assert project.runs("d")[-1].status == "failed"
        (partial,) = vectors.list_sets(project, "d")
        assert partial.status == "running" and 10 <= partial.committed_rows <= 50
        committed = partial.committed_rows

        resumed = featurize_dataset(
            project, "d", featurizer="toy", chunk_rows=10, registry=registry, engine="ray",
            name="toy",
        )  # fmt: skip
        assert resumed.resumed_from == committed
        assert resumed.counts["featurized"] == 60 - committed
        got = vectors.load(project, "d", "toy")
        assert [n for _, n in chunk_rows_of(project, "d", "toy")] == [10] * 6

        import_dataset(project, source, name="e")
        featurize_dataset(
            project, "e", featurizer="toy", chunk_rows=10, registry=registry, engine="local",
            name="toy", reuse=False,
        )  # fmt: skip
        assert np.array_equal(got, vectors.load(project, "e", "toy"))


def test_a_record_that_kills_every_worker_fails_with_its_chunk(cluster, registry, tmp_path) -> None:
    from vendiscope.core.vectors.engines.ray_engine import RayEngine

    source = write_jsonl(tmp_path / "d.jsonl", qa_rows(20))
    with Project.create(tmp_path / "p.vscope") as project:
        import_dataset(project, source, name="d")
        engine = RayEngine(workers=2, max_restarts=1, max_chunk_attempts=2)
        with pytest.raises(EngineError, match=r"chunk 1 was lost 2 times"):
            featurize_dataset(
                project, "d", featurizer="toy", params={"crash_on": "What is 15 +"},
                chunk_rows=10, registry=registry, engine=engine, name="toy",
            )  # fmt: skip
        (partial,) = vectors.list_sets(project, "d")
        assert partial.committed_rows in (0, 10)  # chunk 0, when it finished first


def test_the_desktop_apps_job_process_runs_on_ray(cluster, tmp_path, monkeypatch) -> None:
    """The GUI runs model jobs in a child process (``gui.job_process``); with
    ``VENDISCOPE_ENGINE=ray`` their chunks go to Ray and progress still reaches the panel."""
    from vendiscope.core.base.jobs import CancelToken
    from vendiscope.gui.jobs import tasks
    from vendiscope.gui.jobs.process import run_in_process

    monkeypatch.setenv("VENDISCOPE_ENGINE", "ray")
    source = tmp_path / "demo.jsonl"
    source.write_bytes(b"\n".join(DEMO.read_bytes().splitlines()[:30]) + b"\n")
    location = tmp_path / "p.vscope"
    with Project.create(location) as project:
        import_dataset(project, source, name="d")
    progress = RecordingProgress()
    result = run_in_process(tasks.embed, (str(location), "d"), {"chunk_rows": 10},
                            progress=progress, cancel=CancelToken())  # fmt: skip
    assert "30 x 384" in result.message
    assert progress.updates == [(0.0, 30), (10.0, 30), (20.0, 30), (30.0, 30)]
    with Project.open(location) as project:
        assert project.runs("d")[-1].params["engine"]["engine"] == "ray"
