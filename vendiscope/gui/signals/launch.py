"""Open the signal dialogs and submit their jobs (the window's actions and the dashboard).

:func:`compute_signals` asks which signals to compute, then runs them as one job (in a child
process, as the model jobs run: a signal may load a language model); :func:`clean_up` opens
the checklist, then saves the subset it chose (a light job on a worker thread). The project
re-reads when either ends, so the dashboard and the project tree show the result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from vendiscope.gui.jobs import launch

if TYPE_CHECKING:
    from vendiscope.gui.jobs.manager import Job
    from vendiscope.gui.services import WindowServices

SIGNALS_KIND = "signals"
CLEAN_KIND = "clean"


def compute_signals(window: WindowServices, dataset: str | None = None) -> Job | None:
    """Ask for the signals of ``dataset`` (default: the current one), then start the job."""
    from vendiscope.gui.signals.compute_dialog import ComputeSignalsDialog

    dialog = launch.ask_settings(window, ComputeSignalsDialog, dataset)
    if dialog is None:
        return None
    return submit_signals(window, dialog.dataset, dialog.options())


def submit_signals(window: WindowServices, dataset: str, options: dict[str, Any]) -> Job:
    """Submit the signals job with the dialog's ``options`` (no dialog)."""
    from vendiscope.gui.jobs import tasks

    chosen = dict(options)
    signals = list(chosen.pop("signals"))
    return window.jobs.submit(
        f"Signals of {dataset}",
        tasks.compute_signals,
        window.document.location,
        dataset,
        signals,
        kind=SIGNALS_KIND,
        dataset=dataset,
        **chosen,
    )


def clean_up(window: WindowServices, dataset: str | None = None) -> Job | None:
    """Open the clean-up checklist of ``dataset`` (default: the current one), then save the
    subset it chose."""
    from vendiscope.gui.signals.clean_dialog import CleanUpDialog

    dialog = launch.ask_settings(window, CleanUpDialog, dataset)
    if dialog is None:
        return None
    return submit_clean(window, dialog.dataset, dialog.options())


def submit_clean(window: WindowServices, dataset: str, options: dict[str, Any]) -> Job:
    """Submit the clean-up with the checklist's ``options`` (no dialog)."""
    from vendiscope.gui.jobs import tasks

    chosen = dict(options)
    name = str(chosen.pop("name"))
    return window.jobs.submit(
        f"Clean-up of {dataset}",
        tasks.clean_up,
        window.document.location,
        dataset,
        name,
        kind=CLEAN_KIND,
        dataset=dataset,
        in_thread=True,
        **chosen,
    )
