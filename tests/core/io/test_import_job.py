"""The import job: mapping detection, duplicates, provenance, all-or-nothing on bad input."""

from __future__ import annotations

import csv
from pathlib import Path

import orjson
import pytest

from tests.conftest import qa_rows, table_counts, write_jsonl
from vendiscope.core.base.errors import InputError, ProjectError
from vendiscope.core.base.jobs import Cancelled, CancelToken, RecordingProgress
from vendiscope.core.io.importing import import_dataset, preview


def test_import_jsonl_records_everything(project, tmp_path: Path) -> None:
    rows = qa_rows(100)
    rows.append(dict(rows[5], id="dup-1"))  # same question/answer, new id: an exact duplicate
    rows.append(dict(rows[7], id="dup-2"))
    progress = RecordingProgress()
    result = import_dataset(project, write_jsonl(tmp_path / "qa.jsonl", rows), progress=progress)

    assert result.dataset.name == "qa"
    assert result.rows == 102 and result.duplicates == 2
    assert result.mapping.detected == "question/answer"
    assert result.mapping.roles == {
        "prompt": "question",
        "response": "answer",
        "source": "source",
        "id": "id",
    }
    info = project.dataset("qa")
    assert (info.row_count, info.duplicate_count, info.format) == (102, 2, "jsonl")
    first = project.records("qa", 0, 1)[0]
    assert (first.prompt, first.response, first.source, first.ext_id) == (
        "What is 0 + 0?",
        "0",
        "s0",
        "r0",
    )
    assert first.row_index == 1
    assert (
        progress.finished == 1 and progress.updates[-1][0] == (tmp_path / "qa.jsonl").stat().st_size
    )
    (run,) = project.runs("qa")
    assert run.kind == "import" and run.plugin == "importer:jsonl"
    assert run.result == {"rows": 102, "duplicates": 2, "skipped": 0}
    assert run.versions["vendiscope"]


def test_fingerprint_depends_on_content_and_order(project, tmp_path: Path) -> None:
    rows = qa_rows(30)
    a = import_dataset(project, write_jsonl(tmp_path / "a.jsonl", rows)).dataset
    b = import_dataset(project, write_jsonl(tmp_path / "b.jsonl", rows)).dataset
    c = import_dataset(project, write_jsonl(tmp_path / "c.jsonl", rows[::-1])).dataset
    assert a.fingerprint == b.fingerprint != c.fingerprint


@pytest.mark.parametrize(
    ("row", "detected", "expected"),
    [
        (
            {
                "messages": [
                    {"role": "system", "content": "Be brief."},
                    {"role": "user", "content": "Capital of France?"},
                    {"role": "assistant", "content": "Paris."},
                ]
            },
            "openai-messages",
            {"prompt": "system: Be brief.\n\nuser: Capital of France?", "response": "Paris."},
        ),
        (
            {
                "conversations": [
                    {"from": "human", "value": "Hi there"},
                    {"from": "gpt", "value": "Hello!"},
                ]
            },
            "sharegpt",
            {"prompt": "Hi there", "response": "Hello!"},
        ),
        (
            {"instruction": "Translate to French.", "input": "cat", "output": "chat"},
            "alpaca",
            {"prompt": "Translate to French.\n\ncat", "response": "chat"},
        ),
        (
            {"question": "2+2?", "answer": "4"},
            "question/answer",
            {"prompt": "2+2?", "response": "4"},
        ),
        (
            {"premise": "A dog runs.", "hypothesis": "An animal moves.", "label": 0},
            "nli",
            {"prompt": "Premise: A dog runs.\nHypothesis: An animal moves.", "label": "0"},
        ),
        ({"text": "plain document"}, "text", {"text": "plain document"}),
    ],
)
def test_chat_and_task_formats_are_detected(project, tmp_path, row, detected, expected) -> None:
    result = import_dataset(project, write_jsonl(tmp_path / "f.jsonl", [row, row]))
    assert result.mapping.detected == detected
    record = project.records("f", 0, 1)[0].roles()
    for role, value in expected.items():
        assert record[role] == value
    assert result.duplicates == 1


