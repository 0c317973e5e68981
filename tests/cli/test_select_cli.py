"""`vendiscope select`, `subsets`, `clusters` and `filter-candidates`, driven as a user would."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.core._planted import N_ROWS, planted_dataset
from vendiscope.cli import app
from vendiscope.core.store.project import Project

runner = CliRunner()


def run(*args: object, ok: bool = True):
    result = runner.invoke(app, [str(a) for a in args])
    if ok:
        assert result.exit_code == 0, result.output
    return result


@pytest.fixture
def location(tmp_path: Path) -> Path:
    path = tmp_path / "p.vscope"
    with Project.create(path) as project:
        planted_dataset(project, tmp_path)
        planted_dataset(project, tmp_path, "synthetic", seed=0, sizes=(30,) * 20)
    return path


@pytest.mark.slow
def test_select_then_work_with_subsets(location: Path, tmp_path: Path) -> None:
    out = run("select", location, "pool", "-k", 30, "--method", "greedy-vendi").output
    assert "greedy-vendi" in out and "subset greedy-vendi-30" in out and "random" in out
    again = run("select", location, "pool", "-k", 30, ok=False)  # the README's METHOD-K, taken
    words = " ".join(again.output.split())
    assert again.exit_code == 1 and "subset 'greedy-vendi-30' of dataset 'pool' exists" in words
    assert "`--name NAME`" in words and "`--overwrite`" in words
    assert "saved as" not in again.output and "greedy-vendi-30-2" not in again.output
    replaced = run("select", location, "pool", "-k", 30, "--overwrite").output
    assert "saved as subset greedy-vendi-30" in replaced
    data = json.loads(run("select", location, "pool", "-k", 30, "--method", "random",
                          "--seed", 3, "--json").output)  # fmt: skip
    assert data["subset"] == "random-30" and data["curve"]["budgets"][-1] == 30
    assert data["vendi"]["gradients/planted"] > 0
    listed = json.loads(run("subsets", "list", location, "pool", "--json").output)
    assert {s["name"] for s in listed} == {"greedy-vendi-30", "random-30"}
    run("subsets", "combine", location, "pool", "union", "greedy-vendi-30", "random-30",
        "--into", "both")  # fmt: skip
    shown = json.loads(run("subsets", "show", location, "pool", "both", "--json").output)
    assert 30 < len(shown["positions"]) <= 60
    ids = tmp_path / "ids.txt"
    ids.write_text("pool-4\npool-9\n")
    run("subsets", "create", location, "pool", "two", "--ids", ids)
    run("subsets", "create", location, "pool", "c1", "--source", "c1")
    out = run("subsets", "show", location, "pool", "two").output
    assert "question 4 of" in out and "question 9 of" in out
    run("subsets", "delete", location, "pool", "two")
    assert "two" not in run("subsets", "list", location, "pool").output
    export = tmp_path / "chosen.jsonl"
    run("export", location, "pool", export, "--subset", "greedy-vendi-30")
    assert len(export.read_text().splitlines()) == 30


def test_clusters_and_filter_candidates(location: Path) -> None:
    out = run("clusters", location, "pool", "-n", 20).output
    assert "20 clusters" in out and "sparse clusters" in out and "question" in out
    data = json.loads(run("filter-candidates", location, "pool", "synthetic", "--json").output)
    assert 0 < data["kept"] < 600 and data["gain_kept"] > data["gain_random"]
    assert data["subset"].startswith("sparse-fill@run-")


@pytest.mark.slow
def test_clear_errors(location: Path, tmp_path: Path) -> None:
    result = run("select", location, "pool", "-k", N_ROWS + 5, ok=False)
    words = " ".join(result.output.split())
    assert result.exit_code == 1 and f"between 1 and {N_ROWS}, the number of candidate" in words
    result = run("select", location, "pool", "-k", 5, "--quality", "stars", ok=False)
    assert "no vector set or record field" in result.output
    result = run("subsets", "combine", location, "pool", "xor", "a", "b", "--into", "c", ok=False)
    assert "operation must be one of" in result.output
    bad = tmp_path / "positions.txt"
    bad.write_text("1\n2\nthree\n")
    result = run("subsets", "create", location, "pool", "p", "--positions", bad, ok=False)
    assert "positions.txt, line 3: 'three' is not a record position" in result.output
    result = run("subsets", "create", location, "pool", "p", ok=False)
    assert "give exactly one of" in result.output
    result = run("filter-candidates", location, "pool", "synthetic", ok=False)
    assert "no clustering yet" in result.output


@pytest.mark.parametrize("k", [0, N_ROWS + 1])
def test_a_bad_budget_is_refused_alike_by_the_cli_the_python_api_and_the_app(
    location: Path, k: int
) -> None:
    """One rule, one message: `select -k`, `Project.select(k=)` and the app's selection task
    all reach core/selection/budget.py: check_budget."""
    import vendiscope as vs
    from vendiscope.core.base.jobs import CancelToken, NullProgress
    from vendiscope.core.selection.budget import BudgetError
    from vendiscope.gui.jobs import tasks

    expected = (
        f"k (the budget) must be a whole number between 1 and {N_ROWS}, the number of "
        f"candidate rows; got {k}"
    )
    cli = run("select", location, "pool", "-k", k, "--json", ok=False)
    assert cli.exit_code == 1
    assert json.loads(cli.stdout) == {"error": expected, "kind": "budget", "exit_code": 1}
    with vs.open(location, progress=False) as p, pytest.raises(BudgetError) as api:
        p.select("pool", k=k)
    assert str(api.value) == expected
    with pytest.raises(BudgetError) as app_task:
        tasks.select(str(location), "pool", method="greedy-vendi", k=k,
                     progress=NullProgress(), cancel=CancelToken())  # fmt: skip
    assert str(app_task.value) == expected
    with Project.open(location) as project:
        assert not [r for r in project.runs("pool") if r.kind == "selection"]  # no work done
