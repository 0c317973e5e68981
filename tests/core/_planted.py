"""Small real projects with planted cluster structure in a stored vector set."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from tests.conftest import write_jsonl
from vendiscope.core.io.importing import import_dataset
from vendiscope.core.store import vectors

SIZES = (300, 200, 120, 80, 60, 40, 30, 25, 20, 18, 15, 12, 10, 10, 8, 8, 6, 6, 5, 5)
"""20 clusters of very different sizes."""
N_ROWS = sum(SIZES)


def planted_vectors(
    sizes: tuple[int, ...] = SIZES, dim: int = 16, spread: float = 0.05, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Rows around ``len(sizes)`` random unit directions; returns (rows, cluster of each row)."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(len(sizes), dim))
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    labels = np.repeat(np.arange(len(sizes)), sizes)
    rows = centres[labels] + spread * rng.normal(size=(len(labels), dim))
    order = rng.permutation(len(labels))
    return rows[order].astype(np.float32), labels[order]


def write_set(
    project: Any, dataset: str, name: str, rows: np.ndarray, *, kind: str = "gradient",
    model: str = "planted",
) -> None:  # fmt: skip
    """Store ``rows`` as a complete vector set of ``dataset``."""
    vectors.write_matrix(project, dataset, name, rows, kind=kind, model=model, params={},
                         chunk_rows=256)  # fmt: skip


def planted_dataset(
    project: Any, tmp_path: Path, name: str = "pool", *, seed: int = 0,
    sizes: tuple[int, ...] = SIZES,
) -> np.ndarray:  # fmt: skip
    """Import one record per planted row (source = cluster, rating = a number); store
    the rows as ``gradients/planted``. Returns the cluster label of each record."""
    rows, labels = planted_vectors(sizes, seed=seed)
    records = [
        {"id": f"{name}-{i}", "prompt": f"question {i} of cluster {c}", "response": f"answer {i}",
         "source": f"c{c % 4}", "rating": float(1 + i % 5), "meta": {"score": i % 3}}
        for i, c in enumerate(labels)
    ]  # fmt: skip
    import_dataset(project, write_jsonl(tmp_path / f"{name}.jsonl", records), name=name)
    write_set(project, name, "gradients/planted", rows)
    return labels


def disagreeing_scores(project: Any, tmp_path: Path, name: str = "advice") -> None:
    """240 records in four sources; gradients blind to them, embeddings clustered by them;
    both scored (G-Vendi does not tell the sources apart, embedding-Vendi does)."""
    from vendiscope.core.metrics.scoring import score_dataset

    records = [
        {"id": f"a{i}", "prompt": f"question {i}", "response": f"answer {i}", "source": f"s{i % 4}"}
        for i in range(240)
    ]  # fmt: skip
    import_dataset(project, write_jsonl(tmp_path / f"{name}.jsonl", records), name=name)
    rng = np.random.default_rng(0)
    centres = rng.normal(size=(4, 32))
    by_source = centres[np.arange(240) % 4] + 0.3 * rng.normal(size=(240, 32))
    write_set(project, name, "gradients/x", rng.normal(size=(240, 32)).astype(np.float32))
    write_set(project, name, "embeddings/x", by_source.astype(np.float32), kind="embedding")
    score_dataset(project, name, metric="gvendi")
    score_dataset(project, name, metric="vendi")
