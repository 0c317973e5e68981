"""Vector sets in the project file: chunked writes, resume, one-pass loads."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.conftest import qa_rows, write_jsonl
from vendiscope.core.base.errors import ProjectError
from vendiscope.core.io.importing import import_dataset
from vendiscope.core.store import vectors


@pytest.fixture
def dataset(project, tmp_path: Path) -> str:
    import_dataset(project, write_jsonl(tmp_path / "d.jsonl", qa_rows(1000)), name="d")
    return "d"


def new_set(project, dataset, **overrides):
    settings = dict(kind="embedding", model="m", params={"a": 1}, dim=8, chunk_rows=300)
    settings.update(overrides)
    return vectors.open_for_writing(project, dataset, "v", **settings)


def write_all(project, info, matrix, skip=()):
    for index in range(info.n_chunks):
        if index not in skip:
            start, stop = info.chunk_range(index)
            vectors.write_chunk(project, info, index, matrix[start:stop])


def test_write_load_iterate_and_read_rows(project, dataset) -> None:
    matrix = np.random.default_rng(0).standard_normal((1000, 8)).astype(np.float32)
    info = new_set(project, dataset)
    assert (info.n_chunks, info.chunk_range(3)) == (4, (900, 1000))
    write_all(project, info, matrix)
    done = vectors.mark_complete(project, info)
    assert done.status == "complete" and done.committed_rows == 1000
    assert np.array_equal(vectors.load(project, dataset, "v"), matrix)
    chunks = list(vectors.iter_chunks(project, dataset, "v"))
    assert [start for start, _ in chunks] == [0, 300, 600, 900]
    assert np.array_equal(np.vstack([rows for _, rows in chunks]), matrix)
    assert np.array_equal(vectors.read_rows(project, done, [999, 0, 450]), matrix[[999, 0, 450]])


def test_resume_continues_after_committed_chunks(project, dataset) -> None:
    matrix = np.arange(8000, dtype=np.float32).reshape(1000, 8)
    info = new_set(project, dataset)
    write_all(project, info, matrix, skip={2, 3})
    with pytest.raises(ProjectError, match=r"incomplete \(600 of 1000 rows\)"):
        vectors.load(project, dataset, "v")
    with pytest.raises(ProjectError, match=r"missing chunks \[2, 3\]"):
        vectors.mark_complete(project, info)
    again = new_set(project, dataset)
    assert again.id == info.id and vectors.committed_chunks(project, again) == {0, 1}
    for index in (2, 3):
        start, stop = again.chunk_range(index)
        vectors.write_chunk(project, again, index, matrix[start:stop])
    vectors.mark_complete(project, again)
    assert np.array_equal(vectors.load(project, dataset, "v"), matrix)


def test_other_settings_are_never_overwritten(project, dataset) -> None:
    new_set(project, dataset)
    with pytest.raises(ProjectError, match=r"exists with other settings \(dim, params\)"):
        new_set(project, dataset, params={"a": 2}, dim=16)


def test_only_identity_params_must_match(project, dataset) -> None:
    first = new_set(project, dataset, params={"model": "m", "batch_size": 8}, identity=("model",))
    again = new_set(project, dataset, params={"model": "m", "batch_size": 64}, identity=("model",))
    assert again.id == first.id
    with pytest.raises(ProjectError, match="other settings"):
        new_set(project, dataset, params={"model": "n", "batch_size": 8}, identity=("model",))


def test_bad_chunk_shape_is_refused(project, dataset) -> None:
    info = new_set(project, dataset)
    with pytest.raises(ProjectError, match="chunk 0 should be 300 x 8, got 300 x 16"):
        vectors.write_chunk(project, info, 0, np.zeros((300, 16), np.float32))
    assert vectors.committed_chunks(project, info) == set()


def test_listing_and_deleting(project, dataset) -> None:
    info = new_set(project, dataset)
    write_all(project, info, np.zeros((1000, 8), np.float32), skip={3})
    (listed,) = vectors.list_sets(project, dataset)
    assert (listed.name, listed.status, listed.committed_rows) == ("v", "running", 900)
    with pytest.raises(ProjectError, match="no vector set named 'w'"):
        vectors.get_set(project, dataset, "w")
    vectors.delete_set(project, dataset, "v")
    assert vectors.list_sets(project, dataset) == []
    with project.engine.connect() as connection:
        assert connection.exec_driver_sql("SELECT COUNT(*) FROM vector_chunks").scalar() == 0
