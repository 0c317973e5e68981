"""The stable plugin API of Vendiscope: everything a plugin imports, in one place.

::

    from vendiscope.api import Contribution, Metric, MetricResult, PluginManifest, Range

What is here is public and versioned by :data:`API_VERSION` (``MAJOR.MINOR``): a minor
release only adds to it; anything removed or changed incompatibly bumps the major version, and
a plugin declaring ``api_version="1.x"`` is refused, with a message, by a Vendiscope whose API
is older than ``1.x`` or of another major version. **Everything else is private** —
``vendiscope.core.*``, ``vendiscope.plugins.*``, ``vendiscope.gui``, ``vendiscope.cli`` may
change in any release; import only from this module (and the test kit
:mod:`vendiscope.testing`).

Contents
--------
Interfaces (subclass one per contribution)
    :class:`Importer`, :class:`Exporter`, :class:`Embedder`, :class:`Featurizer`,
    :class:`Metric`, :class:`Selector` (:class:`StreamingSelector` for sets larger than
    memory), :class:`View`, :class:`Generator` (API 1.4: an LLM that writes new examples
    from chat prompts, :data:`Message` lists); their results :class:`SourceRow`,
    :class:`BadRow`, :class:`SourceInfo`, :class:`MetricResult`, :class:`Selection`,
    :class:`Generation`; :class:`VectorSource` (a set read in chunks, what a streaming
    selector reads); :class:`Trainer` (API 1.5: fine-tunes a small model on a subset and
    scores it on a target set) and its results :class:`Evaluation`,
    :class:`TrainingOutcome`, :class:`TrainingCost`.
Declaring a plugin
    :class:`PluginManifest`, :class:`Contribution`, :data:`API_VERSION`, :data:`KINDS`.
Progress and cancellation (jobs pass them to ``embed``, ``featurize``, ``select``, ``generate``,
``train`` and ``evaluate``)
    :class:`Progress` (the protocol), :class:`CancelToken`, :class:`Cancelled`,
    :class:`NullProgress`, :class:`RecordingProgress` (for tests).
Errors a plugin raises
    ``ValueError`` for bad input or parameters (the message names the parameter or row);
    :class:`InputError` (with a :class:`Location`) for a source an importer cannot read;
    :class:`ExportError` for output an exporter cannot write; :class:`PluginError` for a
    plugin that cannot work (a missing model, say). ``Cancelled`` comes from
    ``cancel.raise_if_cancelled()``. :class:`VendiscopeError` is their common base.
Parameters (for forms and ``--param``)
    :class:`Range`, :class:`Choices`, :class:`FromProject` (a value naming a subset or
    vector set of the project: forms offer the existing ones), :class:`ParamSpec`,
    :class:`ParamError`, :func:`describe_params`, :func:`coerce_params`.
Chart descriptions (what a :class:`View` returns)
    :class:`Chart` and its series types, :data:`CHART_KINDS`, :func:`validate_chart`.
What a view reads (API 1.3)
    :class:`ViewData` (the protocol of ``data["view_data"]``: scores, spectra, sources,
    map coordinates, clusters, near-duplicates, selection curves, coverage — read-only,
    plain data), :func:`view_data` (it, from a view's ``data``, with a ``ValueError`` when
    missing), :class:`NotComputed` (a piece not computed yet, naming the command),
    :data:`VENDI_METRICS`, :data:`METRIC_TITLES`, :data:`NO_SOURCE`,
    :data:`MAX_CONTRIBUTION_SOURCES`. ``data["project"]`` (the open project) is deprecated
    since 1.3 and goes in 2.0.
Helpers
    :func:`representative_order` (batch order whose every prefix spreads over the range),
    :func:`shorten` (text on one line, cut with an ellipsis: chart labels);
    :func:`final_answer` (the answer a math solution ends with) and :func:`same_answer`
    (whether two answers agree, numbers compared as numbers), what trainers check with.

Version history: 1.1 added :class:`VectorSource` and :class:`StreamingSelector`; 1.2 added
``View.needs_target`` and :class:`FromProject`; 1.3 added what a view reads (above) and
:func:`representative_order` and :func:`shorten`; 1.4 added :class:`Generator`,
:class:`Generation` and :data:`Message` (the ``generator`` kind); 1.5 added trainers:
:class:`Trainer`, :class:`Evaluation`, :class:`TrainingOutcome`, :class:`TrainingCost` (the
``trainer`` kind), :func:`final_answer` and :func:`same_answer`.
"""

