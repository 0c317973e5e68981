"""Open the "Fill gaps…" dialog, start the synthesis job, and show its monitor.

The dashboard's sparse-clusters panel and the Jobs menu call :func:`fill_gaps`; the
monitor's Resume calls :func:`start` with the run's own options (the job resumes after its
last committed round).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QDialog

JOB_KIND = "synthesize"


def fill_gaps(window: Any, dataset: str | None = None) -> Any:
    """Ask for the settings, then start the job on ``dataset`` (default: the current one)."""
    from vendiscope.gui.synthesis.dialog import SynthesisDialog

    dataset = dataset or window.current_dataset()
    if dataset is None or not window.document.writable:
        if dataset is None:
            window.statusBar().showMessage("Select a dataset first", 4000)
        return None
    registry = window.plugin_registry() if hasattr(window, "plugin_registry") else None
    dialog = SynthesisDialog(window.document, dataset, registry=registry, parent=window)
    if dialog.exec() != QDialog.DialogCode.Accepted:
        return None
    return start(window, dataset, dialog.options())


def start(window: Any, dataset: str, options: dict[str, Any]) -> Any:
    """Submit the synthesis job and show it in the dataset's monitor."""
    from vendiscope.gui.jobs import tasks
    from vendiscope.gui.jobs.pipeline import JOBS_IN_PROCESS

    job = window.jobs.submit(
        f"Filling the gaps of {dataset}",
        tasks.synthesize,
        window.document.location,
        dataset,
        dict(options),
        kind=JOB_KIND,
        dataset=dataset,
        in_process=JOBS_IN_PROCESS,
    )
    monitor = window.open_view("synthesis", dataset)
    if monitor is not None:
        monitor.follow(job, options.get("name"))
    return job


def active_job(window: Any, dataset: str) -> Any:
    """The synthesis job of ``dataset`` queued or running in the window, if any."""
    jobs = getattr(window, "jobs", None)
    for job in reversed(jobs.active() if jobs is not None else []):
        if job.kind == JOB_KIND and job.dataset == dataset:
            return job
    return None
