"""Subsets as first-class objects: members with rank and gain, set operations, filters.

A subset is a named, ordered list of a dataset's records (by position), each with an
optional marginal gain, and the run that made it. Subsets come from selectors, from the
near-duplicate finder, from a lasso on the map, from a filter, from a list of ids, or
from set operations on other subsets. Every write is one transaction.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sqlalchemy import delete, select

from vendiscope.core.base import text
from vendiscope.core.base.errors import ProjectError
from vendiscope.core.store.filters import RecordFilter, matching_positions
from vendiscope.core.store.models import SubsetInfo
from vendiscope.core.store.project import Project
from vendiscope.core.store.schema import Record, Subset, SubsetMember

OPERATIONS = ("union", "intersection", "difference")


@dataclass(frozen=True)
class SubsetMembers:
    """A subset's members in rank order: dataset positions and marginal gains."""

    positions: list[int]
    gains: list[float | None]


def check_name(name: str) -> str:
    """A subset name: see :func:`vendiscope.core.base.text.check_name`."""
    return text.check_name(name, "subset")


def refuse_existing(project: Project, dataset: str, name: str) -> None:
    """Raise before any work if ``dataset`` already has a subset called ``name``."""
    if any(s.name == name for s in project.subsets(dataset)):
        raise ProjectError(
            f"dataset '{dataset}' already has a subset named '{name}'; choose another name "
            "or replace it (overwrite=True, `--overwrite`)"
        )


def members(project: Project, dataset: str, name: str) -> SubsetMembers:
    """The positions and gains of a subset's members, in rank order."""
    info = project.subset(dataset, name)
    query = (
        select(Record.seq, SubsetMember.gain)
        .join(SubsetMember, SubsetMember.record_id == Record.id)
        .where(SubsetMember.subset_id == info.id)
        .order_by(SubsetMember.rank)
    )
    with project.engine.connect() as connection:
        rows = connection.execute(query).all()
    return SubsetMembers([int(seq) for seq, _ in rows], [gain for _, gain in rows])


def save(
    project: Project,
    dataset: str,
    name: str,
    positions: Sequence[int],
    *,
    gains: Sequence[float | None] | None = None,
    run_id: int | None = None,
    description: str | None = None,
    overwrite: bool = False,
) -> SubsetInfo:
    """Create (or, with ``overwrite``, replace) a subset in one transaction.

    ``positions`` are dataset positions in rank order and must be unique; ``gains``, when
    given, has one value per position.
    """
    check_name(name)
    positions = [int(p) for p in positions]
    if len(set(positions)) != len(positions):
        raise ProjectError(f"subset '{name}': positions must be unique")
    if gains is not None and len(gains) != len(positions):
        raise ProjectError(f"subset '{name}': {len(gains)} gains for {len(positions)} positions")
    info = project.dataset(dataset)
    ids = project.record_ids(dataset, positions)
    with project.session() as session, session.begin():
        existing = session.scalars(
            select(Subset.id).where(Subset.dataset_id == info.id, Subset.name == name)
        ).first()
        if existing is not None:
            if not overwrite:
                refuse_existing(project, dataset, name)
            session.execute(delete(SubsetMember).where(SubsetMember.subset_id == existing))
            session.execute(delete(Subset).where(Subset.id == existing))
        subset = Subset(dataset_id=info.id, name=name, description=description, run_id=run_id)
        session.add(subset)
        session.flush()
        if ids:
            session.execute(
                SubsetMember.__table__.insert(),
                [
                    {
                        "subset_id": subset.id,
                        "record_id": record_id,
                        "rank": rank,
                        "gain": None if gains is None or gains[rank] is None
                        else float(gains[rank]),
                    }
                    for rank, record_id in enumerate(ids)
                ],
            )  # fmt: skip
    return project.subset(dataset, name)


def delete_subset(project: Project, dataset: str, name: str) -> None:
    """Delete a subset (its records stay in the dataset)."""
    info = project.subset(dataset, name)
    with project.session() as session, session.begin():
        session.execute(delete(SubsetMember).where(SubsetMember.subset_id == info.id))
        session.execute(delete(Subset).where(Subset.id == info.id))


