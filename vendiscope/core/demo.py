"""The bundled demo dataset and the demo project built from it."""

from __future__ import annotations

from pathlib import Path

from vendiscope.core.jobs import Progress

DEMO_FILE = Path(__file__).resolve().parent.parent / "resources" / "demo" / "demo.jsonl"
DEMO_DATASET = "demo"


def default_demo_project() -> Path:
    """Where the demo project lives: the user's data folder."""
    from platformdirs import user_data_path

    return user_data_path("vendiscope", appauthor=False) / "demo.vscope"


def ensure_demo_project(path: Path | None = None, progress: Progress | None = None) -> Path:
    """Create the demo project from the bundled dataset unless it already exists."""
    from vendiscope.core.importing import import_dataset
    from vendiscope.core.project import Project

    path = Path(path) if path is not None else default_demo_project()
    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    building = path.with_name(path.name + ".building")
    for leftover in path.parent.glob(building.name + "*"):
        leftover.unlink()
    with Project.create(building) as project:
        import_dataset(project, DEMO_FILE, name=DEMO_DATASET, progress=progress)
        project.wal_checkpoint()
    building.rename(path)
    return path
