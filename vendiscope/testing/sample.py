"""A small real project for view tests: records from three sources, vectors, a Vendi score."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SAMPLE_DATASET = "sample"
SAMPLE_VECTORS = "sample/embedding"
SOURCES = ("math", "code", "trivia")


def sample_rows(n: int = 24) -> list[dict[str, Any]]:
    return [
        {
            "id": f"r{i}",
            "prompt": f"Question {i}: what is {i} + {i}?",
            "response": f"{2 * i}" + " because" * (i % 5),
            "source": SOURCES[i % len(SOURCES)],
        }
        for i in range(n)
    ]


def sample_project(folder: Path, n: int = 24) -> Any:
    """An open :class:`~vendiscope.core.store.project.Project` in ``folder`` holding dataset
    ``"sample"`` (``n`` records from three sources), the embedding vector set
    ``"sample/embedding"`` (random unit rows, seed 0) and a complete ``vendi`` score of it.
    The caller closes it.
    """
    import numpy as np

    from vendiscope.core.io.importing import import_dataset
    from vendiscope.core.metrics.scoring import score_dataset
    from vendiscope.core.store import vectors
    from vendiscope.core.store.project import Project

    source = folder / "sample.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in sample_rows(n)), encoding="utf-8")
    project = Project.create(folder / "sample.vscope")
    try:
        import_dataset(project, source, name=SAMPLE_DATASET)
        rows = np.random.default_rng(0).normal(size=(n, 16)).astype(np.float32)
        rows /= np.linalg.norm(rows, axis=1, keepdims=True)
        vectors.write_matrix(project, SAMPLE_DATASET, SAMPLE_VECTORS, rows, kind="embedding",
                             model="random", params={"seed": 0})  # fmt: skip
        score_dataset(project, SAMPLE_DATASET, metric="vendi", vector_set=SAMPLE_VECTORS)
    except BaseException:
        project.close()
        raise
    return project
