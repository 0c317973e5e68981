"""A process killed while embedding resumes to the matrix of an uninterrupted run: the chunks
it committed are kept byte for byte, the rest are embedded as an uninterrupted run embeds them."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import orjson
import pytest

from vendiscope.core.io.importing import import_dataset
from vendiscope.core.store import vectors
from vendiscope.core.store.project import Project
from vendiscope.core.vectors.embedding import embed_dataset

DEMO = Path(__file__).resolve().parents[3] / "vendiscope" / "resources" / "demo" / "demo.jsonl"

CHILD = textwrap.dedent(
    """
    import sys, time
    from vendiscope.core.vectors.embedding import embed_dataset
    from vendiscope.core.base.jobs import NullProgress
    from vendiscope.core.store.project import Project

    class ParkAfterTwoChunks(NullProgress):
        def update(self, completed, total=None):
            # progress comes inside chunks too: past 128, chunk 2 is being computed, so
            # chunks 0 and 1 are committed
            if completed > 128:
                print("committed", flush=True)
                time.sleep(120)  # the parent kills us here, with chunks 0 and 1 committed

    with Project.open(sys.argv[1]) as project:
        embed_dataset(project, "demo", chunk_rows=64, progress=ParkAfterTwoChunks())
    """
)


@pytest.mark.slow
def test_killed_embedding_resumes_to_the_same_matrix(tmp_path: Path) -> None:
    lines = DEMO.read_bytes().splitlines()[:300]
    source = tmp_path / "demo.jsonl"
    source.write_bytes(b"\n".join(lines) + b"\n")
    interrupted, straight = tmp_path / "a.vscope", tmp_path / "b.vscope"
    for location in (interrupted, straight):
        with Project.create(location) as project:
            import_dataset(project, source, name="demo")

    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(interrupted)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "committed"
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=60)

    with Project.open(interrupted) as project:
        (partial,) = vectors.list_sets(project, "demo")
        assert partial.status == "running" and partial.committed_rows == 128
        committed = vectors.read_rows(project, partial, list(range(128)))  # the child's chunks
        resumed = embed_dataset(project, "demo", chunk_rows=64)
        assert resumed.resumed_from == 128
        first = vectors.load(project, "demo", resumed.vector_set.name)
    with Project.open(straight) as project:
        whole = embed_dataset(project, "demo", chunk_rows=64)
        second = vectors.load(project, "demo", whole.vector_set.name)
    assert first.shape == (300, 384)
    # the resume keeps the committed chunks as stored: exact
    assert np.array_equal(first[:128], committed)
    # rows 0-127 of the two runs were embedded in different processes (the killed child, this
    # one): the same 64-row batches, but float32 torch kernels are not promised to give the
    # same bits across processes, thread counts or CPUs (a different batch composition moves
    # MiniLM rows by ~7e-8 on AVX2); a real resume bug (a chunk missing, shifted or written
    # over) moves unit rows by far more than 1e-6
    np.testing.assert_allclose(first, second, rtol=0, atol=1e-6)
    assert np.allclose(np.linalg.norm(first, axis=1), 1.0, atol=1e-5)
    assert orjson.loads(lines[0])["id"] == "demo-00001"
