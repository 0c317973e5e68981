"""Record filters: text, source and score conditions that yield dataset positions.

A filter is what a user types to carve a subset out of a dataset: records whose text
contains a phrase, from a source, or whose score (a one-column vector set such as
``scores/run-3``) passes a comparison, e.g. ``"scores/run-3 > 0.5"``.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sqlalchemy import or_, select

from vendiscope.core.base.errors import ProjectError
from vendiscope.core.store import vectors
from vendiscope.core.store.project import Project
from vendiscope.core.store.schema import Record

if TYPE_CHECKING:
    import numpy as np

_OPERATORS: dict[str, Callable[..., object]] = {
    ">=": operator.ge,
    "<=": operator.le,
    "==": operator.eq,
    "!=": operator.ne,
    ">": operator.gt,
    "<": operator.lt,
}
_CONDITION = re.compile(r"^\s*(?P<name>\S+?)\s*(?P<op>>=|<=|==|!=|>|<)\s*(?P<value>\S+)\s*$")


@dataclass(frozen=True)
class ScoreCondition:
    """``vector_set OP value`` over a one-column vector set (a per-record score)."""

    vector_set: str
    op: str
    value: float

    @classmethod
    def parse(cls, text: str) -> ScoreCondition:
        match = _CONDITION.match(text)
        if match is None:
            raise ProjectError(
                f"filter condition '{text}' is not of the form 'VECTOR_SET OP NUMBER' "
                f"(OP one of {' '.join(_OPERATORS)}), e.g. 'scores/run-3 > 0.5'"
            )
        try:
            value = float(match["value"])
        except ValueError:
            raise ProjectError(
                f"filter condition '{text}': '{match['value']}' is not a number"
            ) from None
        return cls(match["name"], match["op"], value)

    def __str__(self) -> str:
        return f"{self.vector_set} {self.op} {self.value:g}"


@dataclass(frozen=True)
class RecordFilter:
    """Records matching every given part (an empty filter matches every record)."""

    contains: str | None = None
    source: str | None = None
    conditions: tuple[ScoreCondition, ...] = field(default_factory=tuple)

    def describe(self) -> str:
        parts = []
        if self.contains:
            parts.append(f"text contains {self.contains!r}")
        if self.source is not None:
            parts.append(f"source = {self.source!r}")
        parts.extend(str(c) for c in self.conditions)
        return " and ".join(parts) or "all records"


def matching_positions(project: Project, dataset: str, where: RecordFilter) -> list[int]:
    """Positions (ascending) of the records of ``dataset`` that match ``where``."""
    import numpy as np

    info = project.dataset(dataset)
    mask = np.ones(info.row_count, dtype=bool)
    for condition in where.conditions:
        mask &= _condition_mask(project, dataset, condition)
    if where.contains or where.source is not None:
        mask &= _sql_mask(project, info.id, info.row_count, where)
    return np.flatnonzero(mask).tolist()


def _condition_mask(project: Project, dataset: str, condition: ScoreCondition) -> np.ndarray:
    found = vectors.get_set(project, dataset, condition.vector_set)
    if found.dim != 1:
        raise ProjectError(
            f"filter condition '{condition}': vector set '{found.name}' has {found.dim} "
            "columns; a condition needs a one-column score set (e.g. scores/run-N)"
        )
    column = vectors.load(project, dataset, found.name)[:, 0]
    # mypy, on the next line: numpy comparison returns an array of bool
    return _OPERATORS[condition.op](column, condition.value)  # type: ignore[return-value]


def _sql_mask(project: Project, dataset_id: int, n: int, where: RecordFilter) -> np.ndarray:
    import numpy as np

    query = select(Record.seq).where(Record.dataset_id == dataset_id)
    if where.source is not None:
        query = query.where(Record.source == where.source)
    if where.contains:
        pattern = "%" + _escape_like(where.contains) + "%"
        query = query.where(
            or_(
                *(column.ilike(pattern, escape="\\") for column in
                  (Record.prompt, Record.response, Record.text))
            )
        )  # fmt: skip
    mask = np.zeros(n, dtype=bool)
    with project.engine.connect() as connection:
        seqs = np.fromiter(connection.execute(query).scalars(), dtype=np.int64)
    mask[seqs] = True
    return mask


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
