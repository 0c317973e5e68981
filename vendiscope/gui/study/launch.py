"""Open the "Study…" dialog, start the study job, and show its monitor.

The Jobs menu calls :func:`new_study`; the monitor's Resume and Run anyway call
:func:`start` with the run's own options (the job goes on with its next training run).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QDialog

JOB_KIND = "study"


def new_study(window: Any, dataset: str | None = None) -> Any:
    """Ask for the settings, then start a study of ``dataset`` (default: the current one)."""
    from vendiscope.gui.study.dialog import StudyDialog

    dataset = dataset or window.current_dataset()
    if dataset is None or not window.document.writable:
        if dataset is None:
            window.statusBar().showMessage("Select a dataset first", 4000)
        return None
    registry = window.plugin_registry() if hasattr(window, "plugin_registry") else None
    dialog = StudyDialog(window.document, dataset, registry=registry, parent=window)
    if dialog.exec() != QDialog.DialogCode.Accepted:
        return None
    target = dialog.target()
    if target is None:
        return None
    return start(window, dataset, target, dialog.options())


def start(window: Any, pool: str, target: str, options: dict[str, Any]) -> Any:
    """Submit the study job and show it in the pool's monitor."""
    from vendiscope.gui.jobs import tasks
    from vendiscope.gui.jobs.pipeline import JOBS_IN_PROCESS

    job = window.jobs.submit(
        f"Studying {pool} (scored on {target})",
        tasks.study,
        window.document.location,
        pool,
        target,
        dict(options),
        kind=JOB_KIND,
        dataset=pool,
        in_process=JOBS_IN_PROCESS,
    )
    monitor = window.open_view("study", pool)
    if monitor is not None:
        monitor.follow(job, options.get("name"))
    return job


def active_job(window: Any, dataset: str) -> Any:
    """The study job of ``dataset`` (its pool) queued or running in the window, if any."""
    jobs = getattr(window, "jobs", None)
    for job in reversed(jobs.active() if jobs is not None else []):
        if job.kind == JOB_KIND and job.dataset == dataset:
            return job
    return None
