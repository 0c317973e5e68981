"""The plugin model: typed contribution interfaces, manifests, and the registry."""

from vendiscope.core.plugins.interfaces import (
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
    View,
)
from vendiscope.core.plugins.manifest import API_VERSION, KINDS, Contribution, PluginManifest
from vendiscope.core.plugins.registry import PluginRegistry, default_registry

__all__ = [
    "API_VERSION",
    "KINDS",
    "BadRow",
    "Contribution",
    "Embedder",
    "Exporter",
    "Featurizer",
    "Importer",
    "Metric",
    "MetricResult",
    "PluginManifest",
    "PluginRegistry",
    "Selection",
    "Selector",
    "SourceInfo",
    "SourceRow",
    "View",
    "default_registry",
]
