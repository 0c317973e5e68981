"""Checks of metrics and selectors: contributions that take a vector matrix."""

from __future__ import annotations

import json
from typing import Any

from vendiscope.core.base.jobs import Cancelled, CancelToken, NullProgress
from vendiscope.core.plugin_host.runtime import result_problem
from vendiscope.testing._subject import Subject, result_or_value_error, value_error


# --------------------------------------------------------------------------- metrics
def _compute(subject: Subject, vectors: Any, instance: Any = None, **kwargs: Any) -> Any:
    return (instance or subject.instance()).compute(vectors, **kwargs)


def _close(subject: Subject, a: Any, b: Any) -> bool:
    import numpy as np

    return bool(np.allclose(a, b, rtol=subject.opt("rtol", 1e-5), atol=subject.opt("atol", 1e-6)))


def check_metric_result(subject: Subject) -> None:
    """A MetricResult: a finite number, per-record scores (n,) or None, JSON-able details."""
    import numpy as np

    for dtype in (np.float32, np.float64):
        vectors = subject.vectors().astype(dtype)
        result = _compute(subject, vectors)
        problem = result_problem("metric", result, rows=len(vectors))
        assert problem is None, f"{subject.name}.compute on {dtype.__name__} rows {problem}"
    try:
        json.dumps(result.details)
    except (TypeError, ValueError) as exc:
        raise AssertionError(
            f"{subject.name}: details are not JSON-serialisable ({exc}); "
            "they are stored with the run"
        ) from None


def check_metric_deterministic(subject: Subject) -> None:
    """The same rows give the same value, twice and with a fresh instance (no hidden state)."""
    vectors = subject.vectors()
    first = _compute(subject, vectors)
    for label, instance in (("a second call", None), ("a fresh instance", subject.fresh())):
        again = _compute(subject, vectors, instance)
        assert _close(subject, first.value, again.value), (
            f"{subject.name}: value {first.value!r} then {again.value!r} from {label}"
        )
        if first.per_record is not None:
            assert _close(subject, first.per_record, again.per_record), (
                f"{subject.name}: per-record scores differ on {label}"
            )


def check_metric_no_mutation(subject: Subject) -> None:
    """compute() leaves its input unchanged."""
    import numpy as np

    vectors = subject.vectors()
    before = vectors.copy()
    quality = np.linspace(0.5, 1.5, len(vectors))
    quality_before = quality.copy()
    _compute(subject, vectors)
    result_or_value_error(lambda: _compute(subject, vectors, quality=quality), "with quality")
    assert np.array_equal(vectors, before), f"{subject.name}.compute modified its vectors"
    assert np.array_equal(quality, quality_before), f"{subject.name}.compute modified quality"


def check_metric_permutation_invariant(subject: Subject) -> None:
    """Shuffling the rows keeps the value, and moves the per-record scores with them."""
    import numpy as np

    vectors = subject.vectors()
    order = np.random.default_rng(1).permutation(len(vectors))
    plain = _compute(subject, vectors)
    shuffled = _compute(subject, vectors[order])
    for result in (plain, shuffled):
        problem = result_problem("metric", result, rows=len(vectors))
        assert problem is None, f"{subject.name}.compute {problem}"
    assert _close(subject, plain.value, shuffled.value), (
        f"{subject.name}: value {plain.value!r} on the rows, {shuffled.value!r} on the same "
        "rows shuffled; a metric of a set must not depend on row order"
    )
    if plain.per_record is not None:
        assert _close(subject, np.asarray(plain.per_record)[order], shuffled.per_record), (
            f"{subject.name}: per-record scores do not follow their rows when shuffled"
        )


def check_metric_bad_input(subject: Subject) -> None:
    """No rows, a 1-D array or wrong-length quality raise ValueError with a message."""
    import numpy as np

    dim = subject.vectors().shape[1]
    empty = np.zeros((0, dim), dtype=np.float32)
    value_error(lambda: _compute(subject, empty), f"{subject.name}.compute of 0 rows")
    flat = subject.vectors()[0]
    value_error(lambda: _compute(subject, flat), f"{subject.name}.compute of a 1-D array")
    vectors = subject.vectors()
    wrong = np.ones(len(vectors) + 1)
    value_error(
        lambda: _compute(subject, vectors, quality=wrong),
        f"{subject.name}.compute with {len(wrong)} quality values for {len(vectors)} rows",
    )


