"""Checks of views: a valid, JSON-serialisable chart description from a project's data.

A view receives ``{"view_data": ViewData, "dataset": name}`` as in the app (see
:class:`vendiscope.api.View`; ``"project"`` is passed too for views of API 1.0-1.2).
By default the checks build a small sample project (:mod:`vendiscope.testing.sample`); pass
``data=`` (a dict, or a function returning one) for a view that needs more, e.g. a map.
"""

from __future__ import annotations

import copy
import json
import tempfile
import weakref
from pathlib import Path
from typing import Any

from vendiscope.core.base.errors import VendiscopeError
from vendiscope.core.plugin_host.charts import validate_chart
from vendiscope.testing._subject import Subject, same_structure


def view_data(subject: Subject) -> dict[str, Any]:
    """The data given to ``build``: ``opts["data"]`` or the sample project (made once)."""
    given = subject.opts.get("data")
    if given is not None:
        return dict(given() if callable(given) else given)
    cached = subject.opts.get("_sample_data")
    if cached is None:
        from vendiscope.core.view_data.reader import ProjectViewData
        from vendiscope.testing.sample import SAMPLE_DATASET, sample_project

        folder = tempfile.TemporaryDirectory(prefix="vendiscope-kit-")
        project = sample_project(Path(folder.name))
        cached = {
            "view_data": ProjectViewData(project, SAMPLE_DATASET),
            "dataset": SAMPLE_DATASET,
            "project": project,
        }
        subject.opts["_sample_data"] = cached
        subject.opts["_sample_folder"] = folder
        weakref.finalize(subject, _close, project, folder)
    return dict(cached)


def _close(project: Any, folder: tempfile.TemporaryDirectory[str]) -> None:
    project.close()
    folder.cleanup()


def _chart(subject: Subject, data: dict[str, Any], what: str) -> dict[str, Any]:
    try:
        chart = subject.instance().build(data)
    except VendiscopeError as exc:
        raise AssertionError(
            f"{what} raised {type(exc).__name__}: {exc} (give the checks data= with a project "
            "where what the view needs is computed)"
        ) from exc
    except Exception as exc:
        raise AssertionError(f"{what} raised {type(exc).__name__}: {exc}") from exc
    try:
        validate_chart(chart)
    except ValueError as exc:
        raise AssertionError(f"{what} is not a valid chart description: {exc}") from None
    try:
        json.dumps(chart, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise AssertionError(f"{what} is not JSON-serialisable: {exc}") from None
    return chart


def check_view_chart(subject: Subject) -> None:
    """build() returns a chart description that validate_chart accepts."""
    _chart(subject, view_data(subject), f"{subject.name}.build")


def check_view_deterministic(subject: Subject) -> None:
    """The same data give the same chart, twice and with a fresh instance."""
    data = view_data(subject)
    first = _chart(subject, data, f"{subject.name}.build")
    again = _chart(subject, data, f"{subject.name}.build (second call)")
    assert first == again, f"{subject.name}.build gave two different charts for the same data"
    fresh = subject.fresh().build(data)
    assert fresh == first, f"{subject.name}.build differs between two equal instances"


def check_view_no_mutation(subject: Subject) -> None:
    """build() leaves its data dict (and any plain values in it) unchanged."""
    data = view_data(subject)
    objects = dict(data)
    plain = {k: copy.deepcopy(v) for k, v in data.items() if _plain(v)}
    _chart(subject, data, f"{subject.name}.build")
    assert data.keys() == objects.keys() and all(data[k] is objects[k] for k in data), (
        f"{subject.name}.build replaced, added or removed keys of its data"
    )
    for key, value in plain.items():
        assert same_structure(value, data[key]), f"{subject.name}.build modified data[{key!r}]"


def check_view_missing_data(subject: Subject) -> None:
    """build({}) raises ValueError naming what is missing (not a KeyError or TypeError)."""
    try:
        subject.instance().build({})
    except ValueError as exc:
        assert str(exc).strip(), f"{subject.name}.build({{}}) raised ValueError without a message"
        return
    except Exception as exc:
        raise AssertionError(
            f"{subject.name}.build({{}}) raised {type(exc).__name__} ({exc}); expected a "
            "ValueError naming the missing data"
        ) from exc
    # A view that needs nothing may draw an empty chart.


def _plain(value: Any) -> bool:
    import numpy as np

    return (
        isinstance(value, (str, int, float, bool, list, tuple, dict, np.ndarray)) or value is None
    )


VIEW = (check_view_chart, check_view_deterministic, check_view_no_mutation, check_view_missing_data)
