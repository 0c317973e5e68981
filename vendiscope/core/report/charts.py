"""The report's charts: one chart description per section, built by the registry's views.

Every chart comes from a view contribution of the plugin registry (the built-in ones are
``composition``, ``spectrum``, ``map``, ``cluster-coverage``, ``near-duplicates``,
``coverage``, ``selection-curves``, ``synthesis-curve`` and ``study-scatter``), built through
the one view builder, :func:`vendiscope.core.view_data.build.build_view` — with the same guards as
``vendiscope view`` and the app (typed parameters, ``registry.running``, the chart schema
check of ``registry.check_result``, errors naming the view and its plugin). The core never
imports :mod:`vendiscope.plugins`: a view is only ever named. (With a registry that has no
``synthesis-curve`` or ``study-scatter`` view, a synthesis curve or a study's scatter is the
chart the numbers hold, from the same pure function,
:func:`vendiscope.core.synthesis.algorithms.curve.synthesis_chart` or
:func:`vendiscope.core.studies.algorithms.chart.study_chart`.)
"""

from __future__ import annotations

import copy
from typing import Any

from vendiscope.core.base.errors import VendiscopeError
from vendiscope.core.base.jobs import CancelToken, Progress
from vendiscope.core.neighbors.options import CoverageOptions
from vendiscope.core.report.options import ReportOptions
from vendiscope.core.store.project import Project
from vendiscope.core.view_data import data as viewdata

MAX_POINTS = ReportOptions.max_points
SYNTHESIS_VIEW = "synthesis-curve"
STUDY_VIEW = "study-scatter"


