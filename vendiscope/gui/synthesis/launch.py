"""Open the "Fill gaps…" dialog, start the synthesis job, and show its monitor.

The dashboard's sparse-clusters panel and the Jobs menu call :func:`fill_gaps`; the
monitor's Resume calls :func:`start` with the run's own options (the job resumes after its
last committed round).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from vendiscope.gui.jobs import launch

if TYPE_CHECKING:
    from vendiscope.gui.services import WindowServices

JOB_KIND = "synthesize"


def fill_gaps(window: WindowServices, dataset: str | None = None) -> Any:
    """Ask for the settings, then start the job on ``dataset`` (default: the current one)."""
    from vendiscope.gui.synthesis.dialog import SynthesisDialog

    dialog = launch.ask_settings(window, SynthesisDialog, dataset)
    if dialog is None:
        return None
    return start(window, dialog.dataset, dialog.options())


def start(window: WindowServices, dataset: str, options: dict[str, Any]) -> Any:
    """Submit the synthesis job and show it in the dataset's monitor."""
    from vendiscope.gui.jobs import tasks

    return launch.submit_and_follow(
        window,
        f"Filling the gaps of {dataset}",
        tasks.synthesize,
        dataset,
        dict(options),
        kind=JOB_KIND,
        dataset=dataset,
        view="synthesis",
        name=options.get("name"),
    )


def active_job(window: WindowServices, dataset: str) -> Any:
    """The synthesis job of ``dataset`` queued or running in the window, if any."""
    return launch.active_job(window, JOB_KIND, dataset)