def test_mapping_overrides(project, tmp_path: Path) -> None:
    rows = [{"q": "a question", "a": "an answer", "d": "math"}]
    result = import_dataset(
        project,
        write_jsonl(tmp_path / "x.jsonl", rows),
        overrides=["prompt=q", "response=a", "source=d", "text="],
    )
    record = project.records("x", 0, 1)[0]
    assert (record.prompt, record.response, record.source, record.text) == (
        "a question",
        "an answer",
        "math",
        None,
    )
    assert result.mapping.detected == "manual"


def test_unknown_role_is_refused(project, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="ROLE=COLUMN"):
        import_dataset(
            project, write_jsonl(tmp_path / "x.jsonl", qa_rows(2)), overrides=["colour=q"]
        )


def _assert_unchanged(project, project_path: Path, before: dict[str, int]) -> None:
    assert table_counts(project_path) == before
    assert project.integrity_check() == "ok"


def test_malformed_line_aborts_and_leaves_project_unchanged(project, project_path, tmp_path):
    import_dataset(project, write_jsonl(tmp_path / "first.jsonl", qa_rows(10)))
    before = table_counts(project_path)
    bad = write_jsonl(tmp_path / "bad.jsonl", qa_rows(3000))
    lines = bad.read_bytes().splitlines(keepends=True)
    lines[2499] = b'{"question": "unterminated\n'
    bad.write_bytes(b"".join(lines))
    with pytest.raises(InputError) as caught:
        import_dataset(project, bad)
    message = str(caught.value)
    assert "bad.jsonl" in message and "line 2500" in message and "malformed JSON" in message
    _assert_unchanged(project, project_path, before)


def test_missing_mapped_column_names_field_and_row(project, project_path, tmp_path):
    rows = qa_rows(20)
    del rows[12]["answer"]
    before = table_counts(project_path)
    with pytest.raises(InputError, match=r"line 13, field 'answer': missing mapped column"):
        import_dataset(project, write_jsonl(tmp_path / "m.jsonl", rows))
    _assert_unchanged(project, project_path, before)


def test_ragged_csv_row_is_named(project, project_path, tmp_path):
    path = tmp_path / "r.csv"
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["question", "answer"])
        writer.writerows([["q1", "a1"], ["q2", "a2", "extra"], ["q3", "a3"]])
    before = table_counts(project_path)
    with pytest.raises(InputError, match=r"r\.csv, line 3.*expected 2 fields"):
        import_dataset(project, path)
    _assert_unchanged(project, project_path, before)


def test_skip_bad_imports_good_rows_and_reports_bad(project, tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "s.jsonl", qa_rows(10))
    with path.open("ab") as handle:
        handle.write(b"{broken\n")
        handle.write(b"\xff\xfe not utf-8\n")
        handle.write(orjson.dumps({"question": "only a question"}) + b"\n")
    report = tmp_path / "bad.jsonl"
    result = import_dataset(project, path, skip_bad=True, bad_report=report)
    assert result.rows == 10 and len(result.skipped) == 3
    assert project.dataset("s").skipped_count == 3
    reported = [orjson.loads(line) for line in report.read_bytes().splitlines()]
    assert [r["line"] for r in reported] == [11, 12, 13]
    assert reported[2]["field"] == "answer"
    assert "UTF-8" in reported[1]["error"]


def test_duplicate_dataset_name_refused(project, tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "d.jsonl", qa_rows(3))
    import_dataset(project, path)
    with pytest.raises(ProjectError, match="already has a dataset named 'd'"):
        import_dataset(project, path)


