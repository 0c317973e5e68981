"""Jobs in their own process: results, progress, errors with tracebacks, crashes, cancel."""

from __future__ import annotations

import threading

import pytest

from tests.gui import _process_tasks
from vendiscope.core.errors import InputError
from vendiscope.core.jobs import Cancelled, CancelToken, RecordingProgress
from vendiscope.gui.job_process import JobProcessError, run_in_process


def run(func, *args, cancel: CancelToken | None = None, **kwargs):
    progress = RecordingProgress()
    result = run_in_process(func, args, kwargs, progress=progress, cancel=cancel or CancelToken())
    return result, progress


def test_result_and_throttled_progress_come_back() -> None:
    result, progress = run(_process_tasks.count, 100_000)
    assert result == {"counted": 100_000, "torch_loaded_here": False}
    assert progress.descriptions == ["counting"] and progress.finished == 1
    assert progress.updates[-1] == (100_000, 100_000)
    assert len(progress.updates) < 1_000  # not one message per step


def test_an_error_keeps_its_type_message_and_the_child_traceback() -> None:
    with pytest.raises(InputError) as raised:
        run(_process_tasks.fail)
    assert str(raised.value) == "data.jsonl, line 12, field 'answer': malformed JSON"
    assert "in fail" in raised.value.child_traceback


def test_a_crash_is_reported() -> None:
    with pytest.raises(JobProcessError, match="exit code 3"):
        run(_process_tasks.crash)


def test_cancel_reaches_the_child() -> None:
    cancel = CancelToken()
    threading.Timer(1.0, cancel.cancel).start()
    with pytest.raises(Cancelled):
        run(_process_tasks.wait_for_cancel, cancel=cancel)
