"""The bundled demo dataset and the demo project built from it.

The demo project ships with its analysis computed (``demo.vscope.gz``, built by
``scripts/make_demo_project.py`` with the real jobs and the bundled models): embeddings,
gradient features, G-Vendi and embedding-Vendi, near-duplicates, clusters, a map and
selections compared with random — so a new user sees every view populated at once. The
first time it is opened, it is decompressed into the user's data folder (and migrated if
the schema has moved on); every part can be recomputed from there.
"""

from __future__ import annotations

from pathlib import Path

from vendiscope.core.base.jobs import Progress

DEMO_DIR = Path(__file__).resolve().parents[2] / "resources" / "demo"
DEMO_FILE = DEMO_DIR / "demo.jsonl"
DEMO_SNAPSHOT = DEMO_DIR / "demo.vscope.gz"
DEMO_DATASET = "demo"


def default_demo_project() -> Path:
    """Where the demo project lives: the user's data folder."""
    from platformdirs import user_data_path

    return user_data_path("vendiscope", appauthor=False) / "demo.vscope"


def ensure_demo_project(path: Path | None = None, progress: Progress | None = None) -> Path:
    """Create the demo project (with its analysis) unless it already exists.

    Written to a temporary name and renamed into place, so an interrupted first launch
    never leaves a half-made demo behind. Without the bundled snapshot (a trimmed
    install), the project holds the demo dataset alone.
    """
    from vendiscope.core.store.project import Project

    path = Path(path) if path is not None else default_demo_project()
    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    building = path.with_name(path.name + ".building")
    for leftover in path.parent.glob(building.name + "*"):
        leftover.unlink()
    if DEMO_SNAPSHOT.exists():
        _unpack(building, progress)
        with Project.open(building) as project:  # applies any newer migrations
            project.wal_checkpoint()
    else:
        from vendiscope.core.io.importing import import_dataset

        with Project.create(building) as project:
            import_dataset(project, DEMO_FILE, name=DEMO_DATASET, progress=progress)
            project.wal_checkpoint()
    for leftover in path.parent.glob(building.name + "?*"):  # -wal / -shm / backups
        leftover.unlink()
    building.rename(path)
    return path


def _unpack(target: Path, progress: Progress | None) -> None:
    import gzip
    import shutil

    if progress is not None:
        progress.start("unpacking the demo project", total=None)
    with gzip.open(DEMO_SNAPSHOT, "rb") as source, target.open("wb") as out:
        shutil.copyfileobj(source, out, length=1 << 20)
    if progress is not None:
        progress.finish()
