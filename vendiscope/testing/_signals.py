"""Checks of signals: per-record values of a dataset's records (a table of floats)."""

from __future__ import annotations

import re
from typing import Any

from vendiscope.core.base.jobs import CancelToken, NullProgress
from vendiscope.core.plugin_host.interfaces import SignalColumn
from vendiscope.core.plugin_host.runtime import result_problem
from vendiscope.testing._subject import Subject, same_structure

_COLUMN_NAME = re.compile(r"^[a-z][a-z0-9_\-]*$")
EDGE_RECORDS = (
    {"prompt": "", "response": ""},
    {"text": ""},
    {"prompt": None, "response": None, "text": None},
    {"text": "Ünïcödé, emoji ✓ and 漢字 in one line."},
)


def _prepared(subject: Subject, instance: Any = None) -> Any:
    """An instance, fitted on the sample records when the signal compares with a target."""
    instance = instance or subject.instance()
    if getattr(instance, "needs_target", False):
        instance.fit_target(subject.opt("target_records", subject.records()))
    return instance


def _values(subject: Subject, records: list[dict[str, Any]], instance: Any = None) -> Any:
    return _prepared(subject, instance).compute(
        records, progress=NullProgress(), cancel=CancelToken()
    )


def check_signal_columns(subject: Subject) -> None:
    """``columns``: one or more SignalColumns with distinct filter-friendly names."""
    columns = tuple(subject.instance().columns)
    assert columns, f"{subject.name}.columns is empty; a signal computes at least one value"
    for column in columns:
        assert isinstance(column, SignalColumn), (
            f"{subject.name}.columns holds {column!r}; use vendiscope.api.SignalColumn"
        )
        assert _COLUMN_NAME.match(column.name), (
            f"{subject.name}: column name {column.name!r} is not lower case letters, digits, "
            "'_' or '-' (filters name columns: `--drop NAME`, `--where 'NAME > 1'`)"
        )
    names = [c.name for c in columns]
    assert len(set(names)) == len(names), f"{subject.name}: column names repeat: {names}"


def check_signal_values(subject: Subject) -> None:
    """compute(): a (records, columns) float array; flags 0/1, labels codes of categories."""
    import numpy as np

    records = [*subject.records(), *[dict(r) for r in EDGE_RECORDS]]
    columns = tuple(subject.instance().columns)
    values = _values(subject, records)
    problem = result_problem("signal", values, rows=len(records), dim=len(columns))
    assert problem is None, f"{subject.name}.compute {problem}"
    for index, column in enumerate(columns):
        found = values[:, index]
        present = found[~np.isnan(found)]
        if column.kind == "flag":
            assert np.isin(present, (0.0, 1.0)).all(), (
                f"{subject.name}: flag column '{column.name}' holds values other than 0 and 1"
            )
        elif column.kind == "label":
            codes = np.arange(-1, len(column.categories))
            assert np.isin(present, codes).all(), (
                f"{subject.name}: label column '{column.name}' holds values that are not codes "
                f"of its {len(column.categories)} categories (or -1 for none)"
            )


def check_signal_per_record(subject: Subject) -> None:
    """A record's values depend on the record only: alone, in another order, fresh instance."""
    import numpy as np

    records = subject.records()
    together = _values(subject, records)
    reversed_ = _values(subject, records[::-1])[::-1]
    alone = np.vstack([_values(subject, [r]) for r in records])
    fresh = _values(subject, records, subject.fresh())
    for label, other in (("in reverse order", reversed_), ("one at a time", alone),
                         ("from a fresh instance", fresh)):  # fmt: skip
        assert np.allclose(together, other, equal_nan=True, rtol=1e-5, atol=1e-6), (
            f"{subject.name}: the values of the same records differ when computed {label}"
        )


def check_signal_no_mutation(subject: Subject) -> None:
    """compute() leaves its records unchanged."""
    import copy

    records = subject.records()
    before = copy.deepcopy(records)
    _values(subject, records)
    assert same_structure(before, records), f"{subject.name}.compute modified its records"


def check_signal_empty_input(subject: Subject) -> None:
    """No records give a (0, columns) array."""
    columns = tuple(subject.instance().columns)
    values = _values(subject, [])
    assert getattr(values, "shape", None) == (0, len(columns)), (
        f"{subject.name}.compute([]) returned shape {getattr(values, 'shape', None)}; "
        f"expected (0, {len(columns)})"
    )


def check_signal_spans(subject: Subject) -> None:
    """spans(): Span objects naming one of the columns and a role of the record, in range."""
    from vendiscope.core.plugin_host.interfaces import Span

    instance = _prepared(subject)
    names = {c.name for c in instance.columns}
    for record in [*subject.records(), *[dict(r) for r in EDGE_RECORDS]]:
        for span in instance.spans(record):
            assert isinstance(span, Span), f"{subject.name}.spans returned {span!r}, not a Span"
            text = record.get(span.role)
            assert span.column in names and isinstance(text, str), (
                f"{subject.name}: a span of column {span.column!r} in role {span.role!r}, which "
                "the signal or the record does not have"
            )
            assert 0 <= span.start < span.end <= len(text), (
                f"{subject.name}: span {span.start}:{span.end} lies outside the {span.role}"
            )


SIGNAL = (
    check_signal_columns,
    check_signal_values,
    check_signal_per_record,
    check_signal_no_mutation,
    check_signal_empty_input,
    check_signal_spans,
)
