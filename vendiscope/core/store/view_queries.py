"""Read-only queries behind the views and the report: plain values, one column at a time.

What a view shows is read through :mod:`vendiscope.core.view_data`; the SQL it needs lives here,
with the rest of the store (SQLAlchemy is imported only under ``vendiscope.core.store``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlalchemy import select

from vendiscope.core.store.schema import Record

if TYPE_CHECKING:
    from vendiscope.core.store.project import Project


def record_sources(project: Project, dataset: str) -> list[str | None]:
    """The source of each record of ``dataset``, in dataset order (None where it has none)."""
    info = project.dataset(dataset)
    query = select(Record.source).where(Record.dataset_id == info.id).order_by(Record.seq)
    with project.engine.connect() as connection:
        return [row[0] for row in connection.execute(query)]


__all__ = ["record_sources"]
