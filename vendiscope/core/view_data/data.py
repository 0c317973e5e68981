"""Read helpers behind the views, the audit report and the GUI dashboard (one import for them).

The helpers live in modules with one job each, re-exported here for the report and the GUI:

- :mod:`~vendiscope.core.view_data.missing` — :class:`NotComputed` and :func:`command`, the one
  place that writes a ``vendiscope ...`` command line for what is missing;
- :mod:`~vendiscope.core.view_data.runs` — the latest score, near-duplicate, clustering,
  selection, synthesis and study runs;
- :mod:`~vendiscope.core.view_data.records` — record sources and texts, and which stored set
  (map, score, feature vectors) is shown when none is named;
- :mod:`~vendiscope.core.view_data.tables` — per-source, per-cluster, near-duplicate and coverage
  tables;
- :mod:`~vendiscope.core.view_data.reader` — what a view's ``build`` receives
  (:class:`ProjectViewData` inside the ``data`` mapping :class:`ViewInput`).

Plugins do not import this module: views read ``data["view_data"]`` through
:mod:`vendiscope.api`.
"""

from __future__ import annotations

from vendiscope.core.view_data.constants import (
    MAX_CONTRIBUTION_SOURCES,
    METRIC_TITLES,
    NO_SOURCE,
    TEXT_WIDTH,
    VENDI_METRICS,
)
from vendiscope.core.view_data.missing import NotComputed, command
from vendiscope.core.view_data.reader import ProjectViewData, ViewInput
from vendiscope.core.view_data.records import (
    feature_set,
    map_method,
    map_set,
    record_sources,
    record_texts,
    score_set,
)
from vendiscope.core.view_data.runs import (
    cluster_labels,
    cluster_run,
    complete_runs,
    latest_run,
    latest_selection_subset,
    missing_score_commands,
    near_duplicate_summary,
    per_record_score_runs,
    resolution_advice,
    resolution_checks,
    score_run,
    score_summary,
    selection_runs,
    study_runs,
    synthesis_runs,
)
from vendiscope.core.view_data.tables import (
    cluster_table,
    coverage_data,
    near_duplicate_groups,
    source_contributions,
    source_table,
    sparse_cluster_examples,
)

ViewData = ViewInput
"""The ``data`` mapping's former name (the API's ``ViewData`` is what ``data["view_data"]``
holds)."""

__all__ = [
    "MAX_CONTRIBUTION_SOURCES",
    "METRIC_TITLES",
    "NO_SOURCE",
    "TEXT_WIDTH",
    "VENDI_METRICS",
    "NotComputed",
    "ProjectViewData",
    "ViewData",
    "ViewInput",
    "cluster_labels",
    "cluster_run",
    "cluster_table",
    "command",
    "complete_runs",
    "coverage_data",
    "feature_set",
    "latest_run",
    "latest_selection_subset",
    "map_method",
    "map_set",
    "missing_score_commands",
    "near_duplicate_groups",
    "near_duplicate_summary",
    "per_record_score_runs",
    "record_sources",
    "record_texts",
    "resolution_advice",
    "resolution_checks",
    "score_run",
    "score_set",
    "score_summary",
    "selection_runs",
    "source_contributions",
    "source_table",
    "sparse_cluster_examples",
    "study_runs",
    "synthesis_runs",
]
