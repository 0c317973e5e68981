"""What a contribution must return, checked where jobs call it (and by the conformance kit).

:func:`result_problem` describes, in words, what is wrong with a contribution's result — a
metric value that is not a number, an embedding of the wrong shape, a selection with repeated
rows — or returns ``None``. Jobs call it through
:meth:`vendiscope.core.plugin_host.PluginRegistry.check_result`, which turns a problem into a
recorded :class:`~vendiscope.core.base.errors.PluginRuntimeError`.
"""

from __future__ import annotations

import numbers
from typing import Any

from vendiscope.core.plugin_host import interfaces


def result_problem(
    kind: str,
    result: Any,
    *,
    rows: int | None = None,
    dim: int | None = None,
    k: int | None = None,
) -> str | None:
    """What is wrong with ``result`` of a ``kind`` contribution, or ``None``.

    ``rows`` is the number of input rows (vectors, texts, records), ``dim`` the declared
    vector size of an embedder or featurizer, ``k`` the budget given to a selector. For a
    generator, ``rows`` is the number of prompts; for a trainer (an :class:`Evaluation` or a
    :class:`TrainingOutcome`), the number of target examples.
    """
    check = _CHECKS.get(kind)
    return check(result, rows=rows, dim=dim, k=k) if check is not None else None


def _metric(result: Any, *, rows: int | None, **_: Any) -> str | None:
    import numpy as np

    if not isinstance(result, interfaces.MetricResult):
        return f"returned {type(result).__name__}, not a MetricResult"
    value = result.value
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, np.floating, np.integer)):
        return f"returned a value of type {type(value).__name__}, not a number"
    if not np.isfinite(float(value)):
        return f"returned the value {value!r}; a metric value must be finite"
    if result.per_record is not None:
        scores = np.asarray(result.per_record)
        if scores.ndim != 1 or (rows is not None and scores.shape[0] != rows):
            return f"returned per-record scores of shape {scores.shape}; expected ({rows},)"
        if not np.issubdtype(scores.dtype, np.number):
            return f"returned per-record scores of dtype {scores.dtype}, not numbers"
        finite = np.isfinite(scores)
        if not finite.all():
            return (
                f"returned NaN or infinite per-record scores "
                f"(first for record {int(np.argmin(finite))})"
            )
    if not isinstance(result.details, dict):
        return f"returned details of type {type(result.details).__name__}, not a dict"
    return None


def _matrix(result: Any, *, rows: int | None, dim: int | None, **_: Any) -> str | None:
    import numpy as np

    if not isinstance(result, np.ndarray):
        return f"returned {type(result).__name__}, not a NumPy array"
    expected = (rows if rows is not None else result.shape[0], dim)
    if result.ndim != 2 or (rows is not None and result.shape[0] != rows):
        return f"returned an array of shape {result.shape}; expected {expected}"
    if dim is not None and result.shape[1] != dim:
        return f"returned {result.shape[1]} columns but declares dim = {dim}"
    if not np.issubdtype(result.dtype, np.floating):
        return f"returned an array of dtype {result.dtype}; expected float32"
    finite = np.isfinite(result).all(axis=1)
    if not finite.all():
        return f"returned NaN or infinite values (first in row {int(np.argmin(finite))})"
    return None


def _signal_values(result: Any, *, rows: int | None, dim: int | None, **_: Any) -> str | None:
    """A signal's values: the shape of a matrix; NaN (not applicable) allowed, never inf."""
    import numpy as np

    if not isinstance(result, np.ndarray):
        return f"returned {type(result).__name__}, not a NumPy array"
    if result.ndim != 2 or (rows is not None and result.shape[0] != rows):
        return f"returned an array of shape {result.shape}; expected ({rows}, {dim})"
    if dim is not None and result.shape[1] != dim:
        return f"returned {result.shape[1]} columns but declares {dim}"
    if not np.issubdtype(result.dtype, np.floating):
        return f"returned an array of dtype {result.dtype}; expected float32"
    if np.isinf(result).any():
        return f"returned infinite values (first in row {int(np.argmax(np.isinf(result).any(1)))})"
    return None


def _selection(result: Any, *, rows: int | None, k: int | None, **_: Any) -> str | None:
    import numpy as np

    if not isinstance(result, interfaces.Selection):
        return f"returned {type(result).__name__}, not a Selection"
    indices = np.asarray(result.indices)
    if indices.ndim != 1 or not (indices.size == 0 or np.issubdtype(indices.dtype, np.integer)):
        return (
            f"returned indices of shape {indices.shape} and dtype {indices.dtype}; "
            "expected 1-D integers"
        )
    if k is not None and indices.size != k:
        return f"returned {indices.size} indices for k = {k}"
    if indices.size and (indices.min() < 0 or (rows is not None and indices.max() >= rows)):
        return f"returned an index outside 0..{(rows or 0) - 1}"
    if np.unique(indices).size != indices.size:
        return "returned the same index more than once"
    if result.gains is not None:
        gains = np.asarray(result.gains, dtype=float)
        if gains.shape != indices.shape:
            count = gains.shape[0] if gains.ndim else 1
            return f"returned {count} gains for {indices.size} indices"
        finite = np.isfinite(gains)
        if not finite.all():
            return f"returned a NaN or infinite gain (pick {int(np.argmin(finite))})"
    return None


