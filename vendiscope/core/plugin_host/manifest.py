"""Plugin manifests: what a plugin contributes, named by import strings so nothing loads early.

A plugin package exposes a :class:`PluginManifest` through an entry point in the group
``vendiscope.plugins``. The module holding the manifest must be cheap to import: it names
its contributions as ``"package.module:Class"`` strings, imported only when used.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

API_VERSION = "1.8"
"""1.1 added VectorSource and StreamingSelector (selection on sets larger than memory); 1.2
added ``View.needs_target`` and ``FromProject`` (parameters naming a subset or vector set);
1.3 added ``ViewData`` (``data["view_data"]``, read-only view data: views no longer need the
project, whose ``data["project"]`` is deprecated and goes in 2.0), ``view_data``,
``NotComputed``, the view constants, ``shorten`` and ``representative_order``; 1.4 added
``Generator``/``Generation`` (the ``generator`` kind: LLMs that write new examples) and
``Message``; 1.5 added trainers: ``Trainer`` (the ``trainer`` kind: fine-tune a small model on
a subset and score it on a target set), ``Evaluation``, ``TrainingOutcome``, ``TrainingCost``
and the answer helpers ``final_answer`` and ``same_answer``; 1.6 added the algorithms and
toolkits the built-in plugins are made of (selection algorithms, the Vendi math, the proxy
model and per-example gradients, the shared study and synthesis charts), loaded on first use."""
ENTRY_POINT_GROUP = "vendiscope.plugins"
KINDS = (
    "importer",
    "exporter",
    "embedder",
    "featurizer",
    "metric",
    "selector",
    "view",
    "generator",
    "trainer",
    "signal",
)


@dataclass(frozen=True)
class Contribution:
    """One capability a plugin offers.

    Parameters
    ----------
    kind
        One of :data:`KINDS`.
    name
        Short unique name within its kind, e.g. ``"jsonl"``; what users type.
    target
        ``"module.path:ClassName"``; imported lazily.
    title
        Human-readable name shown in the GUI.
    meta
        Kind-specific static facts, e.g. ``{"extensions": [".jsonl"]}`` for importers.
    """

    kind: str
    name: str
    target: str
    title: str = ""
    description: str = ""
    meta: dict[str, Any] = field(default_factory=dict)
    plugin: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown contribution kind '{self.kind}'; expected one of {KINDS}")
        if ":" not in self.target:
            raise ValueError(f"target '{self.target}' must look like 'package.module:Name'")

    @property
    def label(self) -> str:
        return self.title or self.name


@dataclass(frozen=True)
class PluginManifest:
    """Everything a plugin declares: its name, the API version it needs, its contributions."""

    name: str
    contributions: tuple[Contribution, ...]
    api_version: str = API_VERSION
    version: str = "0"
    description: str = ""


def api_compatible(required: str, provided: str = API_VERSION) -> bool:
    """A plugin built for API ``major.minor`` runs on the same major and an equal or newer minor."""
    try:
        req_major, req_minor = (int(p) for p in required.split(".")[:2])
        has_major, has_minor = (int(p) for p in provided.split(".")[:2])
    except ValueError:
        return False
    return req_major == has_major and req_minor <= has_minor
