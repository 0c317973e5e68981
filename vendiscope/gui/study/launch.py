"""Open the "Study…" dialog, start the study job, and show its monitor.

The Jobs menu calls :func:`new_study`; the monitor's Resume and Run anyway call
:func:`start` with the run's own options (the job goes on with its next training run).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from vendiscope.gui.jobs import launch

if TYPE_CHECKING:
    from vendiscope.gui.services import WindowServices

JOB_KIND = "study"


def new_study(window: WindowServices, dataset: str | None = None) -> Any:
    """Ask for the settings, then start a study of ``dataset`` (default: the current one)."""
    from vendiscope.gui.study.dialog import StudyDialog

    dialog = launch.ask_settings(window, StudyDialog, dataset)
    if dialog is None:
        return None
    target = dialog.target()
    if target is None:
        return None
    return start(window, dialog.dataset, target, dialog.options())


def start(window: WindowServices, pool: str, target: str, options: dict[str, Any]) -> Any:
    """Submit the study job and show it in the pool's monitor."""
    from vendiscope.gui.jobs import tasks

    return launch.submit_and_follow(
        window,
        f"Studying {pool} (scored on {target})",
        tasks.study,
        pool,
        target,
        dict(options),
        kind=JOB_KIND,
        dataset=pool,
        view="study",
        name=options.get("name"),
    )


def active_job(window: WindowServices, dataset: str) -> Any:
    """The study job of ``dataset`` (its pool) queued or running in the window, if any."""
    return launch.active_job(window, JOB_KIND, dataset)