def check_metric_tiny_input(subject: Subject) -> None:
    """One or two rows give a valid result or a ValueError with a message."""
    for n in (1, 2):
        vectors = subject.vectors()[:n]
        result = result_or_value_error(
            lambda v=vectors: _compute(subject, v), f"{subject.name}.compute of {n} row(s)"
        )
        if result is not None:
            problem = result_problem("metric", result, rows=n)
            assert problem is None, f"{subject.name}.compute of {n} row(s) {problem}"


def check_metric_quality(subject: Subject) -> None:
    """Quality weights give a valid result, or a ValueError if there is no weighted form."""
    import numpy as np

    vectors = subject.vectors()
    result = result_or_value_error(
        lambda: _compute(subject, vectors, quality=np.ones(len(vectors))),
        f"{subject.name}.compute with quality",
    )
    if result is not None:
        problem = result_problem("metric", result, rows=len(vectors))
        assert problem is None, f"{subject.name}.compute with quality {problem}"


METRIC = (
    check_metric_result,
    check_metric_deterministic,
    check_metric_no_mutation,
    check_metric_permutation_invariant,
    check_metric_bad_input,
    check_metric_tiny_input,
    check_metric_quality,
)


# --------------------------------------------------------------------------- selectors
def _select(subject: Subject, vectors: Any, k: int, instance: Any = None, **kwargs: Any) -> Any:
    kwargs.setdefault("progress", NullProgress())
    kwargs.setdefault("cancel", CancelToken())
    return (instance or subject.instance()).select(vectors, k, **kwargs)


def _k(subject: Subject) -> int:
    return int(subject.opt("k", 5))


def check_selector_result(subject: Subject) -> None:
    """A Selection of k unique indices in 0..n-1, with k gains or None."""
    vectors = subject.vectors()
    k = _k(subject)
    problem = result_problem("selector", _select(subject, vectors, k), rows=len(vectors), k=k)
    assert problem is None, f"{subject.name}.select(k={k}) {problem}"


def check_selector_k_bounds(subject: Subject) -> None:
    """k = n selects every row; k > n and k < 0 raise ValueError; k = 0 selects none."""
    vectors = subject.vectors()
    n = len(vectors)
    everything = _select(subject, vectors, n)
    problem = result_problem("selector", everything, rows=n, k=n)
    assert problem is None, f"{subject.name}.select(k=n={n}) {problem}"
    value_error(lambda: _select(subject, vectors, n + 1), f"{subject.name}.select(k={n + 1} > n)")
    value_error(lambda: _select(subject, vectors, -1), f"{subject.name}.select(k=-1)")
    none = result_or_value_error(
        lambda: _select(subject, vectors, 0), f"{subject.name}.select(k=0)"
    )
    if none is not None:
        problem = result_problem("selector", none, rows=n, k=0)
        assert problem is None, f"{subject.name}.select(k=0) {problem}"


def check_selector_deterministic(subject: Subject) -> None:
    """The same rows and seed give the same selection, twice and with a fresh instance."""
    import numpy as np

    vectors = subject.vectors()
    k = _k(subject)
    first = np.asarray(_select(subject, vectors, k).indices)
    for label, instance in (("a second call", None), ("a fresh instance", subject.fresh())):
        again = np.asarray(_select(subject, vectors, k, instance).indices)
        assert np.array_equal(first, again), (
            f"{subject.name}: selected {first.tolist()} then {again.tolist()} on {label}; "
            "seed any randomness from a 'seed' parameter at each call"
        )


