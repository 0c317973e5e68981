"""A dataset's computed signals by column name, and the filters that read them.

Every ``signals/...`` vector set of a dataset holds one signal's columns; its run names them
(:func:`vendiscope.core.signals.job.describe_columns`). :func:`signal_columns` gathers them
as ``{column: SignalValues}`` — a column is named by its own name (``pii``) or, when two
signals share a name, as ``signal.column``. :func:`where` turns a filter expression into a
mask of the records that match:

- ``pii`` / ``contaminated`` (a flag or label alone): the flag is raised (a label is set);
- ``not pii``: the flag is not raised;
- ``words < 5``, ``loss > 4``, ``language != en``, ``language == de``: a comparison with a
  number (number columns) or a category (label columns); ``and`` joins conditions.

A record whose value is not applicable (NaN) matches no comparison. Unknown columns and bad
expressions raise a ``ProjectError`` naming the expression and the columns there are.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from vendiscope.core.base.errors import ProjectError
from vendiscope.core.store import vectors
from vendiscope.core.store.models import RecordRow
from vendiscope.core.store.project import Project
from vendiscope.core.vectors.signal_sets import KIND, PREFIX

if TYPE_CHECKING:
    import numpy as np

OPERATORS: dict[str, Callable[[Any, Any], Any]] = {
    ">=": operator.ge,
    "<=": operator.le,
    "!=": operator.ne,
    "==": operator.eq,
    ">": operator.gt,
    "<": operator.lt,
}
_CONDITION = re.compile(r"^\s*(not\s+)?([A-Za-z_][\w.\-]*)\s*(?:(>=|<=|!=|==|>|<|=)\s*(\S+))?\s*$")


@dataclass(frozen=True)
class SignalValues:
    """One column of a computed signal."""

    signal: str
    column: str
    kind: str
    """``number``, ``flag`` or ``label``."""
    values: np.ndarray
    """One float per record (NaN: not applicable; a label's code, -1 for none)."""
    categories: tuple[str, ...] = ()
    vector_set: str = ""
    run_id: int | None = None

    def labels(self) -> list[str | None]:
        """A label column's values as text (None where there is none)."""
        return [
            self.categories[int(v)] if v == v and 0 <= int(v) < len(self.categories) else None
            for v in self.values
        ]


def signal_columns(project: Project, dataset: str) -> dict[str, SignalValues]:
    """Every computed signal column of ``dataset`` (the newest set of each signal)."""
    found: dict[str, SignalValues] = {}
    by_signal: dict[str, vectors.VectorSetInfo] = {}
    for info in vectors.complete_sets(project, dataset, KIND):
        if info.name.startswith(PREFIX):
            by_signal[info.name.removeprefix(PREFIX)] = info  # newest last
    counts: dict[str, int] = {}
    gathered: list[SignalValues] = []
    for signal, info in sorted(by_signal.items()):
        run = project.run(info.run_id) if info.run_id is not None else None
        columns = (info.params or {}).get("columns") or ((run.params or {}) if run else {}).get(
            "columns"
        )
        if not columns:
            continue
        matrix = vectors.load(project, dataset, info.name)
        for index, column in enumerate(columns):
            name = str(column["name"])
            counts[name] = counts.get(name, 0) + 1
            gathered.append(
                SignalValues(
                    signal, name, str(column["kind"]), matrix[:, index],
                    tuple(column.get("categories") or ()), info.name, info.run_id,
                )
            )  # fmt: skip
    for values in gathered:
        found[f"{values.signal}.{values.column}"] = values
        if counts[values.column] == 1:
            found[values.column] = values
    return found


def signal_texts(project: Project, dataset: str) -> dict[str, list[str | None]]:
    """Every computed text column of ``dataset`` (the LLM judge's ``reason``): one text (or
    ``None``) per record, named as :func:`signal_columns` names columns (``reason`` and
    ``llm-judge.reason``). Texts are kept beside the values, not in the float32 vectors
    (:func:`vendiscope.core.store.vectors.read_texts`)."""
    newest: dict[str, vectors.VectorSetInfo] = {}
    for info in vectors.complete_sets(project, dataset, KIND):
        if info.name.startswith(PREFIX) and (info.params or {}).get("texts"):
            newest[info.name.removeprefix(PREFIX)] = info
    found: dict[str, list[str | None]] = {}
    counts: dict[str, int] = {}
    for signal, info in sorted(newest.items()):
        for name in info.params["texts"]:
            found[f"{signal}.{name}"] = vectors.read_texts(project, info, str(name))
            counts[name] = counts.get(name, 0) + 1
    for key in list(found):
        name = key.split(".", 1)[1] if "." in key else key
        if counts.get(name) == 1:
            found[name] = found[key]
    return found


def where(project: Project, dataset: str, expression: str) -> np.ndarray:
    """The mask of ``dataset``'s records that match ``expression`` (see the module's doc)."""
    return mask(signal_columns(project, dataset), expression)


def matching_page(
    project: Project, dataset: str, expression: str, offset: int, limit: int
) -> tuple[int, list[RecordRow]]:
    """How many records match ``expression``, and the matching records ``offset`` to
    ``offset + limit`` in dataset order (``vendiscope show --where``)."""
    import numpy as np

    from vendiscope.core.store.record_lookup import records_at

    positions = np.flatnonzero(where(project, dataset, expression))
    chosen = positions[offset : offset + limit].tolist()
    found = records_at(project, dataset, chosen)
    return int(positions.size), [found[p] for p in chosen]


def mask(columns: dict[str, SignalValues], expression: str) -> np.ndarray:
    """:func:`where` over columns already read."""
    parts = [p for p in re.split(r"\s+and\s+", expression.strip()) if p.strip()]
    if not parts:
        raise ProjectError("an empty filter expression; e.g. 'pii', 'words < 5', 'language != en'")
    result: np.ndarray | None = None
    for part in parts:
        found = _condition(columns, part, expression)
        result = found if result is None else result & found
    assert result is not None
    return result


def _condition(columns: dict[str, SignalValues], part: str, expression: str) -> np.ndarray:
    import numpy as np

    match = _CONDITION.match(part)
    if match is None:
        raise ProjectError(
            f"filter '{expression}': cannot read '{part.strip()}' (write NAME, not NAME, or "
            f"NAME OP VALUE with OP one of {', '.join(OPERATORS)})"
        )
    negated, name, op, value = match.groups()
    if name not in columns:
        known = ", ".join(sorted(columns)) or "none yet: run `vendiscope signals` first"
        raise ProjectError(f"filter '{expression}': no signal column '{name}' (columns: {known})")
    column = columns[name]
    values = column.values
    if op is None:
        raised = values > 0 if column.kind != "label" else values >= 0
        hit = np.asarray(raised, dtype=bool)
        return ~hit if negated else hit
    if negated:
        raise ProjectError(f"filter '{expression}': 'not' goes with a flag alone, as in 'not pii'")
    compare = OPERATORS["==" if op == "=" else op]
    if column.kind == "label":
        if op not in ("==", "=", "!="):
            raise ProjectError(f"filter '{expression}': a label ('{name}') takes == or !=")
        # a category the column never gives matches no record (==), or every record (!=)
        code = float(column.categories.index(value)) if value in column.categories else -2.0
        return np.asarray(compare(values, code), dtype=bool)
    try:
        number = float(value)
    except ValueError:
        raise ProjectError(
            f"filter '{expression}': '{name}' is a {column.kind}; compare it with a number, "
            f"not '{value}'"
        ) from None
    with np.errstate(invalid="ignore"):
        compared: np.ndarray = np.asarray(compare(values, number), dtype=bool)
    result: np.ndarray = np.logical_and(compared, ~np.isnan(values))
    return result


__all__ = ["OPERATORS", "SignalValues", "mask", "signal_columns", "signal_texts", "where"]
