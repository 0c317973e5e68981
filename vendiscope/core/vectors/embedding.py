"""The embedding job: a vector set of sentence embeddings for a dataset, chunk by chunk.

Built on :mod:`vendiscope.core.vectors.job`: each chunk is committed on its own and a killed or
cancelled job resumes from its last committed chunk with the same result. Chunks are embedded
in this process or, with ``engine="ray"``, by Ray actors (:mod:`vendiscope.core.vectors.engines`).
Texts whose content hash already has a vector from the same model and field (in any dataset
of the project, :mod:`vendiscope.core.vectors.reuse`) are copied instead of embedded again,
and each distinct text is embedded once.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from vendiscope.core.base.errors import ProjectError
from vendiscope.core.base.jobs import CancelToken, Progress
from vendiscope.core.io.fields import FieldMapping
from vendiscope.core.plugin_host.registry import PluginRegistry, default_registry
from vendiscope.core.store.models import RecordRow
from vendiscope.core.store.project import Project
from vendiscope.core.store.vectors import DEFAULT_CHUNK_ROWS
from vendiscope.core.vectors.engines import Engine, PluginWorker, get_engine
from vendiscope.core.vectors.job import (
    CALIBRATION_RECORDS,
    COMMIT_SECONDS,
    ChunkResult,
    ChunkTasks,
    JobEstimate,
    VectorJob,
    VectorJobResult,
    measure,
    run_vector_job,
)
from vendiscope.core.vectors.options import FIELDS, EmbedOptions
from vendiscope.core.vectors.reuse import ReuseCache, assemble_rows

if TYPE_CHECKING:
    import numpy as np

    from vendiscope.core.plugin_host.interfaces import Embedder

DEFAULT_EMBEDDER = EmbedOptions.embedder


def resolve_field(field: str, mapping: dict[str, Any]) -> str:
    """``auto`` becomes ``prompt+response`` when the dataset has either, else ``text``."""
    if field not in FIELDS:
        raise ProjectError(f"unknown field '{field}' (choose one of: {', '.join(FIELDS)})")
    if field != "auto":
        return field
    roles = FieldMapping.from_json(mapping).roles
    return "prompt+response" if ("prompt" in roles or "response" in roles) else "text"


def text_of(record: RecordRow, field: str) -> str:
    """The text a record contributes for ``field`` ("" when it has none)."""
    if field == "prompt+response":
        parts = [record.prompt, record.response]
    elif field == "all":
        parts = [record.prompt, record.response, record.text]
    else:
        parts = [getattr(record, field)]
    return "\n\n".join(p for p in parts if p)


def embed_dataset(
    project: Project,
    dataset: str,
    *,
    embedder: str = EmbedOptions.embedder,
    params: dict[str, Any] | None = None,
    field: str = EmbedOptions.field,
    name: str | None = None,
    chunk_rows: int | None = EmbedOptions.chunk_rows,
    reuse: bool = EmbedOptions.reuse,
    registry: PluginRegistry | None = None,
    engine: str | Engine | None = None,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
    commit_seconds: float = COMMIT_SECONDS,
) -> VectorJobResult:
    """Embed every record of ``dataset`` into the vector set ``name`` (created or resumed).

    Parameters
    ----------
    embedder, params
        The embedder plugin and its parameters (``vendiscope plugins`` lists embedders).
    field
        Which text to embed: ``prompt``, ``response``, ``prompt+response``, ``text``, ``all``,
        or ``auto``.
    chunk_rows
        Rows per committed chunk; ``None``: up to 4,096, fewer when the first rows timed say
        a chunk would take more than half of ``commit_seconds`` (a new set; a resumed one
        keeps its own).
    reuse
        Copy vectors of identical records (same content hash) from committed chunks of other
        vector sets made with the same model and field.
    engine
        Where chunks are embedded: ``"local"`` (this process), ``"ray"``, an
        :class:`~vendiscope.core.vectors.engines.Engine`, or ``None`` for the environment's default
        (see :func:`~vendiscope.core.vectors.engines.get_engine`).

    The result's ``counts`` hold ``embedded``, ``reused``, ``empty`` and ``truncated``.
    """
    cancel = cancel or CancelToken()
    options = EmbedOptions(field=field, embedder=embedder, reuse=reuse, chunk_rows=chunk_rows)
    field, embedder, reuse, chunk_rows = (
        options.field,
        options.embedder,
        options.reuse,
        options.chunk_rows,
    )  # checked and typed once, here
    params = dict(params or {})
    field = resolve_field(field, project.dataset(dataset).field_mapping)
    instance: Embedder = (registry or default_registry()).create("embedder", embedder, **params)
    worker = EmbedWorker(type(instance), params, instance)
    chosen = get_engine(engine)
    n_chunks = -(-project.dataset(dataset).row_count // (chunk_rows or DEFAULT_CHUNK_ROWS))
    with chosen.start(worker, max_workers=n_chunks) as session:
        identity = session.identity()
        config = {
            "embedder": embedder,
            "embedder_params": params,
            "field": field,
            "model_id": identity["model_id"],
            "engine": chosen.describe(),
        }
        job = VectorJob(
            dataset=dataset,
            name=name or f"{embedder}/{field}",
            kind="embedding",
            plugin=f"embedder:{embedder}",
            model_id=identity["model_id"],
            config=config,
            dim=identity["dim"],
            chunk_rows=chunk_rows or DEFAULT_CHUNK_ROWS,
            description=f"Embedding {dataset} ({field})",
            identity=("embedder", "field", "model_id"),
            size_chunks=chunk_rows is None,
        )
        cache = None
        if reuse:
            same = {"model_id": job.model_id, "field": field}
            cache = ReuseCache(project, dataset=dataset, name=job.name, dim=job.dim, same=same,
                               kinds=("embedding",))  # fmt: skip
        tasks = _embedding_tasks(worker, field, job.dim, cache)
        return run_vector_job(
            project,
            job,
            tasks,
            session=session,
            progress=progress,
            cancel=cancel,
            commit_seconds=commit_seconds,
        )


def estimate_embedding(
    project: Project,
    dataset: str,
    *,
    embedder: str = DEFAULT_EMBEDDER,
    params: dict[str, Any] | None = None,
    field: str = "auto",
    name: str | None = None,
    sample: int = CALIBRATION_RECORDS,
    registry: PluginRegistry | None = None,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> JobEstimate:
    """How long :func:`embed_dataset` with these settings should take on this machine.

    Loads the embedder (timed), embeds ``sample`` records spread over the dataset (timed;
    see :func:`~vendiscope.core.vectors.job.measure`) and extrapolates to the records left.
    Vectors reused from other sets are not counted, so a job that reuses many is faster.
    """
    params = dict(params or {})
    field = resolve_field(field, project.dataset(dataset).field_mapping)
    started = time.perf_counter()
    instance: Embedder = (registry or default_registry()).create("embedder", embedder, **params)
    worker = EmbedWorker(type(instance), params, instance)
    dim = worker.identity()["dim"]  # loads the model
    load = time.perf_counter() - started
    tasks = _embedding_tasks(worker, field, dim, None)
    return measure(
        project,
        dataset,
        name or f"{embedder}/{field}",
        tasks,
        load_seconds=load,
        sample=sample,
        progress=progress,
        cancel=cancel,
    )


class EmbedWorker(PluginWorker):
    """Embeds a chunk's distinct new texts, wherever the engine runs it (payload: the texts)."""

    def identity(self) -> dict[str, Any]:
        return {"model_id": self.instance.model_id, "dim": self.instance.dim}

    def compute(
        self, payload: list[str], *, progress: Progress, cancel: CancelToken
    ) -> tuple[np.ndarray | None, int]:
        instance: Embedder = self.instance
        embedded = None
        if payload:
            # progress after every batch of the embedder, and its cancel checks between them
            embedded = instance.embed(payload, progress=progress, cancel=cancel)
        return embedded, instance.count_truncated(payload)


def _embedding_tasks(
    worker: EmbedWorker, field: str, dim: int, cache: ReuseCache | None
) -> ChunkTasks:
    """Driver side of a chunk: reuse cached vectors, send each distinct new text once."""

    def prepare(records: Sequence[RecordRow]) -> tuple[list[str] | None, Any]:
        texts = [text_of(r, field) for r in records]
        hits = cache.lookup([r.content_hash for r in records]) if cache is not None else {}
        distinct: dict[str, list[int]] = {}
        for slot, text in enumerate(texts):
            if slot not in hits:
                distinct.setdefault(text, []).append(slot)
        return (list(distinct) or None), (texts, hits, distinct)

    def assemble(records: Sequence[RecordRow], state: Any, output: Any) -> ChunkResult:
        texts, hits, distinct = state
        embedded, truncated = output if output is not None else (None, 0)
        chunk = assemble_rows(len(records), dim, hits, embedded, distinct)
        return ChunkResult(
            chunk,
            {
                "embedded": len(distinct),
                "reused": len(hits),
                "empty": sum(1 for t in texts if not t),
                "truncated": truncated,
            },
        )

    return ChunkTasks(worker, prepare, assemble)