def audit_charts(
    project: Project,
    dataset: str,
    numbers: dict[str, Any],
    *,
    registry: Any = None,
    max_points: int = MAX_POINTS,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> dict[str, dict[str, Any]]:
    """The report's chart descriptions, by section, for the ``numbers`` of
    :func:`vendiscope.core.report.numbers.audit_numbers`.

    Sections whose data is missing get no chart; a view that fails for another reason is
    noted under ``numbers["missing"]`` (the message names the view and its plugin). Each
    view is asked for what the numbers show: the composition chart for the score the
    sources' contributions were measured on, the coverage chart for the same target,
    radius and vector sets.
    """
    from vendiscope.core.plugin_host import default_registry

    registry = registry or default_registry()
    charts: dict[str, dict[str, Any]] = {}
    headline = numbers["headline"]
    has_sources = len((numbers.get("sources") or {}).get("sources") or []) > 1

    def view(section: str, name: str, target: str | None = None, **params: Any) -> None:
        chart = _build(
            project, dataset, name, params, numbers, section,
            target=target, registry=registry, progress=progress, cancel=cancel,
        )  # fmt: skip
        if chart is not None:
            charts[section] = chart

    sources = numbers.get("sources")
    basis = (sources or {}).get("contribution_basis")
    if basis is None:
        basis = "gvendi" if headline["gvendi"] else "vendi" if headline["embedding_vendi"] else None
    if sources and basis:
        view("sources", "composition", metric=basis)
    if headline["gvendi"] or headline["embedding_vendi"]:
        view("spectrum", "spectrum")
    if numbers.get("map"):
        color_by = "sparse" if numbers.get("clusters") else "source" if has_sources else "none"
        view("map", "map", color_by=color_by, max_points=max_points)
    if numbers.get("clusters"):
        view("clusters", "cluster-coverage")
    if numbers.get("near_duplicates") and numbers["near_duplicates"]["groups"]:
        view("near-duplicates", "near-duplicates")
    coverage = numbers.get("coverage")
    if coverage:
        view(
            "coverage", "coverage", target=coverage["target_dataset"],
            radius=coverage["radius"], vector_set=coverage["train_vector_set"],
            target_vector_set=coverage["target_vector_set"],
        )  # fmt: skip
    if numbers.get("selections"):
        view("selections", "selection-curves")
        subset = viewdata.latest_selection_subset(project, dataset)
        if subset is not None and numbers.get("map"):
            view("selection-map", "map", color_by="subset", subset=subset, max_points=max_points)
    views = {c.name for c in registry.contributions("view")}
    for run in numbers.get("synthesis") or []:
        section = f"synthesis-{run['run_id']}"
        if SYNTHESIS_VIEW in views:
            view(section, SYNTHESIS_VIEW, run=run["run_id"])
        else:  # a registry without the built-in views: the same chart, from the same function
            charts[section] = run["chart"]
    for study in numbers.get("studies") or []:
        for metric, chart in study["charts"].items():
            section = study_section(study["run_id"], metric)
            if STUDY_VIEW in views:
                view(section, STUDY_VIEW, run=study["run_id"], metric=metric)
            else:
                charts[section] = chart
    return charts


def study_section(run_id: int, metric: str) -> str:
    """The chart section of study run ``run_id``'s scatter of ``metric``."""
    return f"study-{run_id}-{metric}"


class GatheredViewData(viewdata.ProjectViewData):
    """The view data of ``dataset`` that answers from the report's ``numbers`` where they
    hold the answer: the source table (no second pass over the vectors; without
    contributions when the report was asked for none) and the coverage of the report's
    target (no second coverage run). Everything else reads the project as usual.

    Handed to the views through ``build_view(..., view_data=...)``.
    """

    def __init__(
        self, project: Project, dataset: str, numbers: dict[str, Any], *, target: str | None
    ) -> None:
        super().__init__(project, dataset, target=target)
        self._numbers = numbers

    def source_table(self, contributions: str | None = "auto") -> dict[str, Any]:
        gathered = self._numbers.get("sources")
        if gathered is None:
            return super().source_table(contributions)
        return copy.deepcopy(gathered)  # the contributions the report measured, or none

    def coverage(
        self,
        target: str | None = None,
        *,
        radius: float = CoverageOptions.min_similarity,
        vector_set: str | None = None,
        target_vector_set: str | None = None,
        train_subset: str | None = None,
        listed: int = 50,
        width: int = 200,
    ) -> dict[str, Any]:
        gathered = self._numbers.get("coverage")
        asked = (target or self.target, radius, train_subset)
        if gathered is not None and (
            asked == (gathered["target_dataset"], gathered["radius"], gathered["train_subset"])
            and vector_set in (None, gathered["train_vector_set"])
            and target_vector_set in (None, gathered["target_vector_set"])
        ):
            found = copy.deepcopy(gathered)
            found["least_covered"] = found["least_covered"][:listed]
            return found
        return super().coverage(
            target, radius=radius, vector_set=vector_set, target_vector_set=target_vector_set,
            train_subset=train_subset, listed=listed, width=width,
        )  # fmt: skip


def _build(
    project: Project,
    dataset: str,
    name: str,
    params: dict[str, Any],
    numbers: dict[str, Any],
    section: str,
    *,
    target: str | None,
    registry: Any,
    progress: Progress | None,
    cancel: CancelToken | None,
) -> dict[str, Any] | None:
    """The chart of view ``name``, or None: not computed (already listed as missing) or
    failed (listed under ``numbers["missing"]`` with the builder's message)."""
    from vendiscope.core.view_data.build import build_view

    gathered = GatheredViewData(project, dataset, numbers, target=target)
    try:
        built = build_view(
            project, name, dataset, params,
            registry=registry, progress=progress, cancel=cancel, target=target,
            view_data=gathered,
        )  # fmt: skip
    except viewdata.NotComputed:
        return None
    except (VendiscopeError, ValueError) as exc:
        numbers["missing"].append(
            {"section": section, "what": f"the {name} chart", "command": None,
             "message": str(exc)}
        )  # fmt: skip
        return None
    return built.chart


__all__ = [
    "MAX_POINTS",
    "STUDY_VIEW",
    "SYNTHESIS_VIEW",
    "GatheredViewData",
    "audit_charts",
    "study_section",
]
