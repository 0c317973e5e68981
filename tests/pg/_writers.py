"""Writer processes for the concurrency tests (spawned: they import this module afresh)."""

from __future__ import annotations

from typing import Any


def expected_rows(index: int, rows: int, dim: int) -> Any:
    import numpy as np

    return np.random.default_rng(1000 + index).standard_normal((rows, dim)).astype(np.float32)


def write_chunks(url: str, name: str, order: list[int], barrier: Any) -> int:
    """Open (or create) vector set ``name`` of dataset ``d`` and write ``order``'s chunks."""
    from vendiscope.core.store import vectors
    from vendiscope.core.store.project import Project

    with Project.open(url) as project:
        barrier.wait(timeout=60)
        info = vectors.open_for_writing(project, "d", name, kind="embedding", model="m",
                                        params={"p": 1}, dim=16, chunk_rows=25)  # fmt: skip
        written = 0
        for index in order:
            start, stop = info.chunk_range(index)
            rows = expected_rows(index, stop - start, 16)
            written += vectors.write_chunk(project, info, index, rows, if_exists="skip")
        if len(order) == info.n_chunks:
            vectors.mark_complete(project, info)
        return written


def run_job(url: str, dataset: str, barrier: Any) -> dict[str, int]:
    """A whole featurizer job (the toy featurizer), started at the same time as another."""
    from tests.core.vectors import _engine_plugins
    from vendiscope.core.plugin_host import PluginRegistry
    from vendiscope.core.store.project import Project
    from vendiscope.core.vectors.featurizing import featurize_dataset

    registry = PluginRegistry.discover(plugin_dir=None)
    registry.add_manifest(_engine_plugins.manifest)
    with Project.open(url) as project:
        barrier.wait(timeout=60)
        result = featurize_dataset(project, dataset, featurizer="toy", chunk_rows=20,
                                   registry=registry, engine="local", name="toy")  # fmt: skip
        return {"rows": result.vector_set.n_rows, **result.counts}


def import_rows(url: str, name: str, path: str, barrier: Any) -> int:
    from vendiscope.core.io.importing import import_dataset
    from vendiscope.core.store.project import Project

    with Project.open(url) as project:
        barrier.wait(timeout=60)
        return import_dataset(project, path, name=name).rows