def test_missing_path(project, tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"nowhere\.jsonl: no such file or folder"):
        import_dataset(project, tmp_path / "nowhere.jsonl")


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [("empty.jsonl", b"", "empty"), ("blob.jsonl", bytes(range(256)) * 40, "binary")],
)
def test_empty_and_binary_files(project, project_path, tmp_path, name, content, message):
    path = tmp_path / name
    path.write_bytes(content)
    before = table_counts(project_path)
    with pytest.raises(InputError, match=message):
        import_dataset(project, path)
    _assert_unchanged(project, project_path, before)


@pytest.mark.slow
def test_huge_single_field(project, tmp_path: Path) -> None:
    big = "x" * (50 * 1024 * 1024)
    result = import_dataset(
        project, write_jsonl(tmp_path / "big.jsonl", [{"text": big}, {"text": "small"}])
    )
    assert result.rows == 2
    assert len(project.records("big", 0, 1)[0].text) == len(big)


def test_cancel_rolls_back(project, project_path, tmp_path: Path) -> None:
    before = table_counts(project_path)
    token = CancelToken()

    class CancelAfterFirstBatch(RecordingProgress):
        def update(self, completed, total=None):
            super().update(completed, total)
            token.cancel()

    with pytest.raises(Cancelled):
        import_dataset(
            project,
            write_jsonl(tmp_path / "c.jsonl", qa_rows(10_000)),
            progress=CancelAfterFirstBatch(),
            cancel=token,
        )
    _assert_unchanged(project, project_path, before)


def test_preview_reads_only_the_start(tmp_path: Path) -> None:
    seen = preview(write_jsonl(tmp_path / "p.jsonl", qa_rows(5000)), rows=5)
    assert seen.importer == "jsonl" and len(seen.rows) == 5
    assert seen.mapping is not None and seen.mapping.roles["prompt"] == "question"


def _has_hash_index(project_path: Path) -> bool:
    import sqlite3

    connection = sqlite3.connect(project_path)
    try:
        names = {r[0] for r in connection.execute("SELECT name FROM sqlite_master")}
    finally:
        connection.close()
    return "ix_records_content_hash" in names


@pytest.mark.slow
def test_large_import_rebuilds_the_hash_index(project, project_path, tmp_path) -> None:
    rows = qa_rows(60_000)
    rows[-1] = dict(rows[0], id="copy")
    bad = write_jsonl(tmp_path / "bad.jsonl", rows)
    with bad.open("ab") as handle:
        handle.write(b"not json\n")
    with pytest.raises(InputError, match="line 60001"):
        import_dataset(project, bad)
    assert _has_hash_index(project_path)  # the drop was rolled back with the import

    result = import_dataset(project, write_jsonl(tmp_path / "big.jsonl", rows))
    assert result.rows == 60_000 and result.duplicates == 1
    assert _has_hash_index(project_path)
    assert project.integrity_check() == "ok"


def test_new_projects_use_large_pages(project) -> None:
    with project.engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA page_size").scalar() == 16_384


# --------------------------------------------------------------------------- explicit maps, CLI
def _cli(*args: object):
    from typer.testing import CliRunner

    from vendiscope.cli._app import app

    return CliRunner().invoke(app, [str(a) for a in args])


def test_explicit_maps_work_when_detection_finds_no_text_column(tmp_path: Path) -> None:
    data = write_jsonl(
        tmp_path / "nested.jsonl",
        [{"meta": {"q": "what is two?", "a": "2"}}, {"meta": {"q": "and three?", "a": "3"}}],
    )
    project = tmp_path / "p.vscope"
    maps = ["--map", "prompt=meta.q", "--map", "response=meta.a"]
    dry = _cli("import", project, data, *maps, "--dry-run")
    assert dry.exit_code == 0 and "prompt=meta.q, response=meta.a" in dry.output
    done = _cli("import", project, data, *maps)
    assert done.exit_code == 0, done.output
    assert "imported 2 records" in done.output
    shown = orjson.loads(_cli("show", project, "nested", "--json").output)
    assert [(r["prompt"], r["response"]) for r in shown] == [
        ("what is two?", "2"),
        ("and three?", "3"),
    ]


