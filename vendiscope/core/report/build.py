"""The diversity audit report: one self-contained HTML file (or JSON) about one dataset.

The public entry point is :func:`write_report`; it puts together the report's modules, one
job each:

- :mod:`.numbers` gathers the numbers from what the project already holds
  (:func:`audit_numbers`, the ``--format json``);
- :mod:`.compute` runs the missing cheap steps first, when asked (:func:`compute_missing`);
- :mod:`.charts` builds the charts through the plugin registry's views and the one view
  builder (:func:`audit_charts`);
- :mod:`.html` writes the page, charts embedded as images (:func:`report_html`).

The file is written atomically. The report computes nothing heavy by itself. Two things are
computed when asked: coverage of ``target`` (a coverage run, as ``vendiscope coverage``
records it) and, with ``compute=``, the missing cheap steps from existing vector sets
(scores, near-duplicates, clusters, a map); embeddings and gradients are never computed here.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vendiscope.core.base.jobs import CancelToken, NullProgress, Progress
from vendiscope.core.neighbors.options import CoverageOptions, check_min_similarity
from vendiscope.core.report.charts import audit_charts
from vendiscope.core.report.compute import COMPUTE_STEPS, compute_missing
from vendiscope.core.report.html import chart_image, report_html
from vendiscope.core.report.numbers import audit_numbers
from vendiscope.core.report.options import FORMATS, IMAGE_FORMATS, ReportOptions
from vendiscope.core.store.project import Project


@dataclass(frozen=True)
class ReportResult:
    destination: Path
    format: str
    numbers: dict[str, Any]
    charts: list[str]
    computed: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def missing(self) -> list[dict[str, Any]]:
        return self.numbers["missing"]


def write_report(
    project: Project,
    dataset: str,
    destination: Path | str,
    *,
    format: str | None = ReportOptions.format,
    force: bool = ReportOptions.force,
    target: str | None = None,
    radius: float = CoverageOptions.min_similarity,
    target_vector_set: str | None = None,
    vector_set: str | None = None,
    compute: Sequence[str] = (),
    images: str = ReportOptions.images,
    max_points: int = ReportOptions.max_points,
    contributions: bool = ReportOptions.contributions,
    registry: Any = None,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> ReportResult:
    """Write the audit of ``dataset`` as HTML (charts embedded) or JSON, atomically.

    ``format`` defaults to the suffix (``.json`` gives JSON, anything else HTML). An existing
    file is refused unless ``force``. ``compute`` names missing steps to run first (see
    :func:`compute_missing`); ``target`` adds coverage of that dataset within ``radius``;
    ``contributions=False`` skips the sources' contributions (see :func:`audit_numbers`).
    """
    from vendiscope.core.base.atomic import atomic_path, check_destination

    started = time.perf_counter()
    progress = progress or NullProgress()
    cancel = cancel or CancelToken()
    destination = Path(destination)
    options = ReportOptions(
        format=format, images=images, max_points=max_points, contributions=contributions,
        force=force,
    )  # fmt: skip
    format, images, max_points = options.format, options.images, options.max_points
    chosen = format or ("json" if destination.suffix.lower() == ".json" else "html")
    radius = check_min_similarity(radius)  # before any work
    check_destination(destination, force=force)
    project.dataset(dataset)
    computed = []
    if compute:
        computed = compute_missing(project, dataset, compute, progress=progress, cancel=cancel)
    progress.start(f"gathering the audit of {dataset}", total=None)
    numbers = audit_numbers(
        project,
        dataset,
        target=target,
        radius=radius,
        target_vector_set=target_vector_set,
        vector_set=vector_set,
        contributions=contributions,
    )
    if target is not None and numbers.get("coverage"):
        computed = [*computed, f"coverage of {target} (run {numbers['coverage']['run_id']})"]
    numbers["computed"] = computed
    progress.finish()
    cancel.raise_if_cancelled()
    charts: dict[str, dict[str, Any]] = {}
    if chosen == "html":
        charts = audit_charts(
            project, dataset, numbers, registry=registry, max_points=max_points, cancel=cancel
        )
        progress.start("drawing the charts", total=len(charts), unit="charts")
        rendered = {}
        for done, (section, chart) in enumerate(charts.items(), 1):
            cancel.raise_if_cancelled()
            rendered[section] = chart_image(chart, images)
            progress.update(done)
        progress.finish()
        text = report_html(numbers, rendered)
    else:
        text = json.dumps(numbers, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    with atomic_path(destination) as temporary:
        temporary.write_text(text, encoding="utf-8")
    return ReportResult(
        destination, chosen, numbers, list(charts), computed, time.perf_counter() - started
    )


_image = chart_image  # the former private name (tests/benchmarks/bench_report.py uses it)

__all__ = [
    "COMPUTE_STEPS",
    "FORMATS",
    "IMAGE_FORMATS",
    "ReportResult",
    "audit_charts",
    "audit_numbers",
    "compute_missing",
    "report_html",
    "write_report",
]