def _chart(result: Any, **_: Any) -> str | None:
    from vendiscope.core.plugin_host.charts import validate_chart

    try:
        validate_chart(result)
    except ValueError as exc:
        return f"returned a chart that does not fit the chart schema: {exc}"
    return None


def _generations(result: Any, *, rows: int | None, **_: Any) -> str | None:
    if not isinstance(result, list):
        return f"returned {type(result).__name__}, not a list of Generation"
    if rows is not None and len(result) != rows:
        return f"returned {len(result)} generations for {rows} prompts"
    for number, item in enumerate(result):
        if not isinstance(item, interfaces.Generation):
            return f"returned {type(item).__name__} for prompt {number}, not a Generation"
        if item.text is None and not (isinstance(item.error, str) and item.error.strip()):
            return f"returned no text and no error for prompt {number}"
        if item.text is not None and not isinstance(item.text, str):
            return f"returned text of type {type(item.text).__name__} for prompt {number}"
        if item.finish_reason is not None and not isinstance(item.finish_reason, str):
            return f"returned a finish_reason that is not a string for prompt {number}"
        tokens = item.tokens
        if isinstance(tokens, bool) or not isinstance(tokens, numbers.Integral) or tokens < 0:
            return f"returned tokens = {tokens!r} for prompt {number}; expected an int >= 0"
    return None


def _training(result: Any, *, rows: int | None, **_: Any) -> str | None:
    if isinstance(result, interfaces.TrainingOutcome):
        steps, seen = result.steps, result.examples_seen
        if isinstance(steps, bool) or not isinstance(steps, numbers.Integral) or steps < 1:
            return f"returned steps = {steps!r}; expected an int >= 1"
        if isinstance(seen, bool) or not isinstance(seen, numbers.Integral) or seen < 1:
            return f"returned examples_seen = {seen!r}; expected an int >= 1"
        if not _finite(result.train_loss):
            return f"returned train_loss = {result.train_loss!r}; expected a finite number"
        if not _finite(result.seconds) or result.seconds < 0:
            return f"returned seconds = {result.seconds!r}; expected a number >= 0"
        if not isinstance(result.details, dict):
            return f"returned details of type {type(result.details).__name__}, not a dict"
        return _evaluation(result.evaluation, rows=rows)
    return _evaluation(result, rows=rows)


def _evaluation(result: Any, *, rows: int | None) -> str | None:
    if not isinstance(result, interfaces.Evaluation):
        return f"returned {type(result).__name__}, not an Evaluation or a TrainingOutcome"
    n, checked = result.n, result.checked
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
        return f"returned an evaluation with n = {n!r}; expected an int >= 1"
    if rows is not None and n != rows:
        return f"returned an evaluation of {n} examples for {rows} target examples"
    if not _finite(result.loss) or result.loss < 0:
        return f"returned loss = {result.loss!r}; expected a finite number >= 0"
    if isinstance(checked, bool) or not isinstance(checked, numbers.Integral):
        return f"returned checked = {checked!r}; expected an int"
    if not 0 <= checked <= n:
        return f"returned checked = {checked} for {n} target examples"
    if (result.accuracy is None) != (checked == 0):
        return (
            f"returned accuracy = {result.accuracy!r} with checked = {checked}; accuracy is "
            "None exactly when no example was checkable"
        )
    if result.accuracy is not None and not (
        _finite(result.accuracy) and 0.0 <= result.accuracy <= 1.0
    ):
        return f"returned accuracy = {result.accuracy!r}; expected a share in [0, 1]"
    per_example = result.per_example
    if not isinstance(per_example, tuple) or len(per_example) not in (0, n):
        return f"returned per_example of length {len(per_example)}; expected {n} losses or ()"
    if not all(_finite(x) and x >= 0 for x in per_example):
        return "returned a per-example loss that is not a finite number >= 0"
    return None


def _finite(value: Any) -> bool:
    import math

    return (
        not isinstance(value, bool)
        and isinstance(value, numbers.Real)
        and math.isfinite(float(value))
    )


def _count(result: Any, *, rows: int | None, **_: Any) -> str | None:
    if isinstance(result, bool) or not isinstance(result, numbers.Integral) or result < 0:
        return f"returned {result!r}; write() must return the number of rows written"
    if rows is not None and result != rows:
        return f"wrote {result} rows of {rows}"
    return None


_CHECKS = {
    "metric": _metric,
    "embedder": _matrix,
    "featurizer": _matrix,
    "selector": _selection,
    "view": _chart,
    "exporter": _count,
    "generator": _generations,
    "trainer": _training,
    "signal": _signal_values,
}

__all__ = ["result_problem"]
