"""``vendiscope migrate-project``: a local project copied to PostgreSQL, verified by counts and
hashes; a non-empty target refused; a copy that does not match rolled back."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from tests.conftest import qa_rows, write_jsonl
from tests.core.vectors import _engine_plugins
from vendiscope.cli._app import app
from vendiscope.core.base.errors import ProjectError
from vendiscope.core.io.importing import import_dataset
from vendiscope.core.plugin_host import PluginRegistry
from vendiscope.core.store import subsets, transfer, vectors
from vendiscope.core.store.project import Project
from vendiscope.core.store.runs import fail_run, start_run
from vendiscope.core.vectors.featurizing import featurize_dataset

runner = CliRunner()

ODD_ROWS = [
    {
        "id": "u1",
        "question": "Ünïcode \u2013 \u201cquotes\u201d and emoji \U0001f642?",
        "answer": "yes\nnewline\ttab",
    },
    {"id": "u2", "question": "null answer?", "answer": None, "meta": {"k": 1.5, "l": [1, None]}},
    {"id": "u3", "question": "back\\slash and 'single' quotes", "answer": "ok", "n": 10**12},
]


@pytest.fixture
def local_project(tmp_path: Path) -> Path:
    """A project with every kind of row: datasets, records, vector sets, runs, subsets."""
    path = tmp_path / "team.vscope"
    registry = PluginRegistry.discover(plugin_dir=None)
    registry.add_manifest(_engine_plugins.manifest)
    with Project.create(path) as project:
        import_dataset(project, write_jsonl(tmp_path / "qa.jsonl", qa_rows(120)), name="qa")
        import_dataset(project, write_jsonl(tmp_path / "odd.jsonl", ODD_ROWS), name="odd")
        featurize_dataset(project, "qa", featurizer="toy", chunk_rows=50, registry=registry)
        vectors.write_matrix(project, "qa", "scores", np.linspace(0, 1, 120), kind="score",
                             model=None, params={"note": "ünï"})  # fmt: skip
        partial = vectors.open_for_writing(project, "odd", "partial", kind="embedding",
                                           model="m", params={}, dim=2, chunk_rows=2)  # fmt: skip
        vectors.write_chunk(project, partial, 0, np.ones((2, 2), np.float32))
        subsets.save(project, "qa", "picked", [7, 3, 99], gains=[0.5, 0.25, 1e-9])
        run_id = start_run(project, key="k", kind="metric", plugin="metric:x", dataset_id=None,
                           params={"q": 1.0})  # fmt: skip
        fail_run(project, run_id, RuntimeError("boom"), cancelled=False, started=0.0)
    return path


def invoke(*args: str, code: int = 0):
    result = runner.invoke(app, [str(a) for a in args])
    assert result.exit_code == code, result.output
    return result


def test_migrate_a_local_project_to_postgresql(local_project: Path, pg_url: str) -> None:
    report = json.loads(invoke("migrate-project", local_project, pg_url, "--json").output)
    with Project.open(local_project) as source:
        expected = transfer.table_digests(source)
        source_matrix = vectors.load(source, "qa", "toy/toy")
    assert {t: v["rows"] for t, v in report["tables"].items()} == {
        t: d.rows for t, d in expected.items()
    }
    assert report["tables"]["records"]["rows"] == 123
    with Project.open(pg_url) as target:  # the desktop app opens it like a local project
        assert target.engine.dialect.name == "postgresql"
        assert transfer.table_digests(target) == expected
        assert np.array_equal(vectors.load(target, "qa", "toy/toy"), source_matrix)
        (partial,) = [s for s in vectors.list_sets(target, "odd") if s.name == "partial"]
        assert (partial.status, partial.committed_rows) == ("running", 2)
        assert [r.seq for r in target.iter_records("qa", subset="picked")] == [7, 3, 99]
        odd = target.records("odd")
        assert odd[0].prompt == ODD_ROWS[0]["question"] and odd[1].response is None
        assert odd[1].original() == ODD_ROWS[1]
        assert [r.status for r in target.runs()][-1] == "failed"
        # New rows get new ids: the sequences moved past the copied ones.
        more = import_dataset(target, write_jsonl(local_project.parent / "m.jsonl", qa_rows(5)))
        assert more.rows == 5 and len(target.datasets()) == 3


def test_a_non_empty_target_is_refused_unless_forced(local_project: Path, pg_url: str) -> None:
    invoke("migrate-project", local_project, pg_url)
    refused = " ".join(invoke("migrate-project", local_project, pg_url, code=1).output.split())
    assert "already holds project data" in refused and "--force" in refused
    with Project.open(pg_url) as target:
        target.delete_dataset("odd")
    out = " ".join(invoke("migrate-project", local_project, pg_url, "--force").output.split())
    assert "previous contents replaced" in out and "match the source" in out
    with Project.open(local_project) as source, Project.open(pg_url) as target:
        assert transfer.table_digests(target) == transfer.table_digests(source)


def test_a_copy_that_differs_is_rolled_back_and_named(
    local_project: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    batches = transfer._batches

    def corrupt_on_read_back(connection, table):
        for batch in batches(connection, table):
            if connection.dialect.name == "postgresql" and table.name == "records":
                batch[-1] = dict(batch[-1], response="tampered")
            yield batch

    monkeypatch.setattr(transfer, "_batches", corrupt_on_read_back)
    with pytest.raises(ProjectError, match=r"does not match its source: records: content hash"):
        transfer.copy_project(local_project, pg_url)
    monkeypatch.undo()
    with Project.open(pg_url) as target:
        assert target.datasets() == [] and target.runs() == []


def test_back_from_postgresql_to_a_file(local_project: Path, pg_url: str, tmp_path) -> None:
    transfer.copy_project(local_project, pg_url)
    copy = tmp_path / "back.vscope"
    report = transfer.copy_project(pg_url, copy)
    assert report.rows > 0
    with Project.open(local_project) as source, Project.open(copy) as back:
        assert transfer.table_digests(back) == transfer.table_digests(source)
    with pytest.raises(ProjectError, match="same project"):
        transfer.copy_project(copy, copy)
