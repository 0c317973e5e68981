"""The featurizer job reuses rows by content hash from sets of the same ``model_id``: a second
dataset computes only its new records, its reused rows are byte-identical to the first set's,
and a dataset made only of known records computes nothing and does not load the model."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.conftest import qa_rows, write_jsonl
from tests.core.vectors import _reuse_plugins
from tests.core.vectors._reuse_plugins import logged
from vendiscope.core.io.importing import import_dataset
from vendiscope.core.plugin_host import PluginRegistry
from vendiscope.core.store import vectors
from vendiscope.core.vectors.featurizing import featurize_dataset


@pytest.fixture
def registry() -> PluginRegistry:
    registry = PluginRegistry.discover(plugin_dir=None)
    registry.add_manifest(_reuse_plugins.manifest)
    return registry


def gradients(project, dataset: str, registry, tiny_lm: Path, log: Path, **options):
    params = {"model": str(tiny_lm), "batch_size": 4, "dim": 16, "log": str(log), **options}
    return featurize_dataset(project, dataset, featurizer="recording-gradients",
                             params=params, registry=registry, chunk_rows=8)  # fmt: skip


def test_a_second_dataset_computes_only_its_new_records(
    project, tmp_path: Path, registry, tiny_lm: Path
) -> None:
    import_dataset(project, write_jsonl(tmp_path / "a.jsonl", qa_rows(12)), name="a")
    overlap = qa_rows(6, start=6) + qa_rows(5, start=100)  # 6 known records, 5 new ones
    import_dataset(project, write_jsonl(tmp_path / "b.jsonl", overlap), name="b")
    first_log, second_log = tmp_path / "first.log", tmp_path / "second.log"

    first = gradients(project, "a", registry, tiny_lm, first_log)
    assert first.counts == {"featurized": 12}
    second = gradients(project, "b", registry, tiny_lm, second_log)
    assert second.counts == {"featurized": 5, "reused": 6}
    seen = sorted(line for line in logged(second_log) if line.startswith("row "))
    assert seen == sorted(f"row What is {i} + {i}?" for i in range(100, 105))

    a = vectors.load(project, "a", first.vector_set.name)
    b = vectors.load(project, "b", second.vector_set.name)
    assert a[6:12].tobytes() == b[:6].tobytes()  # copied byte for byte
    assert np.isfinite(b).all() and (np.abs(b[6:]).sum(axis=1) > 0).all()

    # another model_id (another seed) reuses nothing
    import_dataset(project, write_jsonl(tmp_path / "c.jsonl", qa_rows(3)), name="c")
    other = gradients(project, "c", registry, tiny_lm, tmp_path / "c.log", seed=1)
    assert other.counts == {"featurized": 3}


def test_rows_of_a_partial_set_are_reused(project, tmp_path: Path, registry) -> None:
    import_dataset(project, write_jsonl(tmp_path / "a.jsonl", qa_rows(20)), name="a")
    import_dataset(project, write_jsonl(tmp_path / "b.jsonl", qa_rows(20)), name="b")
    kwargs = {"featurizer": "slow", "registry": registry, "chunk_rows": 5, "name": "slow"}
    featurize_dataset(project, "a", **kwargs)
    (whole,) = vectors.list_sets(project, "a")
    # make "a" partial: keep chunks 0 and 2 only (rows 0-4 and 10-14)
    partial = vectors.open_for_writing(project, "a", "partial", kind="feature",
                                       model=whole.model, params=whole.params, dim=whole.dim,
                                       chunk_rows=5)  # fmt: skip
    full = vectors.load(project, "a", "slow")
    for index in (0, 2):
        vectors.write_chunk(project, partial, index, full[index * 5 : index * 5 + 5])
    vectors.delete_set(project, "a", "slow")

    log = tmp_path / "b.log"
    result = featurize_dataset(project, "b", params={"log": str(log)}, **kwargs)
    assert result.counts == {"featurized": 10, "reused": 10}
    seen = sorted(int(line.split()[3]) for line in logged(log))  # "row What is I + I?"
    assert seen == [*range(5, 10), *range(15, 20)]
    assert vectors.load(project, "b", "slow").tobytes() == full.tobytes()


def test_a_dataset_of_known_records_loads_no_model(
    project, tmp_path: Path, registry, tiny_lm: Path
) -> None:
    source = write_jsonl(tmp_path / "a.jsonl", qa_rows(10))
    import_dataset(project, source, name="a")
    import_dataset(project, source, name="again")  # the same file, as a new dataset
    first_log, again_log = tmp_path / "first.log", tmp_path / "again.log"
    first = gradients(project, "a", registry, tiny_lm, first_log)
    assert logged(first_log).count("load") == 1

    again = gradients(project, "again", registry, tiny_lm, again_log)
    assert again.counts == {"featurized": 0, "reused": 10}
    assert logged(again_log) == []  # no model loaded, no record featurized
    assert again.vector_set.status == "complete"
    assert again.vector_set.params["describe"] == first.vector_set.params["describe"]
    assert vectors.load(project, "again", again.vector_set.name).tobytes() == (
        vectors.load(project, "a", first.vector_set.name).tobytes()
    )
