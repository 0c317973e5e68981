"""Execution engines without Ray: choosing one, shippable workers, chunks committed in any
order, chunks another writer committed first left alone."""

from __future__ import annotations

import pickle
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import qa_rows, write_jsonl
from tests.core.vectors import _engine_plugins
from vendiscope.core.io.importing import import_dataset
from vendiscope.core.plugin_host import PluginRegistry
from vendiscope.core.store import vectors
from vendiscope.core.vectors import engines
from vendiscope.core.vectors.engines import (
    Engine,
    EngineError,
    EngineSession,
    LocalEngine,
    PluginWorker,
    get_engine,
)
from vendiscope.core.vectors.featurizing import FeaturizeWorker, featurize_dataset
from vendiscope.core.vectors.job import VectorJob, as_tasks, run_vector_job


@pytest.fixture
def registry() -> PluginRegistry:
    registry = PluginRegistry.discover(plugin_dir=None)
    registry.add_manifest(_engine_plugins.manifest)
    return registry


def test_choosing_an_engine(monkeypatch) -> None:
    monkeypatch.delenv(engines.ENV_ENGINE, raising=False)
    assert isinstance(get_engine(), LocalEngine) and isinstance(get_engine("local"), LocalEngine)
    with pytest.raises(EngineError, match="unknown engine 'spark'"):
        get_engine("spark")
    with pytest.raises(EngineError, match="address, workers: only for the ray engine"):
        get_engine("local", address="ray://h:10001", workers=2, gpus_per_worker=None)
    monkeypatch.setenv(engines.ENV_ENGINE, "ray")
    monkeypatch.setenv(engines.ENV_RAY_ADDRESS, "head:6379")
    chosen = get_engine(workers=3)  # built, not connected: nothing starts yet
    assert chosen.name == "ray" and chosen.address == "head:6379" and chosen.workers == 3
    given = LocalEngine()
    assert get_engine(given) is given


def test_ray_missing_is_a_clear_error(monkeypatch) -> None:
    from vendiscope.core.vectors.engines import ray_engine

    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(EngineError, match=r"pip install 'vendiscope\[ray\]'"):
        ray_engine.ray_module()


def test_workers_ship_without_their_model() -> None:
    worker = FeaturizeWorker(_engine_plugins.ToyFeaturizer, {"dim": 4})
    assert worker.identity()["model_id"] == "toy-4"  # creates the instance here
    copy = pickle.loads(pickle.dumps(worker))
    assert copy._instance is None and copy.params == {"dim": 4}
    assert copy.identity() == worker.identity()
    local_only = as_tasks(lambda records, progress: None).worker
    with pytest.raises(TypeError, match="cannot run on Ray"):
        pickle.dumps(local_only)


class ReversedEngine(Engine):
    """Computes every chunk first, then hands the results back last chunk first."""

    name = "reversed"

    def __init__(self, project=None, steal: int | None = None) -> None:
        self.project, self.steal = project, steal

    def start(self, worker, *, max_workers=None) -> EngineSession:
        engine = self

        class Session(EngineSession):
            def identity(self):
                return worker.identity()

            def map(self, items, *, cancel, progress_for=None):
                from vendiscope.core.base.jobs import NullProgress

                worker.setup()
                done = [(i, worker.compute(p, progress=NullProgress(), cancel=cancel))
                        for i, p in items]  # fmt: skip
                if engine.steal is not None:  # another writer commits this chunk first
                    (target,) = vectors.list_sets(engine.project, "d")
                    start, stop = target.chunk_range(engine.steal)
                    stolen = np.zeros((stop - start, target.dim), np.float32)
                    vectors.write_chunk(engine.project, target, engine.steal, stolen)
                yield from reversed(done)

        return Session()


