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
    :class:`Range`, :class:`Choices`, :class:`Unit`, :class:`Label` (API 1.7: the unit of a
    number and what a form calls a parameter), :class:`FromProject` (a value naming a subset or
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

Algorithms and toolkits (API 1.6; NumPy or torch inside, so each loads on first use)
    What the built-in plugins are made of, for plugins of your own.
    *Selection*: :func:`greedy_vendi`, :func:`greedy_dpp`, :func:`facility_location`,
    :func:`k_center`, :func:`k_center_streamed`, :func:`prismatic`, :func:`random_selection`
    (each takes a matrix — :func:`k_center_streamed` a :class:`VectorSource` — ``k`` and
    keyword options, and returns a :class:`Selection`).
    *Vendi math*: :func:`vendi_decompose` (the eigendecomposition behind every order ``q``),
    :func:`check_vendi_order`, :func:`check_quality`, :func:`vendi_bootstrap_ci`,
    :func:`leverage_scores`, :func:`vendi_contributions`, :func:`knn_uniqueness` (per-record
    scores), :func:`column_sum` and :func:`resolution_details` (where a score sits between
    "all alike" and "all different").
    *Proxy model and per-example gradients*: :func:`load_proxy` (the bundled SmolLM2 or a
    Hugging Face model, with its tokenizer), :func:`model_label`, :func:`resolve_device`,
    :func:`effective_precision`, :func:`gradient_precision`, :class:`GradientEngine`
    (projected per-example gradients), :data:`GRADIENT_MODES`, :data:`GRADIENT_PRECISIONS`,
    :data:`GRADIENT_PRESETS`, :data:`DEFAULT_GRADIENT_PRESET`, :data:`SKETCH_KINDS`,
    :data:`PAPER_DIM`, :func:`auto_dim`, :func:`parse_memory`, :func:`parse_parameter_set`,
    :func:`selected_modules`, :func:`transformer_blocks`; chat examples as training tokens:
    :func:`encode_examples` (:class:`Encoded`, loss on the response only),
    :func:`has_chat_template`, :func:`length_buckets`, :func:`collate`, :func:`pad_token_id`,
    :func:`per_example_loss`.
    *Bundled weights*: :func:`sentence_encoder_dir`, :func:`quiet_loading`.
    *Charts the app and the report share*: :func:`study_chart`, :func:`study_verdict`,
    :data:`STUDY_OUTCOME_LABELS`, :func:`synthesis_chart`, :data:`SYNTHESIS_TITLE`,
    :data:`DEFAULT_MIN_SIMILARITY` (the coverage radius).
    *Files*: :func:`looks_like_project_file` (a Vendiscope project, not data to import).

Version history: 1.1 added :class:`VectorSource` and :class:`StreamingSelector`; 1.2 added
``View.needs_target`` and :class:`FromProject`; 1.3 added what a view reads (above) and
:func:`representative_order` and :func:`shorten`; 1.4 added :class:`Generator`,
:class:`Generation` and :data:`Message` (the ``generator`` kind); 1.5 added trainers:
:class:`Trainer`, :class:`Evaluation`, :class:`TrainingOutcome`, :class:`TrainingCost` (the
``trainer`` kind), :func:`final_answer` and :func:`same_answer`; 1.6 added the algorithms
and toolkits the built-in plugins are made of (above); 1.7 added :class:`Unit` and
:class:`Label` (``ParamSpec.unit`` and ``ParamSpec.title``), :data:`MAX_MAP_POINTS` and the
``signal`` kind: :class:`Signal`, :class:`SignalColumn`, :class:`Span`. 1.8 added
``Signal.text_columns`` (a short text per record, e.g. a judge's reason), a featurizer's
by-product (:class:`ByProduct`, ``Featurizer.by_product`` and
``featurize_with_by_product``: a signal computed on the way, e.g. each record's loss beside
its gradients) with :func:`loss_columns`, and the LLM judge's parts: :func:`create_generator`
(a generator plugin by name, its parameters as text or typed), :class:`JudgeSettings`,
:class:`Rubric`, :func:`load_rubric`, :func:`parse_rubric`, :class:`RubricError`,
:func:`builtin_rubric_text`, :data:`JUDGE_SCHEMA`, :class:`Judgement`, :func:`parse_judgement`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

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
from vendiscope.core.plugin_host.charts import (
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
from vendiscope.core.plugin_host.interfaces import (
    BadRow,
    ByProduct,
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
    Signal,
    SignalColumn,
    SourceInfo,
    SourceRow,
    Span,
    StreamingSelector,
    Trainer,
    TrainingCost,
    TrainingOutcome,
    VectorSource,
    View,
)
from vendiscope.core.plugin_host.manifest import API_VERSION, KINDS, Contribution, PluginManifest
from vendiscope.core.plugin_host.params import (
    Choices,
    FromProject,
    Label,
    ParamError,
    ParamSpec,
    Range,
    Unit,
    coerce_params,
    describe_params,
)
from vendiscope.core.studies.algorithms.answers import final_answer, same_answer
from vendiscope.core.view_data.colouring import DISTINCT_COLOURS, default_map_colour
from vendiscope.core.view_data.constants import MAX_MAP_POINTS
from vendiscope.core.view_data.missing import NotComputed
from vendiscope.core.view_data.protocol import (
    MAX_CONTRIBUTION_SOURCES,
    METRIC_TITLES,
    NO_SOURCE,
    VENDI_METRICS,
    ViewData,
    view_data,
)

# The algorithms and toolkits of API 1.6 import NumPy or torch: each is imported on first use
# (PEP 562), so that ``import vendiscope.api`` stays cheap. name -> (module, attribute there).
_LAZY = {
    # selection algorithms
    "facility_location": ("vendiscope.core.selection.algorithms.facility", "facility_location"),
    "greedy_dpp": ("vendiscope.core.selection.algorithms.dpp", "greedy_dpp"),
    "greedy_vendi": ("vendiscope.core.selection.algorithms.greedy_vendi", "greedy_vendi"),
    "k_center": ("vendiscope.core.selection.algorithms.kcenter", "k_center"),
    "k_center_streamed": ("vendiscope.core.selection.algorithms.kcenter", "k_center_streamed"),
    "prismatic": ("vendiscope.core.selection.algorithms.prismatic", "prismatic"),
    "random_selection": ("vendiscope.core.selection.algorithms.random_choice", "random_selection"),
    # the Vendi math
    "check_quality": ("vendiscope.core.metrics.algorithms.vendi", "check_quality"),
    "check_vendi_order": ("vendiscope.core.metrics.algorithms.vendi", "check_order"),
    "vendi_bootstrap_ci": ("vendiscope.core.metrics.algorithms.vendi", "bootstrap_ci"),
    "vendi_decompose": ("vendiscope.core.metrics.algorithms.vendi", "decompose"),
    "knn_uniqueness": ("vendiscope.core.metrics.algorithms.vendi_records", "knn_uniqueness"),
    "leverage_scores": ("vendiscope.core.metrics.algorithms.vendi_records", "leverage_scores"),
    "vendi_contributions": (
        "vendiscope.core.metrics.algorithms.vendi_records",
        "vendi_contributions",
    ),
    "column_sum": ("vendiscope.core.metrics.algorithms.resolution", "column_sum"),
    "resolution_details": ("vendiscope.core.metrics.algorithms.resolution", "resolution_details"),
    # the proxy model and per-example gradients
    "collate": ("vendiscope.core.gradients.batches", "collate"),
    "length_buckets": ("vendiscope.core.gradients.batches", "length_buckets"),
    "pad_token_id": ("vendiscope.core.gradients.batches", "pad_token_id"),
    "per_example_loss": ("vendiscope.core.gradients.batches", "per_example_loss"),
    "loss_columns": ("vendiscope.core.gradients.batches", "loss_columns"),
    "PAPER_DIM": ("vendiscope.core.gradients.dims", "PAPER_DIM"),
    "auto_dim": ("vendiscope.core.gradients.dims", "auto_dim"),
    "GRADIENT_MODES": ("vendiscope.core.gradients.features", "MODES"),
    "GRADIENT_PRECISIONS": ("vendiscope.core.gradients.features", "PRECISIONS"),
    "GradientEngine": ("vendiscope.core.gradients.features", "GradientEngine"),
    "effective_precision": ("vendiscope.core.gradients.features", "effective_precision"),
    "gradient_precision": ("vendiscope.core.gradients.features", "gradient_precision"),
    "resolve_device": ("vendiscope.core.gradients.features", "resolve_device"),
    "parse_memory": ("vendiscope.core.gradients.memory", "parse_memory"),
    "DEFAULT_GRADIENT_PRESET": ("vendiscope.core.gradients.presets", "DEFAULT_PRESET"),
    "GRADIENT_PRESETS": ("vendiscope.core.gradients.presets", "PRESETS"),
    "load_proxy": ("vendiscope.core.gradients.proxy", "load_proxy"),
    "model_label": ("vendiscope.core.gradients.proxy", "model_label"),
    "parse_parameter_set": ("vendiscope.core.gradients.proxy", "parse_parameter_set"),
    "selected_modules": ("vendiscope.core.gradients.proxy", "selected_modules"),
    "transformer_blocks": ("vendiscope.core.gradients.proxy", "transformer_blocks"),
    "Encoded": ("vendiscope.core.gradients.render", "Encoded"),
    "encode_examples": ("vendiscope.core.gradients.render", "encode_examples"),
    "has_chat_template": ("vendiscope.core.gradients.render", "has_chat_template"),
    "SKETCH_KINDS": ("vendiscope.core.gradients.sketch", "KINDS"),
    # bundled weights
    "sentence_encoder_dir": ("vendiscope.core.weights.bundled", "sentence_encoder_dir"),
    "quiet_loading": ("vendiscope.core.weights.loading", "quiet_loading"),
    # charts the app and the report share, and their settings
    "STUDY_OUTCOME_LABELS": ("vendiscope.core.studies.algorithms.chart", "OUTCOME_LABELS"),
    "study_chart": ("vendiscope.core.studies.algorithms.chart", "study_chart"),
    "study_verdict": ("vendiscope.core.studies.algorithms.chart", "verdict"),
    "SYNTHESIS_TITLE": ("vendiscope.core.synthesis.algorithms.curve", "TITLE"),
    "synthesis_chart": ("vendiscope.core.synthesis.algorithms.curve", "synthesis_chart"),
    "DEFAULT_MIN_SIMILARITY": ("vendiscope.core.neighbors.options", "DEFAULT_MIN_SIMILARITY"),
    # files
    "looks_like_project_file": ("vendiscope.core.base.project_files", "looks_like_project_file"),
    # curation signals (API 1.7)
    "TEXT_STAT_NAMES": ("vendiscope.core.signals.algorithms.heuristics", "STAT_NAMES"),
    "text_stats": ("vendiscope.core.signals.algorithms.heuristics", "text_stats"),
    "gopher_flags": ("vendiscope.core.signals.algorithms.heuristics", "gopher_flags"),
    "PII_KINDS": ("vendiscope.core.signals.algorithms.pii", "KINDS"),
    "find_pii": ("vendiscope.core.signals.algorithms.pii", "find_pii"),
    "find_pii_spans": ("vendiscope.core.signals.algorithms.pii", "find_spans"),
    "redact_pii": ("vendiscope.core.signals.algorithms.pii", "redact"),
    "build_ngram_index": ("vendiscope.core.signals.algorithms.contamination", "build_index"),
    "find_contamination": (
        "vendiscope.core.signals.algorithms.contamination",
        "find_contamination",
    ),
    "detect_languages": ("vendiscope.core.signals.algorithms.language", "detect_languages"),
    "supported_languages": ("vendiscope.core.signals.algorithms.language", "supported_languages"),
    # the LLM judge (API 1.8): rubrics, replies, generators created by name
    "JUDGE_SCHEMA": ("vendiscope.core.signals.algorithms.judgement", "SCHEMA"),
    "Judgement": ("vendiscope.core.signals.algorithms.judgement", "Judgement"),
    "parse_judgement": ("vendiscope.core.signals.algorithms.judgement", "parse_judgement"),
    "Rubric": ("vendiscope.core.signals.algorithms.rubric", "Rubric"),
    "RubricError": ("vendiscope.core.signals.algorithms.rubric", "RubricError"),
    "builtin_rubric_text": ("vendiscope.core.signals.algorithms.rubric", "builtin_rubric_text"),
    "load_rubric": ("vendiscope.core.signals.algorithms.rubric", "load_rubric"),
    "parse_rubric": ("vendiscope.core.signals.algorithms.rubric", "parse_rubric"),
    "JudgeSettings": ("vendiscope.core.signals.judge", "JudgeSettings"),
    "create_generator": ("vendiscope.core.signals.judge", "create_generator"),
}

if TYPE_CHECKING:  # the same names, for type checkers (tests/core/plugin_host/test_api.py compares)
    from vendiscope.core.base.project_files import looks_like_project_file
    from vendiscope.core.gradients.batches import (
        collate,
        length_buckets,
        loss_columns,
        pad_token_id,
        per_example_loss,
    )
    from vendiscope.core.gradients.dims import PAPER_DIM, auto_dim
    from vendiscope.core.gradients.features import MODES as GRADIENT_MODES
    from vendiscope.core.gradients.features import PRECISIONS as GRADIENT_PRECISIONS
    from vendiscope.core.gradients.features import (
        GradientEngine,
        effective_precision,
        gradient_precision,
        resolve_device,
    )
    from vendiscope.core.gradients.memory import parse_memory
    from vendiscope.core.gradients.presets import DEFAULT_PRESET as DEFAULT_GRADIENT_PRESET
    from vendiscope.core.gradients.presets import PRESETS as GRADIENT_PRESETS
    from vendiscope.core.gradients.proxy import (
        load_proxy,
        model_label,
        parse_parameter_set,
        selected_modules,
        transformer_blocks,
    )
    from vendiscope.core.gradients.render import Encoded, encode_examples, has_chat_template
    from vendiscope.core.gradients.sketch import KINDS as SKETCH_KINDS
    from vendiscope.core.metrics.algorithms.resolution import column_sum, resolution_details
    from vendiscope.core.metrics.algorithms.vendi import bootstrap_ci as vendi_bootstrap_ci
    from vendiscope.core.metrics.algorithms.vendi import check_order as check_vendi_order
    from vendiscope.core.metrics.algorithms.vendi import check_quality
    from vendiscope.core.metrics.algorithms.vendi import decompose as vendi_decompose
    from vendiscope.core.metrics.algorithms.vendi_records import (
        knn_uniqueness,
        leverage_scores,
        vendi_contributions,
    )
    from vendiscope.core.neighbors.options import DEFAULT_MIN_SIMILARITY
    from vendiscope.core.selection.algorithms.dpp import greedy_dpp
    from vendiscope.core.selection.algorithms.facility import facility_location
    from vendiscope.core.selection.algorithms.greedy_vendi import greedy_vendi
    from vendiscope.core.selection.algorithms.kcenter import k_center, k_center_streamed
    from vendiscope.core.selection.algorithms.prismatic import prismatic
    from vendiscope.core.selection.algorithms.random_choice import random_selection
    from vendiscope.core.signals.algorithms.contamination import build_index as build_ngram_index
    from vendiscope.core.signals.algorithms.contamination import find_contamination
    from vendiscope.core.signals.algorithms.heuristics import STAT_NAMES as TEXT_STAT_NAMES
    from vendiscope.core.signals.algorithms.heuristics import gopher_flags, text_stats
    from vendiscope.core.signals.algorithms.judgement import SCHEMA as JUDGE_SCHEMA
    from vendiscope.core.signals.algorithms.judgement import Judgement, parse_judgement
    from vendiscope.core.signals.algorithms.language import detect_languages, supported_languages
    from vendiscope.core.signals.algorithms.pii import KINDS as PII_KINDS
    from vendiscope.core.signals.algorithms.pii import find_pii
    from vendiscope.core.signals.algorithms.pii import find_spans as find_pii_spans
    from vendiscope.core.signals.algorithms.pii import redact as redact_pii
    from vendiscope.core.signals.algorithms.rubric import (
        Rubric,
        RubricError,
        builtin_rubric_text,
        load_rubric,
        parse_rubric,
    )
    from vendiscope.core.signals.judge import JudgeSettings, create_generator
    from vendiscope.core.studies.algorithms.chart import OUTCOME_LABELS as STUDY_OUTCOME_LABELS
    from vendiscope.core.studies.algorithms.chart import study_chart
    from vendiscope.core.studies.algorithms.chart import verdict as study_verdict
    from vendiscope.core.synthesis.algorithms.curve import TITLE as SYNTHESIS_TITLE
    from vendiscope.core.synthesis.algorithms.curve import synthesis_chart
    from vendiscope.core.weights.bundled import sentence_encoder_dir
    from vendiscope.core.weights.loading import quiet_loading

__all__ = [
    "API_VERSION",
    "CHART_KINDS",
    "CHART_SCHEMA_VERSION",
    "DISTINCT_COLOURS",
    "KINDS",
    "MAX_CONTRIBUTION_SOURCES",
    "MAX_MAP_POINTS",
    "METRIC_TITLES",
    "NO_SOURCE",
    "VENDI_METRICS",
    "BadRow",
    "BarSeries",
    "ByProduct",
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
    "Label",
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
    "Signal",
    "SignalColumn",
    "SourceInfo",
    "SourceRow",
    "Span",
    "StreamingSelector",
    "Trainer",
    "TrainingCost",
    "TrainingOutcome",
    "Unit",
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
__all__ += [  # API 1.7: the curation signals' algorithms, loaded on first use (_LAZY)
    "PII_KINDS",
    "TEXT_STAT_NAMES",
    "build_ngram_index",
    "detect_languages",
    "find_contamination",
    "find_pii",
    "find_pii_spans",
    "gopher_flags",
    "redact_pii",
    "supported_languages",
    "text_stats",
]
__all__ += [  # API 1.8: the LLM judge, loaded on first use (_LAZY)
    "JUDGE_SCHEMA",
    "JudgeSettings",
    "Judgement",
    "Rubric",
    "RubricError",
    "builtin_rubric_text",
    "create_generator",
    "load_rubric",
    "parse_judgement",
    "parse_rubric",
]
__all__ += [  # API 1.6, loaded on first use (_LAZY)
    "DEFAULT_GRADIENT_PRESET",
    "DEFAULT_MIN_SIMILARITY",
    "GRADIENT_MODES",
    "GRADIENT_PRECISIONS",
    "GRADIENT_PRESETS",
    "PAPER_DIM",
    "SKETCH_KINDS",
    "STUDY_OUTCOME_LABELS",
    "SYNTHESIS_TITLE",
    "Encoded",
    "GradientEngine",
    "auto_dim",
    "check_quality",
    "check_vendi_order",
    "collate",
    "column_sum",
    "effective_precision",
    "encode_examples",
    "facility_location",
    "gradient_precision",
    "greedy_dpp",
    "greedy_vendi",
    "has_chat_template",
    "k_center",
    "k_center_streamed",
    "knn_uniqueness",
    "length_buckets",
    "leverage_scores",
    "load_proxy",
    "looks_like_project_file",
    "loss_columns",
    "model_label",
    "pad_token_id",
    "parse_memory",
    "parse_parameter_set",
    "per_example_loss",
    "prismatic",
    "quiet_loading",
    "random_selection",
    "resolution_details",
    "resolve_device",
    "selected_modules",
    "sentence_encoder_dir",
    "study_chart",
    "study_verdict",
    "synthesis_chart",
    "transformer_blocks",
    "vendi_bootstrap_ci",
    "vendi_contributions",
    "vendi_decompose",
]


def __getattr__(name: str) -> Any:
    from vendiscope._lazy import lazy_attribute

    return lazy_attribute(globals(), _LAZY, name)


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