def check_selector_streamed(subject: Subject) -> None:
    """A StreamingSelector picks from a chunked source what select() picks.

    The two compute in other chunks, so a score can differ in its last bits (BLAS sums in
    another order, differently on each CPU), and a tie between rows that are equal (within
    ``rtol``/``atol``) may be broken either way. So where the picks differ, the rows picked
    must be equal; any other difference fails.
    """
    import numpy as np

    from vendiscope.core.plugin_host.interfaces import StreamingSelector, VectorSource

    instance = subject.instance()
    if not isinstance(instance, StreamingSelector):
        return  # a selector that needs the matrix in memory: nothing to compare
    vectors = np.ascontiguousarray(subject.vectors())
    k = _k(subject)
    step = max(1, len(vectors) // 3)
    source = VectorSource(
        n=len(vectors),
        dim=vectors.shape[1],
        dtype=str(vectors.dtype),
        chunks=lambda: ((s, vectors[s : s + step]) for s in range(0, len(vectors), step)),
        rows=lambda positions: vectors[np.asarray(list(positions), dtype=np.int64)],
    )
    expected = np.asarray(_select(subject, vectors, k).indices)
    streamed = instance.select_streamed(source, k, progress=NullProgress(), cancel=CancelToken())
    got = np.asarray(streamed.indices)
    if np.array_equal(expected, got):
        return
    comparable = (
        got.shape == expected.shape
        and got.dtype.kind in "iu"
        and bool(((got >= 0) & (got < len(vectors))).all())
    )
    assert comparable and _close(subject, vectors[expected], vectors[got]), (
        f"{subject.name}: select() chose {expected.tolist()} but select_streamed() chose "
        f"{got.tolist()} from the same rows in chunks (only equal rows may trade places)"
    )


def check_selector_no_mutation(subject: Subject) -> None:
    """select() leaves its vectors and quality unchanged."""
    import numpy as np

    vectors = subject.vectors()
    before = vectors.copy()
    quality = np.linspace(0.5, 1.5, len(vectors))
    quality_before = quality.copy()
    _select(subject, vectors, _k(subject))
    result_or_value_error(
        lambda: _select(subject, vectors, _k(subject), quality=quality), "with quality"
    )
    assert np.array_equal(vectors, before), f"{subject.name}.select modified its vectors"
    assert np.array_equal(quality, quality_before), f"{subject.name}.select modified quality"


def check_selector_tiny_input(subject: Subject) -> None:
    """No rows with k = 1 raises ValueError; one row with k = 1 selects it."""
    import numpy as np

    dim = subject.vectors().shape[1]
    empty = np.zeros((0, dim), dtype=np.float32)
    value_error(lambda: _select(subject, empty, 1), f"{subject.name}.select(k=1) of 0 rows")
    one = subject.vectors()[:1]
    result = result_or_value_error(lambda: _select(subject, one, 1), "select(k=1) of 1 row")
    if result is not None:
        assert np.asarray(result.indices).tolist() == [0], (
            f"{subject.name}.select(k=1) of one row gave {np.asarray(result.indices).tolist()}"
        )


def check_selector_quality(subject: Subject) -> None:
    """Quality weights give a valid selection, or a ValueError if there is no weighted form."""
    import numpy as np

    vectors = subject.vectors()
    k = _k(subject)
    result = result_or_value_error(
        lambda: _select(subject, vectors, k, quality=np.ones(len(vectors))),
        f"{subject.name}.select with quality",
    )
    if result is not None:
        problem = result_problem("selector", result, rows=len(vectors), k=k)
        assert problem is None, f"{subject.name}.select with quality {problem}"


def check_selector_cancel(subject: Subject) -> None:
    """A cancelled token stops select() with Cancelled."""
    cancel = CancelToken()
    cancel.cancel()
    try:
        _select(subject, subject.vectors(), _k(subject), cancel=cancel)
    except Cancelled:
        return
    raise AssertionError(
        f"{subject.name}.select ignored a cancelled token; call cancel.raise_if_cancelled() "
        "between steps"
    )


SELECTOR = (
    check_selector_result,
    check_selector_k_bounds,
    check_selector_deterministic,
    check_selector_streamed,
    check_selector_no_mutation,
    check_selector_tiny_input,
    check_selector_quality,
    check_selector_cancel,
)
