"""The embedding job: a vector set of sentence embeddings for a dataset, chunk by chunk.

Each chunk of records is embedded and committed on its own; a job that is killed or
cancelled resumes from its last committed chunk and produces the same matrix. Texts whose
content hash already has a vector from the same model (in any dataset of the project) are
not embedded again.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from vendiscope.core.errors import ProjectError
from vendiscope.core.fields import FieldMapping
from vendiscope.core.jobs import CancelToken, NullProgress, Progress
from vendiscope.core.models import RecordRow
from vendiscope.core.plugins.registry import PluginRegistry, default_registry
from vendiscope.core.project import Project
from vendiscope.core.runs import finish_run, start_run
from vendiscope.core.store import vectors
from vendiscope.core.store.vectors import DEFAULT_CHUNK_ROWS, VectorSetInfo

if TYPE_CHECKING:
    import numpy as np

    from vendiscope.core.plugins.interfaces import Embedder

FIELDS = ("auto", "prompt", "response", "prompt+response", "text", "all")
DEFAULT_EMBEDDER = "sentence-transformers"


@dataclass(frozen=True)
class EmbedResult:
    vector_set: VectorSetInfo
    embedded: int
    reused: int
    resumed_from: int
    empty: int
    truncated: int
    seconds: float
    already_complete: bool = False


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


def default_name(embedder: str, field: str) -> str:
    return f"{embedder}/{field}"


def embed_dataset(
    project: Project,
    dataset: str,
    *,
    embedder: str = DEFAULT_EMBEDDER,
    params: dict[str, Any] | None = None,
    field: str = "auto",
    name: str | None = None,
    chunk_rows: int = DEFAULT_CHUNK_ROWS,
    reuse: bool = True,
    registry: PluginRegistry | None = None,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> EmbedResult:
    """Embed every record of ``dataset`` into the vector set ``name`` (created or resumed).

    Parameters
    ----------
    embedder, params
        The embedder plugin and its parameters (``vendiscope plugins`` lists embedders).
    field
        Which text to embed: ``prompt``, ``response``, ``prompt+response``, ``text``, ``all``,
        or ``auto``.
    reuse
        Copy vectors of identical records from complete vector sets made with the same model.
    """
    started = time.perf_counter()
    progress = progress or NullProgress()
    cancel = cancel or CancelToken()
    params = dict(params or {})
    info = project.dataset(dataset)
    field = resolve_field(field, info.field_mapping)
    instance: Embedder = (registry or default_registry()).create("embedder", embedder, **params)
    config = {
        "embedder": embedder,
        "embedder_params": params,
        "field": field,
        "model_id": instance.model_id,
    }
    name = name or default_name(embedder, field)
    existing = next((s for s in vectors.list_sets(project, dataset) if s.name == name), None)
    if existing is not None and existing.status == vectors.COMPLETE:
        vectors.open_for_writing(  # raises if the settings differ
            project,
            dataset,
            name,
            kind="embedding",
            model=instance.model_id,
            params=config,
            dim=existing.dim,
            chunk_rows=chunk_rows,
        )
        return EmbedResult(existing, 0, 0, existing.n_rows, 0, 0, 0.0, already_complete=True)

    run_id = start_run(
        project,
        key=f"embed:{dataset}:{name}",
        kind="embedding",
        plugin=f"embedder:{embedder}",
        dataset_id=info.id,
        params=config,
    )
    try:
        result = _run(
            project,
            dataset,
            name,
            instance,
            config,
            field,
            chunk_rows,
            reuse,
            run_id,
            progress,
            cancel,
            started,
        )
    except BaseException as error:
        finish_run(
            project,
            run_id,
            status="cancelled" if cancel.cancelled else "failed",
            error=repr(error),
            seconds=time.perf_counter() - started,
        )
        raise
    finish_run(
        project,
        run_id,
        status="complete",
        seconds=result.seconds,
        result={
            "rows": result.vector_set.n_rows,
            "dim": result.vector_set.dim,
            "embedded": result.embedded,
            "reused": result.reused,
            "resumed_from": result.resumed_from,
            "empty": result.empty,
            "truncated": result.truncated,
        },
    )
    return result


def _run(
    project: Project,
    dataset: str,
    name: str,
    instance: Embedder,
    config: dict[str, Any],
    field: str,
    chunk_rows: int,
    reuse: bool,
    run_id: int,
    progress: Progress,
    cancel: CancelToken,
    started: float,
) -> EmbedResult:
    target = vectors.open_for_writing(
        project,
        dataset,
        name,
        kind="embedding",
        model=instance.model_id,
        params=config,
        dim=instance.dim,
        chunk_rows=chunk_rows,
        run_id=run_id,
    )
    done_chunks = vectors.committed_chunks(project, target)
    resumed_from = sum(target.chunk_range(i)[1] - target.chunk_range(i)[0] for i in done_chunks)
    cache = _VectorCache(project, target, config) if reuse else None
    progress.start(f"Embedding {dataset} ({field})", total=target.n_rows, unit="records")
    progress.update(resumed_from)
    embedded = reused = empty = truncated = 0
    completed = resumed_from
    for index in range(target.n_chunks):
        if index in done_chunks:
            continue
        cancel.raise_if_cancelled()
        start, stop = target.chunk_range(index)
        records = project.records(dataset, start, stop - start)
        texts = [text_of(r, field) for r in records]
        empty += sum(1 for t in texts if not t)
        chunk, fresh, copied = _embed_chunk(instance, records, texts, cache, cancel)
        truncated += instance.count_truncated(fresh)
        embedded += len(fresh)
        reused += copied
        vectors.write_chunk(project, target, index, chunk)
        completed += stop - start
        progress.update(completed)
    target = vectors.mark_complete(project, target)
    progress.finish()
    return EmbedResult(
        target, embedded, reused, resumed_from, empty, truncated, time.perf_counter() - started
    )


def _embed_chunk(
    instance: Embedder,
    records: Sequence[RecordRow],
    texts: list[str],
    cache: _VectorCache | None,
    cancel: CancelToken,
) -> tuple[np.ndarray, list[str], int]:
    """Vectors for one chunk: copied from the cache, or embedded once per distinct text."""
    import numpy as np

    chunk = np.empty((len(records), instance.dim), dtype=np.float32)
    hits = cache.lookup([r.content_hash for r in records]) if cache is not None else {}
    for slot, vector in hits.items():
        chunk[slot] = vector
    distinct: dict[str, list[int]] = {}
    for slot, text in enumerate(texts):
        if slot not in hits:
            distinct.setdefault(text, []).append(slot)
    fresh = list(distinct)
    if fresh:
        embedded = instance.embed(fresh, progress=NullProgress(), cancel=cancel)
        for row, slots in zip(embedded, distinct.values(), strict=True):
            chunk[slots] = row
    return chunk, fresh, len(hits)


class _VectorCache:
    """Vectors of identical records (same content hash) in complete sets of the same model."""

    def __init__(self, project: Project, target: VectorSetInfo, config: dict[str, Any]) -> None:
        self._project = project
        self._sources: list[tuple[VectorSetInfo, dict[str, int]]] = []
        for dataset in project.datasets():
            for found in vectors.list_sets(project, dataset.name):
                same_model = found.params.get("model_id") == config["model_id"]
                same_field = found.params.get("field") == config["field"]
                usable = found.status == vectors.COMPLETE and found.id != target.id
                if usable and same_model and same_field and found.dim == target.dim:
                    self._sources.append((found, project.content_hash_positions(dataset.name)))

    def lookup(self, hashes: Sequence[str]) -> dict[int, np.ndarray]:
        """Slot -> vector for the hashes some source already has."""
        found: dict[int, np.ndarray] = {}
        for source, positions in self._sources:
            wanted = [
                (slot, positions[h])
                for slot, h in enumerate(hashes)
                if slot not in found and h in positions
            ]
            if wanted:
                rows = vectors.read_rows(self._project, source, [p for _, p in wanted])
                for (slot, _), row in zip(wanted, rows, strict=True):
                    found[slot] = row
        return found
