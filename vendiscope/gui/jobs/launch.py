"""Start a job from its settings dialog and show it in its dataset's monitor.

The glue of a workflow such as "Fill gaps…" or "Study…": :func:`ask_settings` opens the
dialog on a dataset, :func:`submit_and_follow` submits the job and has the dataset's monitor
follow it, and :func:`active_job` finds the window's job of a kind still queued or running.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import QDialog, QWidget

if TYPE_CHECKING:
    from vendiscope.gui.jobs.manager import Job
    from vendiscope.gui.services import WindowServices


def ask_settings(
    window: WindowServices, dialog_class: Callable[..., QDialog], dataset: str | None = None
) -> Any:
    """The accepted settings dialog of a job on ``dataset`` (default: the current one), or
    None (no dataset, a read-only project, or the dialog cancelled)."""
    dataset = dataset or window.current_dataset()
    if dataset is None or not window.document.writable:
        if dataset is None:
            window.show_status("Select a dataset first", 4000)
        return None
    parent = window if isinstance(window, QWidget) else None  # the dialog opens over it
    dialog = dialog_class(
        window.document, dataset, registry=window.plugin_registry(), parent=parent
    )
    if dialog.exec() != QDialog.DialogCode.Accepted:
        return None
    return dialog


def submit_and_follow(
    window: WindowServices,
    title: str,
    task: Callable[..., Any],
    *args: Any,
    kind: str,
    dataset: str,
    view: str,
    name: str | None = None,
) -> Job:
    """Submit ``task(location, *args)`` as the window's job and show it in the ``view`` tab
    of ``dataset`` (which follows the run it starts, or the run named ``name``)."""
    job = window.jobs.submit(
        title, task, window.document.location, *args, kind=kind, dataset=dataset
    )
    monitor = window.open_view(view, dataset)
    if monitor is not None:
        monitor.follow(job, name)
    return job


def active_job(window: WindowServices, kind: str, dataset: str) -> Job | None:
    """The window's job of ``kind`` on ``dataset`` queued or running, if any."""
    for job in reversed(window.jobs.active()):
        if job.kind == kind and job.dataset == dataset:
            return job
    return None
