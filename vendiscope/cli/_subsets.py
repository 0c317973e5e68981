"""``vendiscope subsets ...``: list, show, create, combine and delete subsets."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from vendiscope.cli._app import DatasetArg, JsonOpt, ProjectArg, app
from vendiscope.cli._json_output import emit
from vendiscope.cli._output import console, reports_errors, shorten

subsets_app = typer.Typer(
    help="Named subsets of a dataset: from selections, filters, ids or set operations.",
    no_args_is_help=True,
)
app.add_typer(subsets_app, name="subsets")

NameArg = Annotated[str, typer.Argument(help="Subset name.")]
OverwriteOpt = Annotated[bool, typer.Option(help="Replace a subset of that name.")]


@subsets_app.command("list")
@reports_errors
def list_(project: ProjectArg, dataset: DatasetArg, json: JsonOpt = False) -> None:
    """The subsets of a dataset with their size and the run that made them."""
    from vendiscope.core.store.project import Project

    with Project.open(project) as opened:
        found = opened.subsets(dataset)
    if json:
        emit([s.__dict__ for s in found])
        return
    table = Table("name", "size", "run", "description", title=f"subsets of {dataset}")
    for s in found:
        run = str(s.run_id) if s.run_id is not None else ""
        table.add_row(s.name, str(s.size), run, shorten(s.description, 60))
    console.print(table)


@subsets_app.command()
@reports_errors
def show(
    project: ProjectArg,
    dataset: DatasetArg,
    name: NameArg,
    limit: Annotated[int, typer.Option(min=1, help="Members to list.")] = 20,
    json: JsonOpt = False,
) -> None:
    """A subset's members in rank order, with their marginal gain."""
    from vendiscope.core.neighbors.search import records_at
    from vendiscope.core.store import subsets
    from vendiscope.core.store.project import Project

    with Project.open(project) as opened:
        info = opened.subset(dataset, name)
        members = subsets.members(opened, dataset, name)
        shown = members.positions[:limit]
        records = records_at(opened, dataset, shown)
    if json:
        emit({"subset": info.__dict__, "positions": members.positions,
                    "gains": members.gains})  # fmt: skip
        return
    console.print(f"[bold]{info.name}[/]: {info.size} records — {info.description or ''}")
    table = Table("rank", "record", "gain", "text")
    for rank, (position, gain) in enumerate(zip(shown, members.gains, strict=False)):
        shown_gain = "" if gain is None else f"{gain:.4g}"
        table.add_row(str(rank), str(position), shown_gain,
                      shorten(records[position].display_text(), 70))  # fmt: skip
    console.print(table)


@subsets_app.command()
@reports_errors
def create(
    project: ProjectArg,
    dataset: DatasetArg,
    name: NameArg,
    ids: Annotated[
        Path | None, typer.Option(help="File with one record id per line (the id field).")
    ] = None,
    positions: Annotated[
        Path | None, typer.Option(help="File with one record position per line.")
    ] = None,
    contains: Annotated[str | None, typer.Option(help="Records whose text contains this.")] = None,
    source: Annotated[str | None, typer.Option(help="Records from this source.")] = None,
    where: Annotated[
        list[str] | None,
        typer.Option(help="Score condition, e.g. 'scores/run-3 > 0.5'; repeatable."),
    ] = None,
    overwrite: OverwriteOpt = False,
    json: JsonOpt = False,
) -> None:
    """Create a subset from a list of ids or positions, or from a filter."""
    from vendiscope.core.base.errors import ProjectError
    from vendiscope.core.store import subsets
    from vendiscope.core.store.filters import RecordFilter, ScoreCondition
    from vendiscope.core.store.project import Project

    filtered = contains is not None or source is not None or bool(where)
    if sum([ids is not None, positions is not None, filtered]) != 1:
        raise ProjectError(
            "give exactly one of --ids FILE, --positions FILE, or filter options "
            "(--contains, --source, --where)"
        )
    with Project.open(project) as opened:
        if ids is not None:
            info = subsets.from_ids(opened, dataset, name, _lines(ids), overwrite=overwrite)
        elif positions is not None:
            values = _positions(positions)
            info = subsets.from_positions(opened, dataset, name, values, overwrite=overwrite)
        else:
            conditions = tuple(ScoreCondition.parse(w) for w in where or ())
            record_filter = RecordFilter(contains, source, conditions)
            info = subsets.from_filter(opened, dataset, name, record_filter, overwrite=overwrite)
    _print_saved(dataset, info, json)


def _print_saved(dataset: str, info: object, json: bool) -> None:
    """The subset a command saved: a line, or with ``--json`` its document."""
    if json:
        emit({"dataset": dataset, **_subset_document(info)})
        return
    # mypy, on the next line: info is a SubsetInfo on this path
    console.print(f"saved subset [bold]{info.name}[/] with {info.size} records")  # type: ignore[attr-defined]


def _subset_document(info: object) -> dict[str, object]:
    fields = ("name", "size", "run_id", "description", "created_at")
    document = {key: getattr(info, key) for key in fields}
    document["subset"] = document.pop("name")
    return document


def _read(path: Path) -> list[str]:
    from vendiscope.core.base.errors import InputError, Location

    try:
        return path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError as error:
        raise InputError(f"not UTF-8 text ({error.reason})", Location(path)) from None


def _lines(path: Path) -> list[str]:
    return [line.strip() for line in _read(path) if line.strip()]


def _positions(path: Path) -> list[int]:
    from vendiscope.core.base.errors import InputError, Location

    values = []
    for number, line in enumerate(_read(path), 1):
        if not line.strip():
            continue
        try:
            values.append(int(line))
        except ValueError:
            raise InputError(
                f"'{line.strip()}' is not a record position", Location(path, number)
            ) from None
    return values


@subsets_app.command()
@reports_errors
def combine(
    project: ProjectArg,
    dataset: DatasetArg,
    operation: Annotated[str, typer.Argument(help="union, intersection or difference.")],
    names: Annotated[list[str], typer.Argument(help="Two or more subsets.")],
    into: Annotated[str, typer.Option("--into", help="Name of the resulting subset.")],
    overwrite: OverwriteOpt = False,
    json: JsonOpt = False,
) -> None:
    """Union, intersection or difference (first minus the others) of subsets."""
    from vendiscope.core.store import subsets
    from vendiscope.core.store.project import Project

    with Project.open(project) as opened:
        info = subsets.combine(opened, dataset, operation, names, into, overwrite=overwrite)
    _print_saved(dataset, info, json)


@subsets_app.command()
@reports_errors
def delete(project: ProjectArg, dataset: DatasetArg, name: NameArg, json: JsonOpt = False) -> None:
    """Delete a subset (its records stay in the dataset)."""
    from vendiscope.core.store import subsets
    from vendiscope.core.store.project import Project

    with Project.open(project) as opened:
        subsets.delete_subset(opened, dataset, name)
    if json:
        emit({"dataset": dataset, "subset": name, "deleted": True})
        return
    console.print(f"deleted subset [bold]{name}[/]")
