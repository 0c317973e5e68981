"""The featurizer job: per-record feature vectors (e.g. proxy-LM gradients for G-Vendi).

Built on :mod:`vendiscope.core.vectorjob`, like embeddings: chunked, committed, resumable,
with progress inside each chunk and a recorded run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from vendiscope.core.jobs import CancelToken, Progress
from vendiscope.core.models import RecordRow
from vendiscope.core.plugins.registry import PluginRegistry, default_registry
from vendiscope.core.project import Project
from vendiscope.core.vectorjob import ChunkResult, VectorJob, VectorJobResult, run_vector_job

if TYPE_CHECKING:
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
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> VectorJobResult:
    """Compute ``featurizer``'s vectors for every record of ``dataset`` (created or resumed).

    The vector set is named ``name`` (default: ``FEATURIZER/MODE`` when the featurizer has a
    mode, else ``FEATURIZER``) and its run records everything the featurizer describes.
    """
    cancel = cancel or CancelToken()
    params = dict(params or {})
    instance: Featurizer = (registry or default_registry()).create(
        "featurizer", featurizer, **params
    )
    described = instance.describe()
    mode = described.get("mode")
    config = {
        "featurizer": featurizer,
        "featurizer_params": params,
        "model_id": instance.model_id,
        "describe": described,
    }
    job = VectorJob(
        dataset=dataset,
        name=name or (f"{featurizer}/{mode}" if mode else featurizer),
        kind="gradient" if featurizer == "gradients" else "feature",
        plugin=f"featurizer:{featurizer}",
        model_id=instance.model_id,
        config=config,
        dim=instance.dim,
        chunk_rows=chunk_rows,
        identity=("featurizer", "model_id"),
        description=f"Features of {dataset} ({featurizer}{'/' + mode if mode else ''})",
    )

    def compute(records: Sequence[RecordRow], chunk_progress: Progress) -> ChunkResult:
        roles = [r.roles() for r in records]
        features = instance.featurize(roles, progress=chunk_progress, cancel=cancel)
        return ChunkResult(features, {"featurized": len(records)})

    return run_vector_job(project, job, compute, progress=progress, cancel=cancel)