from __future__ import annotations

from vendiscope.core.base.errors import (
    ExportError,
    InputError,
    Location,
    PluginError,
    VendiscopeError,
)
from vendiscope.core.base.jobs import (
    Cancelled,
    CancelToken,
    NullProgress,
    Progress,
    RecordingProgress,
    representative_order,
)
from vendiscope.core.base.text import shorten
from vendiscope.core.plugins.charts import (
    CHART_KINDS,
    CHART_SCHEMA_VERSION,
    BarSeries,
    Chart,
    HeatmapSeries,
    HistogramSeries,
    LineSeries,
    ScatterSeries,
    validate_chart,
)
from vendiscope.core.plugins.interfaces import (
    BadRow,
    Embedder,
    Evaluation,
    Exporter,
    Featurizer,
    Generation,
    Generator,
    Importer,
    Message,
    Metric,
    MetricResult,
    Selection,
    Selector,
    SourceInfo,
    SourceRow,
    StreamingSelector,
    Trainer,
    TrainingCost,
    TrainingOutcome,
    VectorSource,
    View,
)
from vendiscope.core.plugins.manifest import API_VERSION, KINDS, Contribution, PluginManifest
from vendiscope.core.plugins.params import (
    Choices,
    FromProject,
    ParamError,
    ParamSpec,
    Range,
    coerce_params,
    describe_params,
)
from vendiscope.core.studies.answers import final_answer, same_answer
from vendiscope.core.views.colouring import DISTINCT_COLOURS, default_map_colour
from vendiscope.core.views.missing import NotComputed
from vendiscope.core.views.protocol import (
    MAX_CONTRIBUTION_SOURCES,
    METRIC_TITLES,
    NO_SOURCE,
    VENDI_METRICS,
    ViewData,
    view_data,
)

__all__ = [
    "API_VERSION",
    "CHART_KINDS",
    "CHART_SCHEMA_VERSION",
    "DISTINCT_COLOURS",
    "KINDS",
    "MAX_CONTRIBUTION_SOURCES",
    "METRIC_TITLES",
    "NO_SOURCE",
    "VENDI_METRICS",
    "BadRow",
    "BarSeries",
    "CancelToken",
    "Cancelled",
    "Chart",
    "Choices",
    "Contribution",
    "Embedder",
    "Evaluation",
    "ExportError",
    "Exporter",
    "Featurizer",
    "FromProject",
    "Generation",
    "Generator",
    "HeatmapSeries",
    "HistogramSeries",
    "Importer",
    "InputError",
    "LineSeries",
    "Location",
    "Message",
    "Metric",
    "MetricResult",
    "NotComputed",
    "NullProgress",
    "ParamError",
    "ParamSpec",
    "PluginError",
    "PluginManifest",
    "Progress",
    "Range",
    "RecordingProgress",
    "ScatterSeries",
    "Selection",
    "Selector",
    "SourceInfo",
    "SourceRow",
    "StreamingSelector",
    "Trainer",
    "TrainingCost",
    "TrainingOutcome",
    "VectorSource",
    "VendiscopeError",
    "View",
    "ViewData",
    "coerce_params",
    "default_map_colour",
    "describe_params",
    "final_answer",
    "representative_order",
    "same_answer",
    "shorten",
    "validate_chart",
    "view_data",
]
