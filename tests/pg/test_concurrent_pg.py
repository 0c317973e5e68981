"""Two writer processes on one PostgreSQL catalog: no row is lost, doubled or corrupted."""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import text

from tests.conftest import qa_rows, write_jsonl
from tests.pg import _writers
from vendiscope.core.io.importing import import_dataset
from vendiscope.core.store import vectors


def _pool() -> tuple[ProcessPoolExecutor, object]:
    context = multiprocessing.get_context("spawn")
    return ProcessPoolExecutor(2, mp_context=context), context.Manager()


@pytest.mark.slow
def test_two_processes_fill_one_vector_set_and_import_at_once(project, tmp_path: Path) -> None:
    import_dataset(project, write_jsonl(tmp_path / "d.jsonl", qa_rows(1000)), name="d")
    n_chunks = 40
    pool, manager = _pool()
    with pool, manager:
        barrier = manager.Barrier(2)
        # Both create the same set at once, then write every chunk: one ascending, one
        # descending, so they meet in the middle and race on the same chunks.
        forward = pool.submit(_writers.write_chunks, project.location, "v",
                              list(range(n_chunks)), barrier)  # fmt: skip
        backward = pool.submit(_writers.write_chunks, project.location, "v",
                               list(reversed(range(n_chunks))), barrier)  # fmt: skip
        written = forward.result(timeout=300) + backward.result(timeout=300)

        barrier = manager.Barrier(2)
        paths = [write_jsonl(tmp_path / f"{n}.jsonl", qa_rows(3000, start=i * 3000))
                 for i, n in enumerate("ab")]  # fmt: skip
        imports = [pool.submit(_writers.import_rows, project.location, name, str(path), barrier)
                   for name, path in zip("ab", paths, strict=True)]  # fmt: skip
        assert [f.result(timeout=300) for f in imports] == [3000, 3000]

    assert written == n_chunks  # each chunk written by exactly one of the two
    (info,) = vectors.list_sets(project, "d")
    assert info.status == "complete" and info.committed_rows == 1000
    expected = np.vstack([_writers.expected_rows(i, 25, 16) for i in range(n_chunks)])
    assert np.array_equal(vectors.load(project, "d", "v"), expected)
    with project.engine.connect() as connection:
        assert connection.execute(text("SELECT COUNT(*) FROM vector_chunks")).scalar() == 40
        per_dataset = dict(connection.execute(text(
            "SELECT d.name, COUNT(r.id) FROM datasets d JOIN records r ON r.dataset_id = d.id "
            "GROUP BY d.name")).all())  # fmt: skip
        assert per_dataset == {"d": 1000, "a": 3000, "b": 3000}
        seqs = connection.execute(text(
            "SELECT COUNT(DISTINCT (dataset_id, seq)) FROM records")).scalar()  # fmt: skip
        assert seqs == 7000
    assert [r.prompt for r in project.records("b", 2999, 1)] == ["What is 5999 + 5999?"]


@pytest.mark.slow
def test_two_jobs_on_the_same_set_at_once(project, tmp_path: Path) -> None:
    import_dataset(project, write_jsonl(tmp_path / "d.jsonl", qa_rows(400)), name="d")
    pool, manager = _pool()
    with pool, manager:
        barrier = manager.Barrier(2)
        jobs = [pool.submit(_writers.run_job, project.location, "d", barrier) for _ in range(2)]
        results = [job.result(timeout=300) for job in jobs]
    assert all(r["rows"] == 400 for r in results)
    assert sum(r.get("featurized", 0) for r in results) == 400  # each chunk counted by its writer
    (info,) = vectors.list_sets(project, "d")
    assert info.status == "complete" and info.committed_rows == 400
    with project.engine.connect() as connection:
        rows = connection.execute(text(
            "SELECT chunk_index, row_start, n_rows FROM vector_chunks ORDER BY chunk_index"
        )).all()  # fmt: skip
    assert [tuple(r) for r in rows] == [(i, 20 * i, 20) for i in range(20)]
    runs = [r for r in project.runs("d") if r.kind == "feature"]
    assert [r.status for r in runs] == ["complete", "complete"]
