"""The plugin model: typed contribution interfaces, manifests, parameters and the registry.

Plugin authors import from :mod:`vendiscope.api`, the stable facade; this package is the
implementation the application uses.
"""

from vendiscope.core.plugin_host.interfaces import (
    BadRow,
    Embedder,
    Exporter,
    Featurizer,
    Importer,
    Metric,
    MetricResult,
    Selection,
    Selector,
    SourceInfo,
    SourceRow,
    StreamingSelector,
    VectorSource,
    View,
)
from vendiscope.core.plugin_host.manifest import API_VERSION, KINDS, Contribution, PluginManifest
from vendiscope.core.plugin_host.params import (
    Choices,
    ParamError,
    ParamSpec,
    Range,
    coerce_params,
    describe_params,
)
from vendiscope.core.plugin_host.registry import (
    ContributionStatus,
    PluginFailure,
    PluginInfo,
    PluginRegistry,
    default_registry,
)

__all__ = [
    "API_VERSION",
    "KINDS",
    "BadRow",
    "Choices",
    "Contribution",
    "ContributionStatus",
    "Embedder",
    "Exporter",
    "Featurizer",
    "Importer",
    "Metric",
    "MetricResult",
    "ParamError",
    "ParamSpec",
    "PluginFailure",
    "PluginInfo",
    "PluginManifest",
    "PluginRegistry",
    "Range",
    "Selection",
    "Selector",
    "SourceInfo",
    "SourceRow",
    "StreamingSelector",
    "VectorSource",
    "View",
    "coerce_params",
    "default_registry",
    "describe_params",
]
