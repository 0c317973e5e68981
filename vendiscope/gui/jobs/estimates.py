"""Qt-free helpers for vector jobs in the GUI: measuring a job before it runs, resuming a set.

:func:`measure` is a task (run in a child process like every model job, see
:mod:`vendiscope.gui.jobs.process`): it times the job's own model on a few of the dataset's
records and returns the estimate's text, which the options dialogs show. It is kept here,
away from Qt, because the child process imports the module by name.

:func:`resume_step` turns an interrupted vector set back into the pipeline step and options
that made it (its own stored settings), so a Resume action submits exactly that job.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from vendiscope.core.base.jobs import CancelToken, Progress

if TYPE_CHECKING:
    from vendiscope.core.store.vectors import VectorSetInfo

_MEASURED: dict[tuple[str, str, str, str], str] = {}


def measure(
    location: str,
    dataset: str,
    step: str,
    options: dict[str, Any],
    *,
    progress: Progress,
    cancel: CancelToken,
) -> str:
    """How long ``step`` (``embed`` or ``featurize``) with ``options`` takes here, as text."""
    from vendiscope.gui.jobs.tasks import opened

    params = dict(options.get("params") or {})
    with opened(location) as project:
        if step == "featurize":
            from vendiscope.core.vectors.featurizing import estimate_features

            found = estimate_features(
                project,
                dataset,
                params=params,
                name=options.get("name"),
                progress=progress,
                cancel=cancel,
            )
        else:
            from vendiscope.core.vectors.embedding import estimate_embedding

            found = estimate_embedding(
                project,
                dataset,
                params=params,
                field=options.get("field") or "auto",
                name=options.get("name"),
                progress=progress,
                cancel=cancel,
            )
    return found.describe()


def remember(location: str, dataset: str, step: str, options: dict[str, Any], text: str) -> None:
    """Keep a measurement for this session (the dialog shows it when opened again)."""
    _MEASURED[_key(location, dataset, step, options)] = text


def remembered(location: str, dataset: str, step: str, options: dict[str, Any]) -> str | None:
    return _MEASURED.get(_key(location, dataset, step, options))


def _key(location: str, dataset: str, step: str, options: dict[str, Any]) -> tuple:
    return (location, dataset, step, repr(sorted(options.items())))


def resume_step(vector_set: VectorSetInfo) -> tuple[str, dict[str, Any]] | None:
    """``(step, options)`` that resume ``vector_set`` with its own settings, or None.

    Only sets the GUI's embed and featurize steps make can be resumed from the GUI: the
    default embedder, or the gradients featurizer.
    """
    params = vector_set.params or {}
    if vector_set.kind == "embedding" and params.get("embedder") == "sentence-transformers":
        return "embed", {
            "field": params.get("field") or "auto",
            "name": vector_set.name,
            "params": dict(params.get("embedder_params") or {}),
            "chunk_rows": vector_set.chunk_rows,
        }
    if vector_set.kind == "gradient" and params.get("featurizer") == "gradients":
        return "featurize", {
            "name": vector_set.name,
            "params": dict(params.get("featurizer_params") or {}),
            "chunk_rows": vector_set.chunk_rows,
        }
    return None
