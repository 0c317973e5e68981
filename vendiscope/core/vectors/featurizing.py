"""The featurizer job: per-record feature vectors (e.g. proxy-LM gradients for G-Vendi).

Built on :mod:`vendiscope.core.vectors.job`, like embeddings: chunked, committed, resumable,
with progress inside each chunk and a recorded run; computed in this process or, with
``engine="ray"``, by Ray actors (:mod:`vendiscope.core.vectors.engines`).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from vendiscope.core.base.jobs import CancelToken, Progress
from vendiscope.core.plugins.registry import PluginRegistry, default_registry
from vendiscope.core.store.project import Project
from vendiscope.core.vectors.engines import Engine, PluginWorker, get_engine
from vendiscope.core.vectors.job import (
    CALIBRATION_RECORDS,
    ChunkResult,
    ChunkTasks,
    JobEstimate,
    VectorJob,
    VectorJobResult,
    measure,
    run_vector_job,
)

if TYPE_CHECKING:
    import numpy as np

    from vendiscope.core.plugins.interfaces import Featurizer

DEFAULT_FEATURIZER = "gradients"
# Gradient features are slow per record: small chunks keep resume points close together.
FEATURE_CHUNK_ROWS = 256


def featurize_dataset(
    project: Project,
    dataset: str,
    *,
    featurizer: str = DEFAULT_FEATURIZER,
    params: dict[str, Any] | None = None,
    name: str | None = None,
    chunk_rows: int = FEATURE_CHUNK_ROWS,
    registry: PluginRegistry | None = None,
    engine: str | Engine | None = None,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> VectorJobResult:
    """Compute ``featurizer``'s vectors for every record of ``dataset`` (created or resumed).

    The vector set is named ``name`` (default: ``FEATURIZER/MODE`` when the featurizer has a
    mode, else ``FEATURIZER``) and its run records everything the featurizer describes.
    ``engine`` is where chunks are computed: ``"local"`` (this process), ``"ray"``, an
    :class:`~vendiscope.core.vectors.engines.Engine`, or ``None`` for the environment's default.
    """
    cancel = cancel or CancelToken()
    params = dict(params or {})
    instance: Featurizer = (registry or default_registry()).create(
        "featurizer", featurizer, **params
    )
    worker = FeaturizeWorker(type(instance), params, instance)
    chosen = get_engine(engine)
    n_chunks = -(-project.dataset(dataset).row_count // chunk_rows)
    with chosen.start(worker, max_workers=n_chunks) as session:
        identity = session.identity()
        described = identity["describe"]
        mode = described.get("mode")
        config = {
            "featurizer": featurizer,
            "featurizer_params": params,
            "model_id": identity["model_id"],
            "describe": described,
            "engine": chosen.describe(),
        }
        job = VectorJob(
            dataset=dataset,
            name=name or (f"{featurizer}/{mode}" if mode else featurizer),
            kind="gradient" if featurizer == "gradients" else "feature",
            plugin=f"featurizer:{featurizer}",
            model_id=identity["model_id"],
            config=config,
            dim=identity["dim"],
            chunk_rows=chunk_rows,
            identity=("featurizer", "model_id"),
            description=f"Features of {dataset} ({featurizer}{'/' + mode if mode else ''})",
        )
        return run_vector_job(
            project, job, _tasks(worker), session=session, progress=progress, cancel=cancel
        )


def estimate_features(
    project: Project,
    dataset: str,
    *,
    featurizer: str = DEFAULT_FEATURIZER,
    params: dict[str, Any] | None = None,
    name: str | None = None,
    sample: int = CALIBRATION_RECORDS,
    registry: PluginRegistry | None = None,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> JobEstimate:
    """How long :func:`featurize_dataset` with these settings should take on this machine.

    Loads the featurizer's model (timed), computes ``sample`` records spread over the dataset
    (timed; see :func:`~vendiscope.core.vectors.job.measure`) and extrapolates to the records
    left to do. Nothing is written to the project.
    """
    params = dict(params or {})
    started = time.perf_counter()
    instance: Featurizer = (registry or default_registry()).create(
        "featurizer", featurizer, **params
    )
    worker = FeaturizeWorker(type(instance), params, instance)
    mode = worker.identity()["describe"].get("mode")  # loads the model
    load = time.perf_counter() - started
    return measure(
        project,
        dataset,
        name or (f"{featurizer}/{mode}" if mode else featurizer),
        _tasks(worker),
        load_seconds=load,
        sample=sample,
        progress=progress,
        cancel=cancel,
    )


def _tasks(worker: FeaturizeWorker) -> ChunkTasks:
    return ChunkTasks(
        worker,
        prepare=lambda records: ([r.roles() for r in records], None),
        assemble=lambda records, state, features: ChunkResult(
            features, {"featurized": len(records)}
        ),
    )


class FeaturizeWorker(PluginWorker):
    """Featurizes a chunk's records (payload: their role dicts) wherever the engine runs it."""

    def identity(self) -> dict[str, Any]:
        instance: Featurizer = self.instance
        return {"model_id": instance.model_id, "dim": instance.dim, "describe": instance.describe()}

    def compute(
        self, payload: list[dict[str, str | None]], *, progress: Progress, cancel: CancelToken
    ) -> np.ndarray:
        return self.instance.featurize(payload, progress=progress, cancel=cancel)
