"""Checks of embedders and featurizers: contributions that turn records into vectors."""

from __future__ import annotations

import copy
from typing import Any

from vendiscope.core.base.jobs import Cancelled, CancelToken, NullProgress, RecordingProgress
from vendiscope.core.plugin_host.runtime import result_problem
from vendiscope.testing._subject import Subject, result_or_value_error


def _inputs(subject: Subject) -> list[Any]:
    return subject.texts() if subject.kind == "embedder" else subject.records()


def _run(subject: Subject, items: list[Any], instance: Any = None, **kwargs: Any) -> Any:
    kwargs.setdefault("progress", NullProgress())
    kwargs.setdefault("cancel", CancelToken())
    instance = instance or subject.instance()
    method = instance.embed if subject.kind == "embedder" else instance.featurize
    return method(items, **kwargs)


def _method(subject: Subject) -> str:
    return f"{subject.name}.{'embed' if subject.kind == 'embedder' else 'featurize'}"


def check_vectors_result(subject: Subject) -> None:
    """An (n, dim) float32 array of finite values; ``dim`` matches."""
    import numpy as np

    items = _inputs(subject)
    instance = subject.instance()
    dim = instance.dim
    assert isinstance(dim, int) and not isinstance(dim, bool) and dim > 0, (
        f"{subject.name}.dim is {dim!r}; expected a positive int"
    )
    progress = RecordingProgress()
    result = _run(subject, items, progress=progress)
    problem = result_problem(subject.kind, result, rows=len(items), dim=dim)
    assert problem is None, f"{_method(subject)} {problem}"
    assert result.dtype == np.float32, f"{_method(subject)} returned {result.dtype}, not float32"


def check_model_id(subject: Subject) -> None:
    """model_id is a non-empty string, the same after use and on a fresh instance."""
    instance = subject.instance()
    first = instance.model_id
    assert isinstance(first, str) and first.strip(), (
        f"{subject.name}.model_id is {first!r}; expected a non-empty string"
    )
    _run(subject, _inputs(subject)[:2])
    assert instance.model_id == first, (
        f"{subject.name}.model_id changed after use: {first!r} -> {instance.model_id!r}"
    )
    other = subject.fresh()
    assert other.model_id == first, (
        f"{subject.name}.model_id differs between two instances with the same parameters: "
        f"{first!r} and {other.model_id!r}"
    )


def check_vectors_deterministic(subject: Subject) -> None:
    """The same inputs give the same rows, and a row does not depend on the other inputs."""
    import numpy as np

    items = _inputs(subject)
    tolerance = subject.opt("atol", 1e-4)
    first = _run(subject, items)
    again = _run(subject, items)
    assert np.allclose(first, again, atol=tolerance), f"{_method(subject)} is not deterministic"
    part = _run(subject, items[1:3])
    assert np.allclose(part, first[1:3], atol=tolerance), (
        f"{_method(subject)}: rows change with the other inputs of the call (largest "
        f"difference {float(np.abs(part - first[1:3]).max()):.3g}); vector jobs embed in "
        "chunks, so a row must depend only on its own input"
    )


def check_vectors_no_mutation(subject: Subject) -> None:
    """The inputs are left unchanged."""
    items = _inputs(subject)
    before = copy.deepcopy(items)
    _run(subject, items)
    assert items == before, f"{_method(subject)} modified its inputs"


def check_vectors_empty_input(subject: Subject) -> None:
    """No inputs give a (0, dim) float32 array, or a ValueError with a message."""
    import numpy as np

    result = result_or_value_error(lambda: _run(subject, []), f"{_method(subject)}([])")
    if result is not None:
        dim = subject.instance().dim
        assert isinstance(result, np.ndarray) and result.shape == (0, dim), (
            f"{_method(subject)}([]) returned shape {getattr(result, 'shape', None)}; "
            f"expected (0, {dim})"
        )


def check_vectors_cancel(subject: Subject) -> None:
    """A cancelled token stops the call with Cancelled."""
    cancel = CancelToken()
    cancel.cancel()
    try:
        _run(subject, _inputs(subject), cancel=cancel)
    except Cancelled:
        return
    raise AssertionError(
        f"{_method(subject)} ignored a cancelled token; call cancel.raise_if_cancelled() "
        "between batches"
    )


def check_by_product(subject: Subject) -> None:
    """A featurizer's by-product (if any): a registered signal's parameters, and vectors equal
    to featurize()'s beside one row of the signal's columns per record."""
    import numpy as np

    if subject.kind != "featurizer":
        return
    instance = subject.instance()
    by_product = instance.by_product
    if by_product is None:
        return
    from vendiscope.core.plugin_host import default_registry

    try:
        signal = default_registry().create("signal", by_product.signal, **by_product.params)
    except Exception as error:
        raise AssertionError(
            f"{subject.name}.by_product names signal {by_product.signal!r} with "
            f"{by_product.params!r}, which cannot be created: {error}"
        ) from None
    items = _inputs(subject)
    vectors, values = instance.featurize_with_by_product(
        items, progress=NullProgress(), cancel=CancelToken()
    )
    tolerance = subject.opt("atol", 1e-4)
    assert np.allclose(vectors, _run(subject, items), atol=tolerance), (
        f"{subject.name}.featurize_with_by_product gives other vectors than featurize"
    )
    columns = len(tuple(signal.columns))
    assert isinstance(values, np.ndarray) and values.shape == (len(items), columns), (
        f"{subject.name}.featurize_with_by_product's values have shape "
        f"{getattr(values, 'shape', None)}; expected ({len(items)}, {columns}) "
        f"(the columns of signal {by_product.signal!r})"
    )


VECTORS = (
    check_vectors_result,
    check_model_id,
    check_vectors_deterministic,
    check_vectors_no_mutation,
    check_vectors_empty_input,
    check_vectors_cancel,
    check_by_product,
)
