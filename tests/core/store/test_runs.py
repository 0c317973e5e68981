"""recorded_run: the one place a job's run is opened and closed, however the job ends."""

from __future__ import annotations

import time

import pytest

from vendiscope.core.base.jobs import Cancelled, CancelToken
from vendiscope.core.store.runs import recorded_run
from vendiscope.core.store.schema import Run


def _record(project, **extra):
    return recorded_run(
        project, key="test:run", kind="test", plugin="core:test", dataset_id=None,
        params={"x": 1}, packages=(), **extra,
    )  # fmt: skip


def _timings(project, run_id: int) -> dict:
    with project.session() as session:
        return session.get(Run, run_id).timings


def test_a_finished_run_is_complete_with_its_result_and_timing(project) -> None:
    started = time.perf_counter() - 5.0  # the job began before its run was opened
    with _record(project, started=started) as run:
        assert project.run(run.id).status == "running"
        run.finish({"value": 3}, seconds=1.25)
    found = project.run(run.id)
    assert (found.status, found.result, found.error) == ("complete", {"value": 3}, None)
    assert _timings(project, run.id) == {"seconds": 1.25}
    assert found.params == {"x": 1} and found.kind == "test" and found.plugin == "core:test"

    with _record(project, started=started) as other:
        pass  # ended without finish(): complete, no result, timed from ``started``
    found = project.run(other.id)
    assert (found.status, found.result) == ("complete", None)
    assert _timings(project, other.id)["seconds"] >= 5.0


def test_failed_and_cancelled_runs_are_closed_with_their_status(project) -> None:
    with pytest.raises(ValueError, match="boom"), _record(project) as failed:
        raise ValueError("boom")
    found = project.run(failed.id)
    assert found.status == "failed" and found.error == repr(ValueError("boom"))
    assert found.finished_at is not None and "seconds" in _timings(project, failed.id)

    token = CancelToken()
    with pytest.raises(Cancelled), _record(project, cancel=token) as cancelled:
        token.cancel()
        token.raise_if_cancelled()
    assert project.run(cancelled.id).status == "cancelled"

    # an error while the token is not cancelled is a failure, even with a token
    with pytest.raises(RuntimeError), _record(project, cancel=CancelToken()) as plain:
        raise RuntimeError("no cancel")
    assert project.run(plain.id).status == "failed"

    # ``stopped`` says which errors are a cancel (Ctrl-C for the vector jobs)
    stopped = lambda error: isinstance(error, KeyboardInterrupt)  # noqa: E731
    with pytest.raises(KeyboardInterrupt), _record(project, stopped=stopped) as interrupted:
        raise KeyboardInterrupt
    assert project.run(interrupted.id).status == "cancelled"
    assert [r.status for r in project.runs()] == ["failed", "cancelled", "failed", "cancelled"]

    # Ctrl-C is a cancel for every run, with no token or ``stopped`` (a CLI command's runs)
    with pytest.raises(KeyboardInterrupt), _record(project) as ctrl_c:
        raise KeyboardInterrupt
    assert project.run(ctrl_c.id).status == "cancelled"
