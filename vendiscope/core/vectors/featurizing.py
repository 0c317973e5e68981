"""The featurizer job: per-record feature vectors (e.g. proxy-LM gradients for G-Vendi).

Built on :mod:`vendiscope.core.vectors.job`, like embeddings: chunked, committed, resumable,
with progress inside each chunk and a recorded run; computed in this process or, with
``engine="ray"``, by Ray actors (:mod:`vendiscope.core.vectors.engines`).

Rows of records whose content hash (prompt, response, text) already has a row in a committed
chunk of a set with the same ``model_id`` (any dataset of the project) are copied, not
computed (:mod:`vendiscope.core.vectors.reuse`); when that covers the whole dataset, the
model is not even loaded.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from vendiscope.core.base.jobs import CancelToken, Progress
from vendiscope.core.plugin_host.registry import PluginRegistry, default_registry
from vendiscope.core.store.models import RecordRow
from vendiscope.core.store.project import Project
from vendiscope.core.vectors.engines import Engine, EngineSession, PluginWorker, get_engine
from vendiscope.core.vectors.job import (
    CALIBRATION_RECORDS,
    COMMIT_SECONDS,
    ChunkResult,
    ChunkTasks,
    JobEstimate,
    SideSet,
    VectorJob,
    VectorJobResult,
    measure,
    run_vector_job,
)
from vendiscope.core.vectors.options import GradientOptions
from vendiscope.core.vectors.reuse import ReuseCache, assemble_rows, covers_dataset
from vendiscope.core.vectors.signal_sets import IDENTITY, KIND, set_name, signal_config

if TYPE_CHECKING:
    import numpy as np

    from vendiscope.core.plugin_host.interfaces import Featurizer, Signal

DEFAULT_FEATURIZER = "gradients"
# Gradient features are slow per record: small chunks keep resume points close together.
FEATURE_CHUNK_ROWS = 256
FEATURE_KINDS = ("gradient", "feature")


def featurize_dataset(
    project: Project,
    dataset: str,
    *,
    featurizer: str = DEFAULT_FEATURIZER,
    params: dict[str, Any] | None = None,
    name: str | None = None,
    chunk_rows: int | None = GradientOptions.chunk_rows,
    reuse: bool = True,
    registry: PluginRegistry | None = None,
    engine: str | Engine | None = None,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
    commit_seconds: float = COMMIT_SECONDS,
) -> VectorJobResult:
    """Compute ``featurizer``'s vectors for every record of ``dataset`` (created or resumed).

    The vector set is named ``name`` (default: ``FEATURIZER/MODE`` when the featurizer has a
    mode, else ``FEATURIZER``) and its run records everything the featurizer describes.
    ``engine`` is where chunks are computed: ``"local"`` (this process), ``"ray"``, an
    :class:`~vendiscope.core.vectors.engines.Engine`, or ``None`` for the environment's default.
    ``chunk_rows`` ``None`` means up to :data:`FEATURE_CHUNK_ROWS`, fewer when the first rows
    say a chunk would take more than half of ``commit_seconds`` (a resumed set keeps its own).
    ``reuse`` copies rows of identical records (content hash) from committed chunks of sets
    with the same ``model_id``. The result's ``counts`` hold ``featurized`` and ``reused``.
    """
    cancel = cancel or CancelToken()
    instance, params = _create(project, dataset, featurizer, params, registry)
    worker = FeaturizeWorker(type(instance), params, instance)
    chosen = get_engine(engine)
    cache = _cache(project, dataset, name, instance.model_id, instance.dim) if reuse else None
    reused_all = _described_by_source(cache) if covers_dataset(project, dataset, cache) else None
    if reused_all is not None:  # every row is there already: no model, no engine
        starting: Any = _NothingToCompute(instance.model_id, instance.dim, reused_all)
    else:
        n_chunks = -(-project.dataset(dataset).row_count // (chunk_rows or FEATURE_CHUNK_ROWS))
        starting = chosen.start(worker, max_workers=n_chunks)
    with starting as session:
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
            chunk_rows=chunk_rows or FEATURE_CHUNK_ROWS,
            identity=("featurizer", "model_id"),
            description=f"Features of {dataset} ({featurizer}{'/' + mode if mode else ''})",
            size_chunks=chunk_rows is None,
            side=_side_set(identity.get("by_product"), registry),
        )
        if cache is not None and (job.model_id, job.dim) != (instance.model_id, instance.dim):
            cache = _cache(project, dataset, job.name, job.model_id, job.dim)  # the workers'
        return run_vector_job(
            project,
            job,
            _tasks(worker, job.dim, cache, job.side),
            session=session,
            progress=progress,
            cancel=cancel,
            commit_seconds=commit_seconds,
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
    started = time.perf_counter()
    instance, params = _create(project, dataset, featurizer, params, registry)
    worker = FeaturizeWorker(type(instance), params, instance)
    described = worker.identity()["describe"]  # loads the model
    mode = described.get("mode")
    load = time.perf_counter() - started
    found = measure(
        project,
        dataset,
        name or (f"{featurizer}/{mode}" if mode else featurizer),
        _tasks(worker, worker.identity()["dim"], None),
        load_seconds=load,
        sample=sample,
        progress=progress,
        cancel=cancel,
    )
    return dataclasses.replace(
        found,
        memory=str(described.get("memory") or ""),
        expected_peak_bytes=described.get("expected_peak_bytes"),
    )


def _create(
    project: Project,
    dataset: str,
    featurizer: str,
    params: dict[str, Any] | None,
    registry: PluginRegistry | None,
) -> tuple[Featurizer, dict[str, Any]]:
    """The featurizer and its parameters, with those it settles for the dataset's size.

    (:meth:`Featurizer.params_for_rows`, e.g. the gradients' automatic ``dim``): the settled
    parameters go to every worker and into the run, so all chunks agree and a resume finds
    the same ``model_id``.
    """
    registry = registry or default_registry()
    params = dict(params or {})
    instance: Featurizer = registry.create("featurizer", featurizer, **params)
    settled = instance.params_for_rows(project.dataset(dataset).row_count)
    if settled:
        params.update(settled)
        instance = registry.create("featurizer", featurizer, **params)
    return instance, params


def _cache(project: Project, dataset: str, name: str | None, model_id: str, dim: int) -> ReuseCache:
    same = {"model_id": model_id}
    return ReuseCache(project, dataset=dataset, name=name, dim=dim, same=same, kinds=FEATURE_KINDS)


def _described_by_source(cache: ReuseCache | None) -> dict[str, Any] | None:
    """What a source set recorded of its featurizer (the same ``model_id``), if any."""
    for source in cache.sources if cache is not None else ():
        described = source.params.get("describe")
        if isinstance(described, dict):
            return described
    return None


def _side_set(by_product: dict[str, Any] | None, registry: PluginRegistry | None) -> SideSet | None:
    """Where the featurizer's by-product goes: its signal's set, configured as the signal's
    own job configures it, so that job finds the values made (and fills what is missing)."""
    if not by_product:
        return None
    registry = registry or default_registry()
    signal, params = by_product["signal"], dict(by_product["params"])
    if signal not in {c.name for c in registry.contributions("signal")}:
        return None
    instance: Signal = registry.create("signal", signal, **params)
    return SideSet(
        name=set_name(signal),
        kind=KIND,
        model_id=instance.model_id,
        config=signal_config(signal, instance, params),
        dim=len(tuple(instance.columns)),
        identity=IDENTITY,
    )


def _tasks(
    worker: FeaturizeWorker, dim: int, cache: ReuseCache | None, side: SideSet | None = None
) -> ChunkTasks:
    """Driver side of a chunk: copy reused rows, send each distinct new record once. The
    featurizer's by-product goes with a chunk whose every row was computed here."""

    def prepare(records: Sequence[RecordRow]) -> tuple[Any, Any]:
        hits = cache.lookup([r.content_hash for r in records]) if cache is not None else {}
        distinct: dict[str, list[int]] = {}
        for slot, record in enumerate(records):
            if slot not in hits:
                distinct.setdefault(record.content_hash, []).append(slot)
        payload = [records[slots[0]].roles() for slots in distinct.values()]
        return (payload or None), (hits, distinct)

    def assemble(records: Sequence[RecordRow], state: Any, output: Any) -> ChunkResult:
        hits, distinct = state
        features, by_product = output if isinstance(output, tuple) else (output, None)
        chunk = assemble_rows(len(records), dim, hits, features, distinct)
        counts = {"featurized": len(distinct)}
        if hits:
            counts["reused"] = len(hits)
        rows = None
        if side is not None and by_product is not None and not hits:
            rows = assemble_rows(len(records), side.dim, {}, by_product, distinct)
        return ChunkResult(chunk, counts, rows)

    return ChunkTasks(worker, prepare, assemble)


class _NothingToCompute(EngineSession):
    """The session of a job whose rows are all reused: it knows the featurizer's identity
    (from its settings and a source set) and never computes."""

    def __init__(self, model_id: str, dim: int, described: dict[str, Any]) -> None:
        self._identity = {"model_id": model_id, "dim": dim, "describe": described}

    def identity(self) -> dict[str, Any]:
        return dict(self._identity)

    def map(
        self, items: Iterable[tuple[int, Any]], *, cancel: CancelToken, progress_for: Any = None
    ) -> Iterator[tuple[int, Any]]:
        for index, _payload in items:
            raise RuntimeError(f"chunk {index} has rows to compute, but every row was reused")
        yield from ()


class FeaturizeWorker(PluginWorker):
    """Featurizes a chunk's records (payload: their role dicts) wherever the engine runs it."""

    def identity(self) -> dict[str, Any]:
        instance: Featurizer = self.instance
        by_product = instance.by_product
        return {
            "model_id": instance.model_id,
            "dim": instance.dim,
            "describe": instance.describe(),
            "by_product": None if by_product is None else dataclasses.asdict(by_product),
        }

    def compute(
        self, payload: list[dict[str, str | None]], *, progress: Progress, cancel: CancelToken
    ) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
        """The payload's vectors, with the featurizer's by-product when it has one."""
        instance: Featurizer = self.instance
        if instance.by_product is not None:
            return instance.featurize_with_by_product(payload, progress=progress, cancel=cancel)
        return instance.featurize(payload, progress=progress, cancel=cancel)
