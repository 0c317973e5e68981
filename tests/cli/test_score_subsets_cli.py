"""`vendiscope score --subset`: subsets side by side with the dataset, and a random baseline."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from tests.conftest import table_counts
from tests.core._planted import planted_dataset
from vendiscope.cli import app
from vendiscope.core.store import subsets
from vendiscope.core.store.project import Project

runner = CliRunner()


def run(*args: object, ok: bool = True):
    result = runner.invoke(app, [str(a) for a in args], terminal_width=100)
    if ok:
        assert result.exit_code == 0, result.output
    return result


@pytest.fixture
def location(tmp_path: Path) -> Path:
    path = tmp_path / "p.vscope"
    with Project.create(path) as project:
        labels = planted_dataset(project, tmp_path)
        spread = [int(np.flatnonzero(labels == c)[0]) for c in range(20)]
        subsets.from_positions(project, "pool", "spread", spread)
        subsets.from_positions(project, "pool", "lump", np.flatnonzero(labels == 0)[:20])
    return path


def cells(output: str, first: str) -> list[str]:
    """The cells of the table row of set ``first`` (no cell holds a space)."""
    (line,) = [line for line in output.splitlines() if line.startswith(f"{first} ")]
    return line.split()


def test_subsets_side_by_side_with_the_dataset_and_random(location: Path) -> None:
    out = run("score", location, "pool", "--subset", "spread", "-s", "lump",
              "--vs-random", "--random-draws", 12, "--bootstrap", 10).output  # fmt: skip
    assert "G-Vendi of 'pool' and its subsets" in out
    assert "computed on gradients/planted (gradient, 978 x 16)" in out
    whole, spread, lump = cells(out, "(dataset)"), cells(out, "spread"), cells(out, "lump")
    assert whole[1] == "978" and spread[1] == lump[1] == "20"
    assert float(spread[2]) > float(lump[2])
    assert float(spread[3]) == pytest.approx(float(spread[2]) / 20, abs=1e-3)
    # at n = 20 (the smallest set): the subsets' own scores, the dataset's mean of 5 draws
    assert spread[4] == spread[2] and lump[4] == lump[2] and "±" in whole[4]
    low, high = (float(x) for x in spread[5].split("\u2013"))  # each set's own bootstrap CI
    assert low < float(spread[2]) < high and "\u2013" in whole[5]
    assert whole[6:10] == ["\u2014"] * 4  # the whole dataset has no random baseline
    mean, sd = (float(x) for x in spread[6].split("±"))
    assert mean + 2 * sd < float(spread[2]) and float(spread[8]) > 2 and spread[9] == "100%"
    assert float(lump[8]) < -2 and lump[9] == "0%"
    table = out[: out.index("share: the score per record")].splitlines()
    assert all(len(line) <= 80 for line in table)  # every column fits 80 characters
    assert "random: 12 subsets of each size drawn uniformly from all records (seed 0)" in out
    assert f"vendiscope score {location} pool --metric gvendi --subset NAME --json" in out

    listed = json.loads(run("score", location, "pool", "-s", "spread", "-s", "lump",
                            "--vs-random", "--json").output)  # fmt: skip
    assert [s["subset"] for s in listed] == [None, "spread", "lump"]
    assert listed[0]["vs_random"] is None and listed[0]["n"] == 978
    assert listed[1]["vs_random"]["draws"] == 20  # the default number of draws
    assert listed[1]["value"] == pytest.approx(float(spread[2]), abs=0.01)
    assert sum(row["n"] for row in listed[1]["per_source"].values()) == 20
    with Project.open(location) as project:
        run_params = project.run(listed[2]["run_id"]).params
    assert run_params["subset"] == "lump" and run_params["random_seed"] == 0


def test_only_subsets_and_a_single_object_for_one_set(location: Path) -> None:
    one = json.loads(run("score", location, "pool", "-s", "lump", "--only-subsets", "--json",
                         "--random-seed", 7, "--vs-random").output)  # fmt: skip
    assert isinstance(one, dict) and one["subset"] == "lump" and one["vs_random"]["seed"] == 7
    out = run("score", location, "pool", "-s", "lump", "--only-subsets").output
    assert "(dataset)" not in out and cells(out, "lump")[1] == "20"
    plain = json.loads(run("score", location, "pool", "--json").output)
    assert plain["subset"] is None and plain["n"] == 978


def test_an_unknown_subset_or_a_baseline_without_one_changes_nothing(
    location: Path,
) -> None:
    before = table_counts(location)
    missing = run("score", location, "pool", "-s", "spread", "-s", "nope", ok=False)
    assert missing.exit_code == 1
    words = " ".join(missing.output.split())
    assert "dataset 'pool' has no subset named 'nope' (subsets: spread, lump)" in words
    alone = run("score", location, "pool", "--vs-random", ok=False)
    assert "--vs-random compares subsets: name one with --subset NAME" in alone.output
    assert table_counts(location) == before
