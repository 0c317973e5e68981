"""What the built-in views share: reading ``data`` and rounding numbers for the chart."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from vendiscope.core.plugins.charts import CHART_SCHEMA_VERSION
from vendiscope.core.store.project import Project


def context(data: Any) -> tuple[Project, str]:
    """``(project, dataset)`` from a view's ``data``; ``ValueError`` naming what is wrong."""
    if not isinstance(data, dict):
        raise ValueError(f"data must be a dict with 'project' and 'dataset'; got {data!r}")
    project, dataset = data.get("project"), data.get("dataset")
    if not isinstance(project, Project):
        raise ValueError(f"data['project'] must be an open Project; got {project!r}")
    if not isinstance(dataset, str):
        raise ValueError(f"data['dataset'] must be a dataset name; got {dataset!r}")
    project.dataset(dataset)  # a clear error for a dataset that does not exist
    return project, dataset


def rounded(values: Iterable[Any], digits: int = 6) -> list[float]:
    """Plain floats rounded to ``digits`` (compact JSON; NumPy scalars become floats)."""
    return [round(float(v), digits) for v in values]


def chart(kind: str, title: str, series: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"kind": kind, "title": title, "series": series, "version": CHART_SCHEMA_VERSION,
            **extra}  # fmt: skip


def check_choice(name: str, value: Any, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(choices)}; got {value!r}")


def check_count(name: str, value: Any, minimum: int = 1) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{name} must be a whole number >= {minimum}; got {value!r}")
