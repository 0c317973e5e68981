"""Start a job from its settings dialog and show it in its dataset's monitor.

The glue of a workflow such as "Fill gaps…" or "Study…": :func:`ask_settings` opens the
dialog on a dataset, :func:`submit_and_follow` submits the job and has the dataset's monitor
follow it, and :func:`active_job` finds the window's job of a kind still queued or running.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtWidgets import QDialog


def ask_settings(
    window: Any, dialog_class: Callable[..., QDialog], dataset: str | None = None
) -> Any:
    """The accepted settings dialog of a job on ``dataset`` (default: the current one), or
    None (no dataset, a read-only project, or the dialog cancelled)."""
    dataset = dataset or window.current_dataset()
    if dataset is None or not window.document.writable:
        if dataset is None:
            window.statusBar().showMessage("Select a dataset first", 4000)
        return None
    registry = window.plugin_registry() if hasattr(window, "plugin_registry") else None
    dialog = dialog_class(window.document, dataset, registry=registry, parent=window)
    if dialog.exec() != QDialog.DialogCode.Accepted:
        return None
    return dialog


def submit_and_follow(
    window: Any,
    title: str,
    task: Callable[..., Any],
    *args: Any,
    kind: str,
    dataset: str,
    view: str,
    name: str | None = None,
) -> Any:
    """Submit ``task(location, *args)`` as the window's job and show it in the ``view`` tab
    of ``dataset`` (which follows the run it starts, or the run named ``name``)."""
    from vendiscope.gui.jobs.pipeline import JOBS_IN_PROCESS

    job = window.jobs.submit(
        title,
        task,
        window.document.location,
        *args,
        kind=kind,
        dataset=dataset,
        in_process=JOBS_IN_PROCESS,
    )
    monitor = window.open_view(view, dataset)
    if monitor is not None:
        monitor.follow(job, name)
    return job


def active_job(window: Any, kind: str, dataset: str) -> Any:
    """The window's job of ``kind`` on ``dataset`` queued or running, if any."""
    jobs = getattr(window, "jobs", None)
    for job in reversed(jobs.active() if jobs is not None else []):
        if job.kind == kind and job.dataset == dataset:
            return job
    return None
