"""`vendiscope score` compares sets of different sizes at one size: the per-source table and
the dataset beside its subsets each get the column "at n = m"."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from tests.core._planted import planted_dataset
from vendiscope.cli import app
from vendiscope.core.store import subsets
from vendiscope.core.store.project import Project

runner = CliRunner()


def run(*args: object) -> str:
    result = runner.invoke(app, [str(a) for a in args], terminal_width=100)
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture
def location(tmp_path: Path) -> Path:
    """978 records in four sources (396, 274, 178, 130) and two subsets of 20."""
    path = tmp_path / "p.vscope"
    with Project.create(path) as project:
        labels = planted_dataset(project, tmp_path)
        spread = [int(np.flatnonzero(labels == c)[0]) for c in range(20)]
        subsets.from_positions(project, "pool", "spread", spread)
        subsets.from_positions(project, "pool", "lump", np.flatnonzero(labels == 0)[:20])
    return path


def source_rows(output: str) -> dict[str, list[str]]:
    """The cells of each row of the per-source table."""
    return {
        cells[0]: cells[1:]
        for line in output.splitlines()
        if line.startswith("│ c")
        for cells in [[c.strip() for c in line.strip("│").split("│")]]
    }


def test_the_source_table_compares_sources_at_the_smallest_size(location: Path) -> None:
    out = run("score", location, "pool")
    header = next(line for line in out.splitlines() if "source" in line and "records" in line)
    assert "at n = 130" in header
    rows = source_rows(out)
    assert {s: int(cells[0]) for s, cells in rows.items()} == {
        "c0": 396, "c1": 274, "c2": 178, "c3": 130}  # fmt: skip
    assert rows["c3"][3] == rows["c3"][1]  # the smallest source: its own score
    assert all("±" in rows[s][3] for s in ("c0", "c1", "c2"))  # the others: mean ± sd
    at_n = [float(cells[3].split("±")[0]) for cells in rows.values()]
    assert at_n == sorted(at_n, reverse=True)  # ranked by the score at equal n
    assert (
        "at n = 130: each source scored at the smallest one's size, the mean ± sd of 5 random "
        "draws of 130 records from each larger source"
    ) in out
    table = [line for line in out.splitlines() if line[:1] in "┏┃┡│└"]
    assert table and all(len(line) <= 80 for line in table)
    scored = json.loads(run("score", location, "pool", "--json"))
    at = scored["per_source"]["c0"]["equal_n"]
    assert at["n"] == 130 and at["of"] == 396 and at["draws"] == 5
    assert float(rows["c0"][3].split("±")[0]) == pytest.approx(at["mean"], abs=0.006)


def test_an_old_run_without_equal_n_still_prints(location: Path) -> None:
    from vendiscope.cli._output import console
    from vendiscope.cli._printing import print_score
    from vendiscope.core.metrics.scoring import score_dataset

    with Project.open(location) as project:
        result = score_dataset(project, "pool", params={"per_record": None})
    old = dataclasses.replace(result, per_source={
        s: {"n": r["n"], "value": r["value"]} for s, r in result.per_source.items()})  # fmt: skip
    with console.capture() as captured:
        print_score(old)
    out = captured.get()
    rows = source_rows(out)
    assert set(rows) == {"c0", "c1", "c2", "c3"} and all(r[3] == "—" for r in rows.values())
    assert [int(r[0]) for r in rows.values()] == [396, 274, 178, 130]  # largest first, as before
    assert "at equal n" in out and "this run has no scores at one size" in out


def test_subsets_side_by_side_with_the_score_at_the_smallest_size(location: Path) -> None:
    out = run("score", location, "pool", "-s", "spread", "-s", "lump")
    lines = out.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("set "))
    assert lines[head - 1].rstrip().endswith("at n =") and lines[head].split()[4] == "20"
    cells = {line.split()[0]: line.split() for line in lines[head + 2 : head + 5]}
    whole, spread, lump = cells["(dataset)"], cells["spread"], cells["lump"]
    assert spread[4] == spread[2] and lump[4] == lump[2]  # sets of 20: their own scores
    mean = float(whole[4].split("±")[0])
    assert float(lump[4]) < mean < float(spread[4])  # the dataset between its two subsets
    assert "at n = 20: each set scored at the smallest one's size" in out
    assert all(len(line) <= 80 for line in lines[head - 1 : head + 5])

    listed = json.loads(run("score", location, "pool", "-s", "spread", "-s", "lump", "--json"))
    at = [s["equal_n"] for s in listed]
    assert [a["n"] for a in at] == [20, 20, 20] and [a["of"] for a in at] == [978, 20, 20]
    assert at[0]["draws"] == 5 and at[0]["mean"] == pytest.approx(mean, abs=0.006)
    assert at[1]["mean"] == pytest.approx(listed[1]["value"], rel=1e-5)
    one = json.loads(run("score", location, "pool", "-s", "lump", "--only-subsets", "--json"))
    assert one["equal_n"] is None  # one set: nothing to compare it with
