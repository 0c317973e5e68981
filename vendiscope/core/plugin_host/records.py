"""What the registry records about plugins: those registered, their failures, and states.

A :class:`PluginFailure` is kept for anything that made a plugin or a contribution unusable
(at discovery, at load or while a job ran it); :class:`PluginInfo` describes a registered
plugin; :class:`ContributionStatus` gives one contribution's state — :data:`AVAILABLE`,
:data:`LOADED`, :data:`LOAD_FAILED` or :data:`RUN_FAILED` — with its failures.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from vendiscope.core.plugin_host.manifest import Contribution

# The states of a contribution (ContributionStatus.state)
AVAILABLE = "available"  # declared, not imported yet
LOADED = "loaded"  # imported, and its class fits its interface
LOAD_FAILED = "load-failed"  # cannot be used: import error, wrong class or signature
RUN_FAILED = "run-failed"  # loaded, but raised or returned something malformed in a job


@dataclass(frozen=True)
class PluginFailure:
    """A plugin or contribution that could not be used, and why.

    ``stage`` is ``"discover"`` (the plugin itself: manifest, API version, name clash),
    ``"load"`` (importing a contribution, its class or signature) or ``"run"`` (a job
    calling it).
    """

    plugin: str
    message: str
    contribution: str | None = None
    details: str = ""
    kind: str | None = None
    stage: str = "discover"


@dataclass(frozen=True)
class PluginInfo:
    """A plugin that was registered. ``source`` is ``"entry-point"`` or ``"file"``."""

    name: str
    version: str
    api_version: str
    origin: str
    contributions: tuple[Contribution, ...]
    source: str = "entry-point"


@dataclass(frozen=True)
class ContributionStatus:
    """A contribution, its state (available, loaded, load-failed, run-failed) and failures."""

    contribution: Contribution
    state: str
    failures: tuple[PluginFailure, ...] = ()

    @property
    def ok(self) -> bool:
        return self.state in (AVAILABLE, LOADED)

    def to_dict(self) -> dict[str, Any]:
        c = self.contribution
        return {
            "kind": c.kind,
            "name": c.name,
            "title": c.title,
            "plugin": c.plugin,
            "target": c.target,
            "state": self.state,
            "failures": [f.message for f in self.failures],
        }


__all__ = [
    "AVAILABLE",
    "LOADED",
    "LOAD_FAILED",
    "RUN_FAILED",
    "ContributionStatus",
    "PluginFailure",
    "PluginInfo",
]
