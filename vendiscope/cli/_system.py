"""Commands about the installation itself: doctor, demo, gui."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from vendiscope.cli._app import JsonOpt, app
from vendiscope.cli._output import reports_errors


@app.command()
@reports_errors
def doctor(
    project: Annotated[str | None, typer.Argument(help="Also check this project file.")] = None,
    json: JsonOpt = False,
) -> None:
    """Versions, GPU, bundled models and plugins; with PROJECT, whether that file is sound.

    Exits 1 when the project fails SQLite's integrity or foreign-key check.
    """
    from vendiscope.cli import _printing
    from vendiscope.core.doctor import project_report, report

    info = report()
    if project is not None:
        info["project"] = project_report(project)
    _printing.print_doctor(info, as_json=json)
    if project is not None and not info["project"]["ok"]:
        raise typer.Exit(1)


@app.command()
@reports_errors
def demo(
    path: Annotated[Path | None, typer.Option(help="Where to create the demo project.")] = None,
    json: JsonOpt = False,
) -> None:
    """Create (once) and summarise the bundled demo project."""
    from vendiscope.cli import _printing
    from vendiscope.cli._progress import RichProgress
    from vendiscope.core.io.demo import DEMO_DATASET, ensure_demo_project
    from vendiscope.core.store.project import Project

    location = ensure_demo_project(path, progress=RichProgress())
    with Project.open(location) as opened:
        if json:
            from vendiscope.cli._json_output import emit

            emit(
                {
                    "project": str(opened.location),
                    "dataset": DEMO_DATASET,
                    "datasets": [d.__dict__ for d in opened.datasets()],
                    "stats": opened.stats(DEMO_DATASET),
                }
            )
            return
        _printing.print_summary(opened, DEMO_DATASET)


@app.command()
@reports_errors
def gui(
    project: Annotated[
        str | None, typer.Argument(help="Project file (*.vscope) or database URL to open.")
    ] = None,
    demo: Annotated[bool, typer.Option("--demo", help="Open the bundled demo project.")] = False,
    theme: Annotated[str | None, typer.Option(help="Force a colour theme: light or dark.")] = None,
) -> None:
    """Open the desktop application (on PROJECT, the demo project, or the start page)."""
    from vendiscope.core.base.errors import ProjectError
    from vendiscope.core.base.project_files import is_url

    if project is not None and not is_url(project) and not Path(project).exists():
        raise ProjectError(f"{project}: no such project file")
    from vendiscope.gui import run

    raise typer.Exit(run(project, demo=demo, theme=theme))
