"""Jobs in their own process: results, progress, errors with tracebacks, crashes, cancel."""

from __future__ import annotations

import threading

import pytest

from tests.gui import _process_tasks
from vendiscope.core.base.errors import InputError
from vendiscope.core.base.jobs import Cancelled, CancelToken, RecordingProgress
from vendiscope.core.vectors.missing import MissingVectors
from vendiscope.core.view_data.missing import NotComputed
from vendiscope.gui.jobs.process import JobProcessError, run_in_process


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


@pytest.mark.slow
def test_what_is_missing_comes_back_with_its_fields(small_project) -> None:
    """NotComputed and MissingVectors cross the process boundary as themselves, fields and
    all, so the app can act on them (not a JobProcessError with only the text)."""
    with pytest.raises(NotComputed) as raised:
        run(_process_tasks.missing_piece, str(small_project), "score")
    error = raised.value
    assert (error.what, error.step, error.dataset) == ("embedding-Vendi", "embed", "tiny")
    assert [c.name for c in error.commands] == ["embed", "score"]
    assert error.commands[1].option("--metric") == "vendi"
    assert str(error).startswith("embedding-Vendi not computed yet; run `vendiscope embed ")
    assert "in missing_piece" in error.child_traceback

    with pytest.raises(MissingVectors) as raised:
        run(_process_tasks.missing_piece, str(small_project), "vectors")
    assert (raised.value.dataset, raised.value.kind) == ("tiny", "embedding")
    assert str(raised.value) == (
        "dataset 'tiny' has no complete embedding vector set; run `vendiscope embed` first"
    )


def test_a_crash_is_reported() -> None:
    with pytest.raises(JobProcessError, match="exit code 3"):
        run(_process_tasks.crash)


def test_cancel_reaches_the_child() -> None:
    cancel = CancelToken()
    threading.Timer(1.0, cancel.cancel).start()
    with pytest.raises(Cancelled):
        run(_process_tasks.wait_for_cancel, cancel=cancel)


def test_a_finished_child_exits_cleanly(capfd) -> None:
    """The child's stdin is read on its own descriptor: no "Fatal Python error" at exit
    (a daemon thread blocked in sys.stdin's buffered reader used to abort the shutdown)."""
    for _ in range(3):
        run(_process_tasks.count, 1_000)
    with pytest.raises(Cancelled):  # and after a cancel, and after an error
        cancel = CancelToken()
        threading.Timer(0.5, cancel.cancel).start()
        run(_process_tasks.wait_for_cancel, cancel=cancel)
    with pytest.raises(InputError):
        run(_process_tasks.fail)
    captured = capfd.readouterr()
    assert "Fatal Python error" not in captured.err
    assert "_enter_buffered_busy" not in captured.err


def test_an_update_held_back_by_the_throttle_still_arrives() -> None:
    """The child sends the latest update once the throttle allows, without waiting for the
    job's next call (here the job waits for a cancel the parent sends on seeing it)."""
    cancel = CancelToken()

    class CancelOnLast(RecordingProgress):
        def update(self, completed, total=None) -> None:
            super().update(completed, total)
            if completed == 2:
                cancel.cancel()

    progress = CancelOnLast()
    result = run_in_process(
        _process_tasks.update_then_wait, (), {}, progress=progress, cancel=cancel
    )
    assert result == "cancelled"
    assert progress.updates[-1] == (2, 2)


@pytest.mark.slow
def test_cancel_stops_a_real_gradient_job_within_a_batch(tmp_path) -> None:
    """Cancel, sent after the first progress update of chunk 1, stops the child's gradient
    job at once: at most the batch in progress finishes, chunk 0 stays committed, the run
    is closed as cancelled and the set reads as interrupted (resumable)."""
    from tests.gui.conftest import make_project, tiny_rows
    from vendiscope.core.store import vectors
    from vendiscope.core.store.project import Project
    from vendiscope.gui.jobs import tasks

    location = make_project(tmp_path / "g.vscope", tiny_rows(24), name="tiny")
    cancel = CancelToken()
    seen: list[float] = []

    class CancelInChunkOne(RecordingProgress):
        def update(self, completed, total=None) -> None:
            super().update(completed, total)
            seen.append(completed)
            if completed > 4 and not cancel.cancelled:  # record 5 done: chunk 0 committed
                seen.append(-1.0)  # where the cancel was sent
                cancel.cancel()

    with pytest.raises(Cancelled):
        run_in_process(
            tasks.featurize,
            (str(location), "tiny"),
            {"params": {"batch_size": 1, "max_length": 64}, "chunk_rows": 4},
            progress=CancelInChunkOne(),
            cancel=cancel,
        )
    sent = seen.index(-1.0)
    at_cancel, after = seen[sent - 1], [c for c in seen[sent + 1 :] if c >= 0]
    # one record per batch: at most the batch in progress when the cancel arrived finished
    assert max([at_cancel, *after]) <= at_cancel + 1, seen
    with Project.open(location) as project:
        (found,) = vectors.list_sets(project, "tiny")
        assert found.committed_rows == 4 and found.status == vectors.RUNNING
        state = vectors.set_state(project, found)
        assert state.state == vectors.INTERRUPTED and state.reason == "cancelled"
        (run,) = [r for r in project.runs("tiny") if r.kind == "gradient"]
        assert run.status == "cancelled"
        assert project.integrity_check() == "ok"


def runs_of(location):
    from vendiscope.core.store.project import Project
    from vendiscope.core.store.schema import Run

    with Project.open(location) as project, project.session() as session:
        return [(run.key, run.status) for run in session.query(Run).order_by(Run.id)]


@pytest.mark.slow
def test_a_job_ignoring_cancel_is_ended_within_seconds_and_its_run_closed(tmp_path) -> None:
    import time

    from vendiscope.core.store.project import Project

    location = str(tmp_path / "p.vscope")
    Project.create(location).close()
    cancel = CancelToken()
    progress = RecordingProgress()

    def cancel_once_started() -> None:
        while not progress.descriptions:
            time.sleep(0.02)
        cancel.cancel()

    threading.Thread(target=cancel_once_started, daemon=True).start()
    started = time.monotonic()
    with pytest.raises(Cancelled):
        run_in_process(
            _process_tasks.ignore_cancel_in_a_run, (location,), {}, progress=progress,
            cancel=cancel,
        )  # fmt: skip
    assert time.monotonic() - started < 30  # the grace periods are 4 s + 2 s
    assert runs_of(location) == [("stuck", "interrupted")]


def test_a_job_ending_its_process_in_a_run_names_the_run_and_closes_it(tmp_path) -> None:
    from vendiscope.core.store.project import Project

    location = str(tmp_path / "p.vscope")
    Project.create(location).close()
    with pytest.raises(JobProcessError) as raised:
        run(_process_tasks.exit_in_a_run, location)
    assert "exit code 1" in str(raised.value)
    assert "while run #1 (metric 'quits') was running; marked interrupted" in str(raised.value)
    assert runs_of(location) == [("quits", "interrupted")]
