"""`vendiscope neighbors`, `near-dups` and `coverage`, driven as a user drives them."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from tests.conftest import qa_rows, write_jsonl
from tests.core.neighbors.test_neighbors import PARAPHRASES, UNRELATED, planted, write_vector_set
from vendiscope.cli import app
from vendiscope.core.neighbors.options import NearDuplicateOptions
from vendiscope.core.neighbors.search import clear_index_cache, near_duplicate_subset_name
from vendiscope.core.store.project import Project

runner = CliRunner()
DEFAULT_SUBSET = near_duplicate_subset_name(NearDuplicateOptions.threshold)


def run(*args: object, ok: bool = True):
    result = runner.invoke(app, [str(a) for a in args])
    if ok:
        assert result.exit_code == 0, result.output
    return result


@pytest.fixture(autouse=True)
def fresh_cache():
    clear_index_cache()
    yield
    clear_index_cache()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """Datasets `qa` (300 records, planted near-copies) and `bench` (50), synthetic vectors."""
    location = tmp_path / "p.vscope"
    run("import", location, write_jsonl(tmp_path / "qa.jsonl", qa_rows(300)))
    run("import", location, write_jsonl(tmp_path / "bench.jsonl", qa_rows(50, start=1000)))
    rng = np.random.default_rng(9)
    train = planted(dim=32)
    target = rng.standard_normal((50, 32)).astype(np.float32)
    target[:10] = train[100:110] + 0.05 * rng.standard_normal((10, 32))
    with Project.open(location) as opened:
        write_vector_set(opened, "qa", "emb", train)
        write_vector_set(opened, "bench", "emb", target)
    return location


def test_neighbors_of_a_record(project: Path) -> None:
    got = json.loads(run("neighbors", project, "qa", "--record", 3, "-k", 3, "--json").output)
    assert got["vector_set"] == "emb" and got["query"] == {"record": 3}
    assert [n["position"] for n in got["neighbors"][:2]] in ([10, 11], [11, 10])
    assert got["neighbors"][0]["similarity"] > 0.99
    assert got["neighbors"][0]["text"].startswith("What is 1")
    table = run("neighbors", project, "qa", "--vectors", "emb", "-r", 3).output
    assert "record 3: What is 3 + 3?" in table and "What is 10 + 10?" in table
    assert "0.99" in table


@pytest.mark.slow
def test_neighbors_needs_exactly_one_query_and_an_embedding(project: Path, tmp_path) -> None:
    both = run("neighbors", project, "qa", "--record", 1, "--text", "x", ok=False)
    assert both.exit_code == 2 and "exactly one of --record" in both.output
    assert run("neighbors", project, "qa", ok=False).exit_code == 2
    run("import", project, write_jsonl(tmp_path / "bare.jsonl", qa_rows(5)), "--name", "bare")
    missing = run("neighbors", project, "bare", "--record", 0, ok=False)
    assert missing.exit_code == 1 and "run `vendiscope embed` first" in missing.output
    wrong = run("neighbors", project, "qa", "--record", 0, "--vectors", "nope", ok=False)
    assert wrong.exit_code == 1 and "no vector set named 'nope'" in wrong.output
    far = run("neighbors", project, "qa", "--record", 999, ok=False)
    assert far.exit_code == 1 and "position 999 is out of range" in far.output
    text = run("neighbors", project, "qa", "--text", "hello", ok=False)
    assert text.exit_code == 1 and "not made by an embedder" in text.output


@pytest.mark.slow
def test_near_dups_saves_refuses_and_overwrites(project: Path) -> None:
    out = run("near-dups", project, "qa").output
    assert "3 groups of near-duplicates" in out and "4 redundant" in out
    assert "What is 3 + 3?" in out and "kept" in out
    assert f"subset {DEFAULT_SUBSET}" in out
    again = run("near-dups", project, "qa", ok=False)
    assert again.exit_code == 1 and "--overwrite" in again.output
    got = json.loads(run("near-dups", project, "qa", "--overwrite", "--json").output)
    assert got["groups"] == 3 and got["redundant"] == 4 and got["subset"] == DEFAULT_SUBSET
    assert [[m["position"] for m in g] for g in got["groups_detail"]] == [
        [3, 10, 11], [7, 200], [40, 50],
    ]  # fmt: skip
    loose = json.loads(
        run("near-dups", project, "qa", "--threshold", "0.999", "--no-save", "--json").output
    )
    assert loose["subset"] is None and loose["groups"] == 1  # only the exact pair {7, 200}
    with Project.open(project) as opened:
        assert [s.name for s in opened.subsets("qa")] == [DEFAULT_SUBSET]
        kinds = [r.kind for r in opened.runs("qa")]
    assert kinds.count("near-duplicates") == 3


@pytest.mark.slow
def test_coverage(project: Path) -> None:
    got = json.loads(run("coverage", project, "qa", "bench", "--json").output)
    assert got["targets"] == 50 and got["covered"] == 10 and got["fraction"] == 0.2
    assert got["nearest"][:10] == list(range(100, 110))
    assert got["uncovered"] == list(range(10, 50))
    assert got["min_similarity"] == 0.8 and got["computed_on"].startswith(
        "training dataset 'qa': emb (embedding, 300 x 32); target dataset 'bench': emb "
    )
    out = run("coverage", project, "qa", "bench", "--min-similarity", "0.9", "--show", "3").output
    assert "20.0% of 50 records of bench have a record of qa at cosine similarity >= 0.9" in out
    assert "least covered targets" in out and "computed on training dataset 'qa': " in out
    assert "computed on train " not in out and "deprecated" not in out
    old = run("coverage", project, "qa", "bench", "--radius", "0.9", "--show", "0").output
    assert (
        "note: --radius is deprecated: it is a cosine similarity, not a radius; use "
        "--min-similarity 0.9"
        in old
        and "at cosine similarity >= 0.9" in old
    )
    with Project.open(project) as opened:
        write_vector_set(opened, "bench", "small", np.ones((50, 8), np.float32))
    bad = run("coverage", project, "qa", "bench", "--target-vectors", "small", ok=False)
    assert bad.exit_code == 1 and "dimensions differ" in bad.output


@pytest.mark.slow
def test_text_query_with_the_real_embedder(tmp_path: Path) -> None:
    location = tmp_path / "p.vscope"
    rows = [{"text": q} for q in UNRELATED + PARAPHRASES]
    run("import", location, write_jsonl(tmp_path / "q.jsonl", rows))
    run("embed", location, "q")
    got = json.loads(
        run(
            "neighbors", location, "q", "--text", "capital city of France", "-k", 2, "--json"
        ).output
    )
    assert {n["text"] for n in got["neighbors"]} == set(PARAPHRASES[:2])
    assert got["query"] == {"text": "capital city of France"}


def test_neighbors_of_a_batch_of_vectors(project: Path, tmp_path: Path) -> None:
    train = planted(dim=32)
    queries = tmp_path / "queries.npy"
    np.save(queries, train[[5, 150]])
    got = json.loads(run("neighbors", project, "qa", "--queries", queries, "-k", 2).output)
    assert len(got["neighbors"]) == 2
    assert got["neighbors"][0][0]["position"] == 5 and got["neighbors"][1][0]["position"] == 150
    assert got["neighbors"][0][0]["similarity"] > 0.999
    bad = tmp_path / "bad.npy"
    np.save(bad, np.zeros(3, np.float32))
    refused = run("neighbors", project, "qa", "--queries", bad, ok=False)
    assert refused.exit_code == 1 and "expected a 2-D matrix" in refused.output
    wrong_dim = tmp_path / "wide.npy"
    np.save(wrong_dim, np.zeros((2, 8), np.float32))
    assert run("neighbors", project, "qa", "--queries", wrong_dim, ok=False).exit_code == 1


def test_queries_with_nan_are_refused_naming_the_rows(project: Path, tmp_path: Path) -> None:
    queries = planted(dim=32)[:4].copy()
    queries[2, 7] = np.nan
    path = tmp_path / "nan.npy"
    np.save(path, queries)
    refused = run("neighbors", project, "qa", "--queries", path, ok=False)
    assert refused.exit_code == 1
    assert "1 query hold NaN or infinity (rows 2)" in refused.output
    assert "NaN," not in refused.output  # never bare NaN, which is not JSON
