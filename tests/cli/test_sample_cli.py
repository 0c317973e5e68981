"""`vendiscope sample`: a stratified sample as a new dataset, and scores that say they are one."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from tests.conftest import table_counts, write_jsonl
from tests.core._planted import write_set
from tests.core.io.test_sampling import mixed_rows
from vendiscope.cli import app
from vendiscope.core.store import subsets
from vendiscope.core.store.project import Project

runner = CliRunner()


def run(*args: object, code: int = 0, columns: int = 80):
    result = runner.invoke(app, [str(a) for a in args], env={"COLUMNS": str(columns)})
    assert result.exit_code == code, result.output
    return result


@pytest.fixture
def location(tmp_path: Path) -> Path:
    path = tmp_path / "p.vscope"
    run("new", path)
    run("import", path, write_jsonl(tmp_path / "pool.jsonl", mixed_rows()), "--name", "pool")
    return path


def test_sample_prints_the_dataset_the_rows_per_source_and_the_next_commands(
    location: Path,
) -> None:
    out = run("sample", location, "pool", "--rows", 20).stdout
    assert "dataset pool-sample-20: a stratified sample of 20 of pool's 100 rows" in out
    assert "(by source, seed 0)" in out and "subset pool-sample-20 of pool" in out
    table = [line for line in out.splitlines() if line[:1] in "┏┃┡│└"]
    assert table and all(len(line) <= 80 for line in table)
    cells = {row[0]: row[1:] for row in (line.strip("│").split("│") for line in table[3:-1])}
    got = {source.strip(): [c.strip() for c in rest] for source, rest in cells.items()}
    assert got == {"a": ["12", "60", "20.0%"], "b": ["6", "30", "20.0%"],
                   "c": ["1", "9", "11.1%"], "(none)": ["1", "1", "100.0%"]}  # fmt: skip
    assert f"next: `vendiscope gradients {location} pool-sample-20` then " in out
    assert f"`vendiscope score {location} pool-sample-20`" in out
    with Project.open(location) as opened:
        assert opened.dataset("pool-sample-20").row_count == 20
        taken = subsets.members(opened, "pool", "pool-sample-20").positions
        lines = [r.row_index for r in opened.iter_records("pool-sample-20")]  # 1-based
        assert lines == [position + 1 for position in taken]


def test_sample_json_names_every_row_taken(location: Path) -> None:
    found = json.loads(run("sample", location, "pool", "-n", 10, "--name", "ten", "--seed", 4,
                           "--json").stdout)  # fmt: skip
    assert (found["dataset"], found["parent"], found["rows"], found["parent_rows"]) == (
        "ten", "pool", 10, 100,
    )  # fmt: skip
    assert (found["seed"], found["by"], found["subset"]) == (4, "source", "ten")
    # 6, 3, 1 and 0 by the largest remainder; the row without a source takes one from a
    assert [s["sample"] for s in found["strata"]] == [5, 3, 1, 1]
    assert found["strata"][0] == {"source": "a", "sample": 5, "dataset": 60}
    assert len(found["positions"]) == 10 and found["run_id"] >= 1
    assert found["next"] == f"vendiscope gradients {location} ten"
    assert found["then"] == f"vendiscope score {location} ten"
    with Project.open(location) as opened:
        assert subsets.members(opened, "pool", "ten").positions == found["positions"]


def test_refused_samples_exit_1_and_change_nothing(location: Path) -> None:
    before = table_counts(location)
    out = run("sample", location, "pool", "--rows", 101, code=1).output
    assert "rows must be between 1 and 100 (the rows of dataset 'pool'); got 101" in out
    run("sample", location, "pool", "--rows", 5, "--name", "kept")
    after = table_counts(location)
    out = run("sample", location, "pool", "--rows", 5, "--name", "kept", code=1).output
    assert "already has a dataset named 'kept'" in out
    error = json.loads(run("sample", location, "pool", "--rows", 0, "--json", code=1).stdout)
    assert error["kind"] == "project" and "got 0" in error["error"]
    assert table_counts(location) == after != before


def test_many_sources_are_cut_to_the_largest_unless_all(tmp_path: Path) -> None:
    path = tmp_path / "p.vscope"
    rows = [{"prompt": f"q{i}", "response": "a", "source": f"s{i % 30:02d}"} for i in range(300)]
    run("new", path)
    run("import", path, write_jsonl(tmp_path / "many.jsonl", rows), "--name", "many")
    out = run("sample", path, "many", "--rows", 60).output
    assert "the 20 largest of 30 sources" in out and "… 10 more sources not shown" in out
    everything = run("sample", path, "many", "--rows", 60, "--name", "all", "--all").output
    assert "not shown" not in everything and "s29" in everything


@pytest.mark.slow
def test_the_score_of_a_sample_says_it_is_one(location: Path) -> None:
    run("sample", location, "pool", "--rows", 40)
    with Project.open(location) as opened:
        rows = np.random.default_rng(0).standard_normal((40, 16)).astype(np.float32)
        write_set(opened, "pool-sample-40", "gradients/random", rows)
    out = run("score", location, "pool-sample-40", columns=200).output
    assert "G-Vendi of 40 records" in out
    assert (
        "(a stratified sample of 40 of pool's 100 rows: it estimates pool's G-Vendi at n = 40)"
        in out
    )
    found = json.loads(run("score", location, "pool-sample-40", "--json").stdout)
    assert found["sample"]["parent"] == "pool" and found["sample"]["rows"] == 40
