"""Shared fixtures: real project files in temporary folders, real data files written by tests."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

if os.environ.get("PYTEST_XDIST_WORKER"):  # `make test` runs the suite on parallel workers:
    # each gets its share of the cores (torch, BLAS and the processes tests start read these).
    _workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    _threads = str(max(1, (os.cpu_count() or 1) // _workers))
    for _variable in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(_variable, _threads)
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
# No plugin files from the user's own plugin folder; tests that want some point it elsewhere.
os.environ.setdefault("VENDISCOPE_PLUGIN_DIR", "")


def pytest_configure(config: pytest.Config) -> None:
    """Runs left open by in-process tests are theirs to check: no run watcher for this process
    (the commands and jobs tests start as processes have theirs)."""
    from vendiscope.core.store import run_guard

    run_guard.disable()


@pytest.fixture(scope="module")
def one_torch_thread() -> Iterator[None]:
    """Tiny models' matrices are too small for threads; on a busy machine they only wait."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture
def project_path(tmp_path: Path) -> Path:
    return tmp_path / "test.vscope"


@pytest.fixture
def project(project_path: Path) -> Iterator[Any]:
    from vendiscope.core.store.project import Project

    with Project.create(project_path) as opened:
        yield opened


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_bytes(b"".join(orjson.dumps(row) + b"\n" for row in rows))
    return path


def qa_rows(n: int, *, start: int = 0) -> list[dict[str, Any]]:
    return [
        {
            "id": f"r{i}",
            "question": f"What is {i} + {i}?",
            "answer": str(2 * i),
            "source": f"s{i % 3}",
        }
        for i in range(start, start + n)
    ]


def table_counts(project_path: Path) -> dict[str, int]:
    """Row counts of every table, read with the sqlite3 module (independent of our code)."""
    import sqlite3

    connection = sqlite3.connect(project_path)
    try:
        tables = [
            r[0] for r in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")
        ]
        return {t: connection.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0] for t in tables}
    finally:
        connection.close()


@pytest.fixture(scope="session")
def tiny_lm(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding a tiny randomly initialised Llama and its tokenizer (fast gradients)."""
    from tests.core.gradients.test_gradients import tiny_model, tiny_tokenizer

    folder = tmp_path_factory.mktemp("tiny-lm")
    tokenizer = tiny_tokenizer()
    tiny_model(len(tokenizer), tie=True).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def demo_rows(start: int, stop: int) -> list[dict[str, Any]]:
    """Rows ``start:stop`` of the bundled demo dataset (real instruction data)."""
    from vendiscope.core.io.demo import DEMO_FILE

    lines = DEMO_FILE.read_text(encoding="utf-8").splitlines()[start:stop]
    return [orjson.loads(line) for line in lines]


@pytest.fixture(scope="session")
def synthesis_pool(tmp_path_factory: pytest.TempPathFactory, tiny_lm: Path) -> Path:
    """A project with dataset 'pool' (40 demo rows) and its gradients from a tiny LM; copy it."""
    from vendiscope.core.io.importing import import_dataset
    from vendiscope.core.store.project import Project
    from vendiscope.core.vectors.featurizing import featurize_dataset

    folder = tmp_path_factory.mktemp("synthesis-pool")
    source = write_jsonl(folder / "pool.jsonl", demo_rows(0, 40))
    location = folder / "pool.vscope"
    with Project.create(location) as project:
        import_dataset(project, source, name="pool")
        featurize_dataset(
            project, "pool", params={"model": str(tiny_lm), "dim": 64, "device": "cpu"}
        )
    return location


@pytest.fixture
def synthesis_project(synthesis_pool: Path, tmp_path: Path) -> Path:
    """A copy of :func:`synthesis_pool` for one test to change."""
    import shutil

    copy = tmp_path / "project.vscope"
    shutil.copy(synthesis_pool, copy)
    return copy


@pytest.fixture
def study_project(synthesis_project: Path, tmp_path: Path) -> Path:
    """:func:`synthesis_project` with a 12-row held-out target dataset, 'held-out'."""
    from vendiscope.core.io.importing import import_dataset
    from vendiscope.core.store.project import Project

    target = write_jsonl(tmp_path / "target.jsonl", demo_rows(300, 312))
    with Project.open(synthesis_project) as project:
        import_dataset(project, target, name="held-out")
    return synthesis_project


def mount(*args: str) -> bool:
    """``mount ARGS`` as root; False where this user may not mount."""
    if os.geteuid() != 0:
        return False
    return subprocess.run(["mount", *args], capture_output=True).returncode == 0


@pytest.fixture
def read_only_source(tmp_path: Path) -> Path:
    """A folder holding a closed project ``p.vscope`` with a dataset ``qa`` of 12 rows."""
    from vendiscope.core.io.importing import import_dataset
    from vendiscope.core.store.project import Project

    folder = tmp_path / "source"
    folder.mkdir()
    with Project.create(folder / "p.vscope") as project:
        import_dataset(project, write_jsonl(tmp_path / "qa.jsonl", qa_rows(12)), name="qa")
    return folder


@pytest.fixture
def read_only(read_only_source: Path, tmp_path: Path) -> Iterator[Path]:
    """That project seen through a read-only bind mount (root only, else the test skips)."""
    place = tmp_path / "ro"
    place.mkdir()
    if not mount("--bind", str(read_only_source), str(place)):
        pytest.skip("a read-only bind mount needs root")
    try:
        if not mount("-o", "remount,bind,ro", str(place)):
            pytest.skip("this system refused to make the bind mount read-only")
        yield place / "p.vscope"
    finally:
        subprocess.run(["umount", str(place)], check=False)