def combine(
    project: Project,
    dataset: str,
    operation: str,
    names: Sequence[str],
    result: str,
    *,
    overwrite: bool = False,
) -> SubsetInfo:
    """Union, intersection or difference of subsets, saved as ``result``.

    Members keep the order of the first subset they appear in (the union appends the
    members new to each following subset in their own order); gains are kept from that
    first subset. ``difference`` is the first subset minus all the others.
    """
    if operation not in OPERATIONS:
        raise ProjectError(f"operation must be one of {', '.join(OPERATIONS)}; got '{operation}'")
    if len(names) < 2:
        raise ProjectError(f"{operation} needs at least two subsets; got {len(names)}")
    check_name(result)
    if not overwrite:
        refuse_existing(project, dataset, result)
    parts = [members(project, dataset, name) for name in names]
    positions, gains = _combine(operation, parts)
    description = f"{operation} of " + ", ".join(repr(n) for n in names)
    return save(
        project, dataset, result, positions, gains=gains, description=description,
        overwrite=overwrite,
    )  # fmt: skip


def _combine(operation: str, parts: list[SubsetMembers]) -> tuple[list[int], list[float | None]]:
    first = parts[0]
    if operation == "union":
        seen: dict[int, float | None] = {}
        for part in parts:
            for position, gain in zip(part.positions, part.gains, strict=True):
                seen.setdefault(position, gain)
        return list(seen), list(seen.values())
    others = [set(part.positions) for part in parts[1:]]
    if operation == "intersection":
        keep = [all(p in other for other in others) for p in first.positions]
    else:
        keep = [not any(p in other for other in others) for p in first.positions]
    positions = [p for p, k in zip(first.positions, keep, strict=True) if k]
    gains = [g for g, k in zip(first.gains, keep, strict=True) if k]
    return positions, gains


def from_ids(
    project: Project,
    dataset: str,
    name: str,
    ids: Iterable[str],
    *,
    overwrite: bool = False,
    description: str | None = None,
) -> SubsetInfo:
    """A subset of the records whose original id (the ``id`` field role) is in ``ids``.

    Ids keep the order given; an id that matches no record is an error naming it.
    """
    check_name(name)
    if not overwrite:
        refuse_existing(project, dataset, name)
    wanted = [str(i) for i in ids]
    if not wanted:
        raise ProjectError(f"subset '{name}': no ids given")
    info = project.dataset(dataset)
    found: dict[str, int] = {}
    with project.engine.connect() as connection:
        for start in range(0, len(wanted), 900):
            batch = wanted[start : start + 900]
            query = select(Record.ext_id, Record.seq).where(
                Record.dataset_id == info.id, Record.ext_id.in_(batch)
            )
            for ext_id, seq in connection.execute(query):
                found.setdefault(ext_id, seq)
    missing = [i for i in wanted if i not in found]
    if missing:
        hint = "" if found else " (is an id column mapped? see `vendiscope show`)"
        raise ProjectError(
            f"dataset '{dataset}': {len(missing)} of {len(wanted)} ids match no record, "
            f"e.g. '{missing[0]}'{hint}"
        )
    positions = list(dict.fromkeys(found[i] for i in wanted))
    return save(
        project, dataset, name, positions, overwrite=overwrite,
        description=description or f"{len(positions)} records listed by id",
    )  # fmt: skip


def from_positions(
    project: Project,
    dataset: str,
    name: str,
    positions: Sequence[int],
    *,
    overwrite: bool = False,
    description: str | None = None,
) -> SubsetInfo:
    """A subset of the records at these dataset positions (e.g. a lasso on the map)."""
    check_name(name)
    if not overwrite:
        refuse_existing(project, dataset, name)
    unique = list(dict.fromkeys(int(p) for p in positions))
    if not unique:
        raise ProjectError(f"subset '{name}': no records given")
    return save(
        project, dataset, name, unique, overwrite=overwrite,
        description=description or f"{len(unique)} records chosen by position",
    )  # fmt: skip


def copy_subset(project: Project, dataset: str, source: str, name: str) -> SubsetInfo:
    """Save subset ``source`` under the new name ``name``: the same members in the same rank
    order, their gains, the run that made it and its description (a taken name is refused)."""
    original = project.subset(dataset, source)
    found = members(project, dataset, source)
    check_name(name)
    refuse_existing(project, dataset, name)
    return save(
        project, dataset, name, found.positions, gains=found.gains,
        run_id=original.run_id, description=original.description,
    )  # fmt: skip


def from_filter(
    project: Project,
    dataset: str,
    name: str,
    where: RecordFilter,
    *,
    overwrite: bool = False,
) -> SubsetInfo:
    """A subset of the records matching a filter (text, source, score conditions)."""
    check_name(name)
    if not overwrite:
        refuse_existing(project, dataset, name)
    positions = matching_positions(project, dataset, where)
    if not positions:
        raise ProjectError(f"no record of dataset '{dataset}' matches {where.describe()}")
    return save(
        project, dataset, name, positions, overwrite=overwrite,
        description=f"records where {where.describe()}",
    )  # fmt: skip