def test_maps_without_a_content_role_still_get_the_detection_message(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "nested.jsonl", [{"meta": {"q": "x"}, "n": 1}])
    result = _cli("import", tmp_path / "p.vscope", data, "--map", "label=n")
    assert result.exit_code == 1
    assert "nested.jsonl: no column holds text; map the fields yourself" in result.output


# --------------------------------------------------------------------------- another app's database
def _dump(path: Path) -> str:
    import sqlite3

    connection = sqlite3.connect(path)
    try:
        return "\n".join(connection.iterdump())
    finally:
        connection.close()


def test_import_into_another_applications_database_is_refused(tmp_path: Path) -> None:
    import sqlite3

    other = tmp_path / "notes.db"
    connection = sqlite3.connect(other)
    connection.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
    connection.execute("INSERT INTO notes (body) VALUES ('keep me')")
    connection.commit()
    connection.close()
    dump, raw = _dump(other), other.read_bytes()
    data = write_jsonl(tmp_path / "qa.jsonl", qa_rows(3))
    result = _cli("import", other, data)
    assert result.exit_code == 1
    assert "notes.db: is a database but not a Vendiscope project" in result.output
    assert "left unchanged" in result.output
    assert _dump(other) == dump
    assert other.read_bytes() == raw  # not even switched to WAL
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.db", "qa.jsonl"]
    from vendiscope.core.store.project import Project

    with pytest.raises(ProjectError, match="not a Vendiscope project"):
        Project.open(other, create=True)
    assert other.read_bytes() == raw


def test_an_empty_database_still_becomes_a_project(tmp_path: Path) -> None:
    import sqlite3

    empty = tmp_path / "empty.vscope"
    connection = sqlite3.connect(empty)  # a real SQLite file, with nothing in it
    connection.execute("CREATE TABLE scratch (x)")
    connection.execute("DROP TABLE scratch")
    connection.close()
    assert empty.stat().st_size > 0
    result = _cli("import", empty, write_jsonl(tmp_path / "qa.jsonl", qa_rows(3)))
    assert result.exit_code == 0, result.output
    assert "imported 3 records" in result.output


# ------------------------------------------------------------------- deep rows of other importers
DEEP_IMPORTER = '''
from vendiscope.api import Importer, SourceInfo, SourceRow


class Deep(Importer):
    """Yields a row too deep to store between two good ones (no depth limit of its own)."""

    def inspect(self, path):
        return SourceInfo(unit="row", total=3, progress_unit="rows")

    def read(self, path):
        deep = []
        for _ in range(100_000):
            deep = [deep]
        yield SourceRow(1, {"text": "a"}, 1)
        yield SourceRow(2, {"text": "b", "deep": deep}, 2)
        yield SourceRow(3, {"text": "c"}, 3)
'''


def test_a_row_too_deep_to_store_from_any_importer_is_a_bad_row(
    project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    from vendiscope.core.plugin_host.manifest import Contribution, PluginManifest
    from vendiscope.core.plugin_host.registry import PluginRegistry

    (tmp_path / "vsp_deep.py").write_text(DEEP_IMPORTER, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    registry = PluginRegistry.discover(plugin_dir=None)
    registry.add_manifest(
        PluginManifest("deep-things", (Contribution("importer", "deep", "vsp_deep:Deep"),))
    )
    source = tmp_path / "x.deep"
    source.write_text("anything")
    try:
        with pytest.raises(InputError, match=r"x\.deep, row 2: nested too deeply to be stored"):
            import_dataset(project, source, format="deep", registry=registry)
        result = import_dataset(project, source, format="deep", registry=registry, skip_bad=True)
        assert result.rows == 2 and [b.number for b in result.skipped] == [2]
    finally:
        sys.modules.pop("vsp_deep", None)
