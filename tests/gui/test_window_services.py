"""The main window serves its views through WindowServices; its job manager decides where
jobs run."""

from __future__ import annotations

import inspect
from typing import Any

from vendiscope.gui.jobs import tasks
from vendiscope.gui.jobs.manager import JobManager, JobState
from vendiscope.gui.jobs.process import JOBS_IN_CHILD_PROCESS
from vendiscope.gui.services import WindowServices


def test_the_main_window_implements_the_window_services(window: Any) -> None:
    assert isinstance(window, WindowServices)
    methods = [
        name
        for name, member in vars(WindowServices).items()
        if callable(member) and not name.startswith("_")
    ]
    assert methods, "the protocol declares the window's methods"
    for name in methods:
        wanted = list(inspect.signature(getattr(WindowServices, name)).parameters)[1:]
        assert list(inspect.signature(getattr(window, name)).parameters) == wanted, name
    assert window.tabs.window_ is window  # what the view factories receive


def test_the_window_shows_a_status_message(window: Any) -> None:
    window.show_status("Hello", 0)
    assert window.statusBar().currentMessage() == "Hello"


def test_the_job_manager_decides_which_jobs_run_in_a_child_process(qtbot: Any) -> None:
    manager = JobManager(run_in_child_process=True)
    model = manager.submit("Embed", tasks.embed, "p.vscope", "d")
    light = manager.submit("Export", tasks.export, "p.vscope", "d", "out.jsonl", in_thread=True)
    in_threads = JobManager().submit("Embed", tasks.embed, "p.vscope", "d")
    assert model.in_child_process
    assert not light.in_child_process  # an import, an export: on a thread, whatever the setting
    assert not in_threads.in_child_process
    for job in (model, light, in_threads):
        job.cancel()  # still queued: never starts
        assert job.state == JobState.CANCELLED


def test_the_window_runs_its_model_jobs_as_the_environment_says(window: Any) -> None:
    assert window.jobs.run_in_child_process == JOBS_IN_CHILD_PROCESS