def test_chunks_are_committed_in_any_order(project, tmp_path: Path, registry) -> None:
    import_dataset(project, write_jsonl(tmp_path / "d.jsonl", qa_rows(95)), name="d")
    import_dataset(project, write_jsonl(tmp_path / "e.jsonl", qa_rows(95)), name="e")
    kwargs = {
        "featurizer": "toy",
        "chunk_rows": 10,
        "registry": registry,
        "name": "toy",
        "reuse": False,
    }
    out_of_order = featurize_dataset(project, "d", engine=ReversedEngine(), **kwargs)
    straight = featurize_dataset(project, "e", engine="local", **kwargs)
    assert out_of_order.counts == straight.counts == {"featurized": 95}
    assert np.array_equal(vectors.load(project, "d", "toy"), vectors.load(project, "e", "toy"))
    assert project.runs("d")[-1].params["engine"] == {"engine": "reversed"}


def test_a_chunk_committed_by_another_writer_is_kept(project, tmp_path: Path, registry) -> None:
    import_dataset(project, write_jsonl(tmp_path / "d.jsonl", qa_rows(50)), name="d")
    result = featurize_dataset(project, "d", featurizer="toy", chunk_rows=10, registry=registry,
                               engine=ReversedEngine(project, steal=2), name="toy")  # fmt: skip
    assert result.counts == {"featurized": 40}  # chunk 2 was not this job's to count
    matrix = vectors.load(project, "d", "toy")
    assert not matrix[20:30].any() and matrix[:20].any() and matrix[30:].any()


def test_plain_compute_functions_still_run_locally(project, tmp_path: Path) -> None:
    from vendiscope.core.vectors.job import ChunkResult

    import_dataset(project, write_jsonl(tmp_path / "d.jsonl", qa_rows(25)), name="d")
    job = VectorJob("d", "seq", "feature", "test", "seq-v1", {"model_id": "seq-v1"}, dim=1,
                    chunk_rows=10)  # fmt: skip
    result = run_vector_job(project, job, lambda records, progress: ChunkResult(
        np.array([[r.seq] for r in records], np.float32)))  # fmt: skip
    assert result.vector_set.status == "complete"
    assert vectors.load(project, "d", "seq").ravel().tolist() == list(range(25))


def test_plugin_worker_builds_its_instance_once() -> None:
    worker = FeaturizeWorker(_engine_plugins.ToyFeaturizer, {"dim": 3})
    assert isinstance(worker, PluginWorker)
    assert worker.instance is worker.instance and worker.instance.dim == 3


def test_cli_refuses_ray_options_for_the_local_engine(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from vendiscope.cli._app import app

    project = tmp_path / "p.vscope"
    runner = CliRunner()
    data = write_jsonl(tmp_path / "d.jsonl", qa_rows(3))
    assert runner.invoke(app, ["import", str(project), str(data), "--name", "d"]).exit_code == 0
    result = runner.invoke(app, ["embed", str(project), "d", "--engine", "local", "--workers", "2"])
    assert result.exit_code == 1 and "only for the ray engine" in result.output


def test_ray_worker_count_fits_the_cluster() -> None:
    from vendiscope.core.vectors.engines.ray_engine import RayEngine

    class Cluster:
        def __init__(self, cpus: float, gpus: float = 0) -> None:
            self.resources = {"CPU": cpus, "GPU": gpus} if gpus else {"CPU": cpus}

        def cluster_resources(self) -> dict[str, float]:
            return self.resources

    assert RayEngine().plan(Cluster(2), None) == (2, 0)
    assert RayEngine().plan(Cluster(16, gpus=4), 100) == (4, 1.0)
    assert RayEngine(gpus_per_worker=0.5).plan(Cluster(16, gpus=4), 3) == (3, 0.5)
    assert RayEngine(workers=8).plan(Cluster(2), None) == (2, 0)  # never waits for resources
    with pytest.raises(EngineError, match="reserve 1 GPU but the cluster has 0"):
        RayEngine(gpus_per_worker=1).plan(Cluster(8), None)
