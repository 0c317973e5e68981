#!/usr/bin/env python3
"""Build the bundled demo project with its analysis computed: ``demo.vscope.gz``.

The demo project is the bundled demo dataset (``demo.jsonl``) with every analysis a new
user should see at first launch, computed by the real jobs with the bundled models:

1. sentence embeddings (all-MiniLM-L6-v2) and proxy-LM gradient features (SmolLM2, fast
   mode, d = 1,024);
2. G-Vendi and embedding-Vendi with bootstrap intervals and per-record leverage;
3. near-duplicates at cosine 0.95 on the embeddings;
4. spherical k-means clusters of the gradients (k = N/10) with the sparse ones marked;
5. a UMAP map of the embeddings;
6. greedy-Vendi and facility-location selections of 150 records, and random for comparison.

The project file is gzip-compressed into ``vendiscope/resources/demo/demo.vscope.gz``; the
app decompresses it into the user's data folder the first time it opens the demo. Paths of
this machine are replaced by the bundled file's name, so the project speaks only of itself.

Usage::

    python scripts/make_demo_project.py            # everything; 30+ minutes on 2 CPU cores
    python scripts/make_demo_project.py --rescore  # re-run the scores on the bundled file,
                                                   # keeping its vectors (a few minutes)
"""

from __future__ import annotations

import gzip
import json
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from vendiscope.core.io.demo import DEMO_DATASET, DEMO_FILE, DEMO_SNAPSHOT  # noqa: E402

BUDGET = 150


def score_steps() -> list:
    from vendiscope.core.metrics.scoring import score_dataset

    return [
        ("G-Vendi", lambda p: score_dataset(p, DEMO_DATASET, metric="gvendi",
                                            params={"bootstrap": 200})),
        ("embedding-Vendi", lambda p: score_dataset(p, DEMO_DATASET, metric="vendi",
                                                    params={"bootstrap": 200})),
    ]  # fmt: skip


def run_steps(project: object, steps: list) -> None:
    for label, step in steps:
        started = time.perf_counter()
        step(project)
        print(f"{label:>18}: {time.perf_counter() - started:6.1f} s", flush=True)


def rescore(project_path: Path) -> None:
    """The bundled project with its scores run again (new result fields), vectors kept."""
    from vendiscope.core.store.project import Project

    with gzip.open(DEMO_SNAPSHOT) as source, project_path.open("wb") as target:
        shutil.copyfileobj(source, target)
    from vendiscope.core.store import vectors

    with Project.open(project_path) as project:
        for found in vectors.list_sets(project, DEMO_DATASET):  # the old per-record scores
            if found.kind == "score" and found.name.startswith("scores/run-"):
                vectors.delete_set(project, DEMO_DATASET, found.name)
        run_steps(project, score_steps())
        project.wal_checkpoint()


def build(project_path: Path) -> None:
    from vendiscope.core.clusters.jobs import cluster_dataset
    from vendiscope.core.io.importing import import_dataset
    from vendiscope.core.maps.jobs import map_dataset
    from vendiscope.core.neighbors.search import find_near_duplicates
    from vendiscope.core.selection.job import select_dataset
    from vendiscope.core.store.project import Project
    from vendiscope.core.vectors.embedding import embed_dataset
    from vendiscope.core.vectors.featurizing import featurize_dataset

    steps = [
        ("import", lambda p: import_dataset(p, DEMO_FILE, name=DEMO_DATASET)),
        ("embeddings", lambda p: embed_dataset(p, DEMO_DATASET)),
        ("gradients", lambda p: featurize_dataset(p, DEMO_DATASET)),
        *score_steps(),
        ("near-duplicates", lambda p: find_near_duplicates(p, DEMO_DATASET, threshold=0.95)),
        ("clusters", lambda p: cluster_dataset(p, DEMO_DATASET)),
        ("map", lambda p: map_dataset(p, DEMO_DATASET, method="umap")),
        ("greedy-vendi", lambda p: select_dataset(p, DEMO_DATASET, method="greedy-vendi",
                                                  k=BUDGET)),
        ("facility-location", lambda p: select_dataset(p, DEMO_DATASET,
                                                       method="facility-location", k=BUDGET)),
        ("random", lambda p: select_dataset(p, DEMO_DATASET, method="random", k=BUDGET)),
    ]  # fmt: skip
    with Project.create(project_path) as project:
        run_steps(project, steps)
        project.wal_checkpoint()


def scrub_paths(project_path: Path, replacements: dict[str, str]) -> None:
    """Replace this machine's paths in text and JSON columns with bundled names."""
    connection = sqlite3.connect(project_path)
    try:
        for table, column in (("datasets", "source_uri"), ("runs", "params"),
                              ("runs", "result")):  # fmt: skip
            rows = connection.execute(f"SELECT id, {column} FROM {table}").fetchall()
            for row_id, value in rows:
                if value is None:
                    continue
                for old, new in replacements.items():
                    value = value.replace(json.dumps(old)[1:-1], new).replace(old, new)
                connection.execute(f"UPDATE {table} SET {column} = ? WHERE id = ?",
                                   (value, row_id))  # fmt: skip
        connection.commit()
        connection.execute("VACUUM")
    finally:
        connection.close()


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        project_path = Path(scratch) / "demo.vscope"
        (rescore if "--rescore" in sys.argv[1:] else build)(project_path)
        scrub_paths(project_path, {str(DEMO_FILE): DEMO_FILE.name, str(project_path):
                                   "demo.vscope"})  # fmt: skip
        with project_path.open("rb") as source, gzip.open(DEMO_SNAPSHOT, "wb", 9) as target:
            shutil.copyfileobj(source, target)
    print(f"wrote {DEMO_SNAPSHOT.relative_to(ROOT)} ({DEMO_SNAPSHOT.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
