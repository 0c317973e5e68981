"""``--json`` on every command that computes or changes something, and messages that never wrap
a suggested command (docs/user-guide.md, "Machine-readable output").

One small real project serves the whole module: ``pool`` (978 records in planted clusters,
gradients and embeddings), ``cands`` (candidates made like the pool) and ``tiny`` (12 demo
records, embedded with the bundled encoder and given gradients of the tiny test LM).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tests.conftest import qa_rows, write_jsonl
from tests.core._planted import N_ROWS, planted_dataset, planted_vectors, write_set
from vendiscope.cli import app
from vendiscope.cli._json_output import dumps, error_kind
from vendiscope.core.store.project import Project

DEMO = Path(__file__).resolve().parents[2] / "vendiscope" / "resources" / "demo" / "demo.jsonl"
runner = CliRunner()


def run(*args: object, code: int = 0) -> Any:
    result = runner.invoke(app, [str(a) for a in args])
    assert result.exit_code == code, result.output
    return result


def document(*args: object, code: int = 0, keys: set[str] = frozenset()) -> Any:
    """Run a command with ``--json``: stdout must be one JSON document holding ``keys``."""
    result = run(*args, "--json", code=code)
    found = json.loads(result.stdout)
    if keys:
        assert isinstance(found, dict) and keys <= set(found), (keys - set(found), found)
    return found


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("json-cli")


@pytest.fixture(scope="module")
def location(folder: Path) -> Path:
    path = folder / "p.vscope"
    with Project.create(path) as project:
        planted_dataset(project, folder)
        write_set(project, "pool", "emb", planted_vectors(dim=32, seed=3)[0], kind="embedding")
        planted_dataset(project, folder, "cands", seed=0, sizes=(6,) * 20)
    tiny = folder / "tiny.jsonl"
    tiny.write_bytes(b"\n".join(DEMO.read_bytes().splitlines()[:12]) + b"\n")
    document("import", path, tiny, "--name", "tiny", keys={"dataset", "rows"})
    return path


@pytest.mark.slow
def test_import_and_new(location: Path, folder: Path) -> None:
    made = document("new", folder / "empty.vscope", keys={"project", "created"})
    assert made["created"] and made["project"].endswith("empty.vscope")
    rows = folder / "qa.jsonl"
    rows.write_text('{"question": "q1", "answer": "a1"}\n{"question": "q2", "answer": "a2"}\n')
    keys = {"project", "dataset", "rows", "importer", "seconds", "mapping", "duplicates",
            "skipped", "skipped_rows", "bad_report", "run_id"}  # fmt: skip
    found = document("import", location, rows, "--name", "qa", keys=keys)
    assert (found["dataset"], found["rows"], found["importer"]) == ("qa", 2, "jsonl")
    assert found["mapping"]["roles"]["prompt"] == "question" and found["run_id"] >= 1
    dry = document("import", location, rows, "--dry-run", keys={"dry_run", "importer", "rows"})
    assert dry["mapping"]["roles"]["prompt"] == "question" and len(dry["rows"]) == 2
    assert dry["rows"][0]["mapped"]["prompt"] == "q1"


@pytest.mark.slow
def test_embed_and_gradients(location: Path, tiny_lm: Path) -> None:
    keys = {"dataset", "vector_set", "kind", "model", "rows", "dim", "status", "seconds",
            "already_complete", "resumed_from", "reused", "counts", "run_id", "next"}  # fmt: skip
    found = document("embed", location, "tiny", "--batch-size", "16", keys=keys | {"embedded"})
    assert (found["vector_set"], found["rows"], found["dim"]) == (
        "sentence-transformers/prompt+response", 12, 384,
    )  # fmt: skip
    assert found["embedded"] + found["reused"] == 12 and not found["already_complete"]
    again = document("embed", location, "tiny", keys=keys)
    assert again["already_complete"] and again["rows"] == 12

    args = ("gradients", location, "tiny", "--model", tiny_lm, "--batch-size", "4",
            "-p", "max_length=64")  # fmt: skip
    grads = document(*args, keys=keys)
    assert grads["vector_set"] == "gradients/fast" and grads["rows"] == 12
    assert grads["next"].startswith("vendiscope score ") and grads["next"].endswith("gvendi")
    assert grads["resumed_from"] == 0 and grads["run_id"] is not None
    assert grads["featurized"] + grads["reused"] == 12

    listing = document("vectors", location, "tiny")
    assert {v["name"] for v in listing} == {
        "sentence-transformers/prompt+response", "gradients/fast",
    }  # fmt: skip


def test_select_subsets_and_export(location: Path, folder: Path) -> None:
    keys = {"dataset", "method", "k", "vector_set", "candidates", "subset", "run_id",
            "seconds", "curve", "objective"}  # fmt: skip
    chosen = document("select", location, "pool", "-k", 20, "--method", "random", keys=keys)
    assert chosen["subset"] == "random-20" and chosen["k"] == 20
    saved = {"dataset", "subset", "size", "run_id", "description"}
    made = document("subsets", "create", location, "pool", "c1", "--source", "c1", keys=saved)
    assert made["subset"] == "c1" and 0 < made["size"] < N_ROWS
    both = document("subsets", "combine", location, "pool", "union", "c1", "random-20",
                    "--into", "both", keys=saved)  # fmt: skip
    assert both["size"] >= made["size"]
    out = folder / "both.jsonl"
    keys = {"dataset", "subset", "rows", "destination", "exporter", "manifest", "seconds"}
    exported = document("export", location, "pool", out, "--subset", "both", keys=keys)
    assert exported["rows"] == both["size"] and Path(exported["manifest"]).exists()
    gone = document("subsets", "delete", location, "pool", "both", keys={"subset", "deleted"})
    assert gone == {"dataset": "pool", "subset": "both", "deleted": True}


def test_search_commands(location: Path) -> None:
    keys = {"dataset", "vector_set", "threshold", "groups", "redundant", "subset", "run_id",
            "seconds", "index", "groups_detail", "subset_size"}  # fmt: skip
    dups = document("near-dups", location, "pool", "--vectors", "emb", "--threshold", 0.999,
                    keys=keys)  # fmt: skip
    assert dups["records"] == N_ROWS
    keys = {"train_dataset", "target_dataset", "radius", "targets", "covered", "fraction",
            "run_id", "uncovered", "nearest"}  # fmt: skip
    covered = document("coverage", location, "pool", "pool", "--train-vectors", "emb",
                       "--target-vectors", "emb", keys=keys)  # fmt: skip
    assert covered["targets"] == N_ROWS and covered["fraction"] == 1.0
    near = document("neighbors", location, "pool", "--vectors", "emb", "-r", 3, "-k", 2,
                    keys={"dataset", "vector_set", "query", "neighbors"})  # fmt: skip
    assert len(near["neighbors"]) == 2


def test_gap_map_view_and_report(location: Path, folder: Path) -> None:
    keys = {"dataset", "clusters", "sparse_clusters", "labels", "run_id", "sizes", "sparse"}
    clusters = document("clusters", location, "pool", "-n", 20, keys=keys)
    assert clusters["clusters"] == 20
    keys = {"pool", "candidates", "kept", "candidates_total", "subset", "run_id", "seconds"}
    kept = document("filter-candidates", location, "pool", "cands", keys=keys)
    assert kept["candidates_total"] == 120
    keys = {"dataset", "map", "method", "vector_set", "records", "run_id", "seconds", "next"}
    mapped = document("map", location, "pool", "--method", "pca", keys=keys)
    assert mapped["records"] == N_ROWS and mapped["next"].startswith("vendiscope view map ")
    chart = folder / "map.json"
    view = document("view", "map", location, "pool", "-o", chart,
                    keys={"view", "kind", "title", "output", "format"})  # fmt: skip
    assert view["output"] == str(chart) and chart.exists()
    keys = {"dataset", "format", "destination", "seconds", "computed", "headline", "charts",
            "missing"}  # fmt: skip
    audit = document("report", location, "pool", "-o", folder / "audit.json", keys=keys)
    assert audit["format"] == "json" and audit["headline"]["records"] == N_ROWS


def test_installation_and_project_commands(location: Path, folder: Path) -> None:
    assert "packages" in document("doctor")
    assert {"plugins", "failures"} <= set(document("plugins", "--no-check"))
    info = document("plugin", "info", "selector", "random", keys={"params"})
    assert isinstance(info["params"], list)
    made = document("plugin", "new", "spread", "--dir", folder / "plugins",
                    keys={"dist", "kind", "contribution", "folder", "files", "next"})  # fmt: skip
    assert made["kind"] == "metric" and made["files"]
    copied = document("migrate-project", location, folder / "copy.vscope")
    assert copied["rows"] > 0
    demo = document("demo", "--path", folder / "demo.vscope", keys={"project", "dataset"})
    assert demo["stats"]


def test_errors_give_a_document_too(location: Path) -> None:
    bad = document("score", location, "nope", code=1, keys={"error", "kind", "exit_code"})
    assert bad["kind"] == "project" and "nope" in bad["error"] and bad["exit_code"] == 1
    usage = document("select", location, "pool", "-k", 5, "-p", "oops", code=2)
    assert usage == {"error": "--param 'oops': expected NAME=VALUE", "kind": "usage",
                     "exit_code": 2}  # fmt: skip
    result = run("neighbors", location, "pool", "--json", code=2)
    assert json.loads(result.stdout)["kind"] == "usage" and "exactly one" in result.stderr


def test_error_kinds_and_encoding() -> None:
    from vendiscope.core.base.errors import InputError, PluginRuntimeError, VendiscopeError
    from vendiscope.core.vectors.missing import MissingVectors
    from vendiscope.core.view_data.missing import NotComputed

    assert error_kind(InputError("x")) == "input"
    assert error_kind(PluginRuntimeError("x")) == "plugin-runtime"
    assert error_kind(NotComputed("x", "vendiscope map P D")) == "not-computed"
    assert error_kind(MissingVectors("d", ("embedding",))) == "missing-vectors"
    assert error_kind(VendiscopeError("x")) == "error"
    assert json.loads(dumps({"a": float("nan"), "p": Path("x"), "t": (1, 2)})) == {
        "a": None, "p": "x", "t": [1, 2],
    }  # fmt: skip


# ---------------------------------------------------------------- real processes
def cli(*args: object, columns: int = 40, **env: str) -> subprocess.CompletedProcess[str]:
    """The CLI as a user runs it: a process of its own, stdout and stderr piped."""
    environ = {**os.environ, "COLUMNS": str(columns), **env}
    return subprocess.run(
        [sys.executable, "-m", "vendiscope", *map(str, args)],
        capture_output=True, text=True, env=environ, timeout=120,
    )  # fmt: skip


def test_a_json_run_prints_only_its_document_on_stdout_even_with_progress(
    location: Path, folder: Path
) -> None:
    done = cli("export", location, "pool", folder / "all.csv", "--json",
               VENDISCOPE_PROGRESS="lines")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["rows"] == N_ROWS
    assert "Export" in done.stderr or "export" in done.stderr.lower()  # progress lines


def commands_in(text: str) -> list[str]:
    return re.findall(r"`(vendiscope [^`]+)`", text)


@pytest.mark.slow
def test_suggested_commands_are_never_split_over_lines(location: Path, folder: Path) -> None:
    """At 40 columns every `vendiscope ...` in a message is still on one line, whole."""
    from vendiscope.core.io.importing import import_dataset

    bare_path = folder / "bare.vscope"
    with Project.create(bare_path) as bare:
        import_dataset(bare, write_jsonl(folder / "plain.jsonl", qa_rows(5)), name="plain")
    expected = {
        "vectors": (
            ["vectors", bare_path, "plain"],
            "vendiscope embed PROJECT plain",
        ),
        "score": (
            ["score", bare_path, "plain", "--metric", "gvendi"],
            "vendiscope gradients",
        ),
        "map": (
            ["map", location, "pool", "--method", "pca"],
            f"vendiscope view map {location} pool -o map.png",
        ),
    }
    for name, (args, command) in expected.items():
        done = cli(*args)
        text = done.stdout + done.stderr
        assert command in text.replace("\n", " "), (name, text)
        lines = text.splitlines()
        assert any(command in line for line in lines), (name, text)
        for found in commands_in(text):
            assert any(f"`{found}`" in line for line in lines), (name, found)
