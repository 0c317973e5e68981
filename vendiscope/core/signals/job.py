"""Compute a signal plugin's per-record values over a dataset, stored as a vector set.

A signal's values are one vector set per dataset, ``signals/NAME`` (kind ``signal``), one
float32 column per :class:`~vendiscope.core.plugin_host.interfaces.SignalColumn`; the set's
run records the columns (names, kinds, categories), so readers find a value by column name
(:mod:`vendiscope.core.signals.reading`). The job is the embeddings' skeleton
(:func:`~vendiscope.core.vectors.job.run_vector_job`): chunk by chunk, each committed, an
interrupted job resumes where it stopped, a cancelled one stops between batches.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from vendiscope.core.base.errors import ProjectError
from vendiscope.core.base.jobs import CancelToken, NullProgress, Progress
from vendiscope.core.plugin_host import default_registry
from vendiscope.core.plugin_host.interfaces import Signal
from vendiscope.core.signals.options import SignalOptions
from vendiscope.core.store.models import RecordRow
from vendiscope.core.store.project import Project
from vendiscope.core.vectors.job import (
    ChunkResult,
    VectorJob,
    VectorJobResult,
    run_vector_job,
)
from vendiscope.core.vectors.signal_sets import IDENTITY, KIND, LEXICAL, set_name, signal_config

if TYPE_CHECKING:
    from vendiscope.core.plugin_host.registry import PluginRegistry


def compute_signal(
    project: Project,
    dataset: str,
    signal: str,
    *,
    params: dict[str, Any] | None = None,
    target: str | None = None,
    chunk_rows: int | None = SignalOptions.chunk_rows,
    replace: bool = SignalOptions.replace,
    registry: PluginRegistry | None = None,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> VectorJobResult:
    """Compute signal plugin ``signal`` for every record of ``dataset`` (created or resumed).

    ``params`` are the plugin's; ``target`` names the dataset a signal that
    :attr:`~vendiscope.core.plugin_host.interfaces.Signal.needs_target` compares with (a
    benchmark). An unknown signal, a missing or needless target, and bad parameters are
    refused before anything is written. Values computed with other settings (parameters, a
    newer version of the signal) are refused by name unless ``replace``, which deletes them
    and computes them again.
    """
    progress = progress or NullProgress()
    cancel = cancel or CancelToken()
    options = SignalOptions(chunk_rows=chunk_rows, replace=replace)
    if signal == LEXICAL:  # a property of the whole dataset: one job, not chunks
        from vendiscope.core.signals.lexical import LexicalOptions, lexical_duplicates

        if target is not None:
            raise ProjectError(f"signal '{signal}' does not compare with a target; drop --target")
        unknown = sorted(set(params or {}) - {s.name for s in LexicalOptions.specs()})
        if unknown:
            known = ", ".join(s.name for s in LexicalOptions.specs())
            raise ProjectError(f"signal '{signal}' has no parameter {unknown[0]!r} ({known})")
        chosen = LexicalOptions(**dict(params or {}))
        return lexical_duplicates(project, dataset, chosen, progress=progress, cancel=cancel)
    registry = registry or default_registry()
    params = dict(params or {})
    instance: Signal = registry.create("signal", signal, **params)
    info = project.dataset(dataset)  # an unknown dataset: refused here, by name
    if instance.needs_target and target is None:
        raise ProjectError(
            f"signal '{signal}' compares each record with a second dataset: name it with "
            f"--target (e.g. a benchmark of the project)"
        )
    if target is not None:
        if not instance.needs_target:
            raise ProjectError(f"signal '{signal}' does not compare with a target; drop --target")
        target_records = [r.roles() for r in project.iter_records(target)]
        progress.start(f"reading the target '{target}' ({len(target_records):,} records)")
        with registry.running("signal", signal):
            instance.fit_target(target_records)
        progress.finish()
    columns = tuple(instance.columns)
    config = signal_config(signal, instance, params, target)
    text_names = tuple(instance.text_columns)
    if text_names:  # short texts per record (the judge's reason): stored beside the chunk
        config = {**config, "texts": list(text_names)}
    name = set_name(signal, target)
    _settle_earlier(project, dataset, name, instance.model_id, replace)
    job = VectorJob(
        dataset=dataset,
        name=name,
        kind=KIND,
        plugin=f"signal:{signal}",
        model_id=instance.model_id,
        config=config,
        dim=len(columns),
        chunk_rows=options.chunk_rows or min(info.row_count or 1, 10_000),
        identity=IDENTITY,
        description=f"Signal '{signal}' of {dataset}",
        size_chunks=options.chunk_rows is None,  # a slow signal commits about once a minute
    )

    def compute(records: Sequence[RecordRow], inner: Progress) -> ChunkResult:
        with registry.running("signal", signal):
            values = instance.compute([r.roles() for r in records], progress=inner, cancel=cancel)
        registry.check_result("signal", signal, values, rows=len(records), dim=len(columns))
        texts = _texts(signal, instance, text_names, len(records))
        counts = {"computed": len(records)}
        return ChunkResult(values.astype("float32", copy=False), counts, texts=texts)

    return run_vector_job(project, job, compute, progress=progress, cancel=cancel)


def _texts(
    signal: str, instance: Signal, names: tuple[str, ...], rows: int
) -> dict[str, list[str | None]]:
    """The text columns ``instance.compute`` left in ``texts_``, checked: one text or None
    per record of each column in ``names``."""
    if not names:
        return {}
    given = getattr(instance, "texts_", None)
    if not isinstance(given, dict):
        raise ProjectError(f"signal '{signal}' did not set texts_ for its text columns")
    texts: dict[str, list[str | None]] = {}
    for name in names:
        column = list(given.get(name) or [])
        if len(column) != rows or any(t is not None and not isinstance(t, str) for t in column):
            raise ProjectError(
                f"signal '{signal}': text column '{name}' should hold one text (or None) per "
                f"record ({rows}), got {len(column)} values"
            )
        texts[name] = column
    return texts


def _settle_earlier(
    project: Project, dataset: str, name: str, model_id: str, replace: bool
) -> None:
    """Refuse (or, with ``replace``, delete) values of ``name`` made with other settings."""
    from vendiscope.core.store import vectors

    earlier = next((s for s in vectors.list_sets(project, dataset) if s.name == name), None)
    if earlier is None or earlier.params.get("model_id") == model_id:
        return
    if not replace:
        raise ProjectError(
            f"'{name}' of '{dataset}' was computed with other settings "
            f"({earlier.params.get('model_id')}); run again with --replace to compute it anew"
        )
    vectors.delete_set(project, dataset, name)


__all__ = ["compute_signal"]
