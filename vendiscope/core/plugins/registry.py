"""Discover plugins through entry points, import their contributions lazily, record failures.

A plugin that fails to load never takes the application down: the failure is kept in
:attr:`PluginRegistry.failures` and shown by ``vendiscope plugins`` and the GUI.
"""

from __future__ import annotations

import importlib
import inspect
import traceback
from collections.abc import Iterable
from dataclasses import dataclass, replace
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from typing import Any

from vendiscope.core.errors import PluginError
from vendiscope.core.plugins import interfaces
from vendiscope.core.plugins.manifest import (
    API_VERSION,
    ENTRY_POINT_GROUP,
    KINDS,
    Contribution,
    PluginManifest,
    api_compatible,
)

BASE_CLASSES: dict[str, type] = {
    "importer": interfaces.Importer,
    "exporter": interfaces.Exporter,
    "embedder": interfaces.Embedder,
    "featurizer": interfaces.Featurizer,
    "metric": interfaces.Metric,
    "selector": interfaces.Selector,
    "view": interfaces.View,
}


@dataclass(frozen=True)
class PluginFailure:
    """A plugin or contribution that could not be used, and why."""

    plugin: str
    message: str
    contribution: str | None = None
    details: str = ""


@dataclass(frozen=True)
class PluginInfo:
    name: str
    version: str
    api_version: str
    origin: str
    contributions: tuple[Contribution, ...]


class PluginRegistry:
    """All known contributions, by kind and name."""

    def __init__(self) -> None:
        self.plugins: list[PluginInfo] = []
        self.failures: list[PluginFailure] = []
        self._by_kind: dict[str, dict[str, Contribution]] = {kind: {} for kind in KINDS}
        self._loaded: dict[tuple[str, str], type] = {}

    # ------------------------------------------------------------------ discovery
    @classmethod
    def discover(cls, group: str = ENTRY_POINT_GROUP) -> PluginRegistry:
        """A registry holding every plugin installed under the entry-point ``group``."""
        registry = cls()
        registry.add_entry_points(entry_points(group=group))
        return registry

    def add_entry_points(self, points: Iterable[EntryPoint]) -> None:
        # Built-ins first, so a third-party plugin cannot shadow them by accident.
        ordered = sorted(points, key=lambda ep: (not ep.value.startswith("vendiscope."), ep.name))
        for point in ordered:
            origin = f"entry point '{point.name}' ({point.value})"
            try:
                manifest = point.load()
            except Exception as exc:
                self._fail(point.name, f"failed to import: {exc!r}", details=traceback.format_exc())
                continue
            self.add_manifest(manifest, origin=origin, fallback_name=point.name)

    def add_manifest(self, manifest: object, *, origin: str = "", fallback_name: str = "?") -> None:
        """Register a manifest's contributions; record (not raise) anything wrong with it."""
        if not isinstance(manifest, PluginManifest):
            self._fail(fallback_name, f"{origin} is not a vendiscope PluginManifest")
            return
        if not api_compatible(manifest.api_version):
            self._fail(
                manifest.name,
                f"needs plugin API {manifest.api_version}; this Vendiscope provides "
                f"{API_VERSION} (upgrade Vendiscope or use a matching plugin version)",
            )
            return
        accepted = []
        for contribution in manifest.contributions:
            existing = self._by_kind[contribution.kind].get(contribution.name)
            if existing is not None:
                self._fail(
                    manifest.name,
                    f"{contribution.kind} '{contribution.name}' is already provided by "
                    f"'{existing.plugin}'; this one is ignored",
                    contribution=contribution.name,
                )
                continue
            owned = replace(contribution, plugin=manifest.name)
            self._by_kind[owned.kind][owned.name] = owned
            accepted.append(owned)
        self.plugins.append(
            PluginInfo(
                manifest.name, manifest.version, manifest.api_version, origin, tuple(accepted)
            )
        )

    def _fail(self, plugin: str, message: str, **kwargs: Any) -> None:
        self.failures.append(PluginFailure(plugin, message, **kwargs))

    # ------------------------------------------------------------------ lookup
    def contributions(self, kind: str) -> list[Contribution]:
        if kind not in KINDS:
            raise PluginError(f"unknown plugin kind '{kind}'; expected one of {', '.join(KINDS)}")
        return list(self._by_kind[kind].values())

    def get(self, kind: str, name: str) -> Contribution:
        try:
            return self._by_kind[kind][name]
        except KeyError:
            known = ", ".join(sorted(self._by_kind.get(kind, {}))) or "none"
            raise PluginError(f"no {kind} named '{name}' (available: {known})") from None

    def load(self, kind: str, name: str) -> type:
        """Import a contribution's class; a failure is recorded and raised as PluginError."""
        key = (kind, name)
        if key in self._loaded:
            return self._loaded[key]
        contribution = self.get(kind, name)
        module_name, _, attr = contribution.target.partition(":")
        try:
            obj = getattr(importlib.import_module(module_name), attr)
        except Exception as exc:
            message = f"{kind} '{name}' failed to load from {contribution.target}: {exc!r}"
            self._fail(
                contribution.plugin, message, contribution=name, details=traceback.format_exc()
            )
            raise PluginError(message) from exc
        base = BASE_CLASSES[kind]
        if not (inspect.isclass(obj) and issubclass(obj, base)):
            message = (
                f"{kind} '{name}' ({contribution.target}) is not a subclass of {base.__name__}"
            )
            self._fail(contribution.plugin, message, contribution=name)
            raise PluginError(message)
        self._loaded[key] = obj
        return obj

    def create(self, kind: str, name: str, **params: Any) -> Any:
        """Instantiate a contribution with keyword parameters, naming any bad parameter."""
        cls = self.load(kind, name)
        accepted = inspect.signature(cls.__init__).parameters
        takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in accepted.values())
        unknown = [p for p in params if p not in accepted and not takes_any]
        if unknown:
            valid = [p for p in accepted if p not in ("self", "args", "kwargs")]
            raise PluginError(
                f"{kind} '{name}' has no parameter '{unknown[0]}' "
                f"(parameters: {', '.join(valid) or 'none'})"
            )
        try:
            return cls(**params)
        except (TypeError, ValueError) as exc:
            raise PluginError(f"{kind} '{name}': {exc}") from exc

    # ------------------------------------------------------------------ importers
    def importer_for(self, path: Path) -> Contribution:
        """The importer whose declared extensions match ``path`` (a folder matches ``/``)."""
        candidates = []
        for contribution in self._by_kind["importer"].values():
            for pattern in contribution.meta.get("extensions", ()):
                if _matches(path, pattern):
                    candidates.append(contribution)
                    break
        if not candidates:
            known = sorted(
                {
                    e
                    for c in self._by_kind["importer"].values()
                    for e in c.meta.get("extensions", ())
                }
            )
            raise PluginError(
                f"{path}: cannot tell the format from its name; pass a format "
                f"(known: {', '.join(self._by_kind['importer'])}; extensions: {', '.join(known)})"
            )
        if len(candidates) > 1 and path.is_dir():
            for contribution in candidates:
                markers = contribution.meta.get("folder_markers", ())
                if any((path / marker).exists() for marker in markers):
                    return contribution
            fallback = [c for c in candidates if not c.meta.get("folder_markers")]
            if fallback:
                return fallback[0]
        return candidates[0]


def _matches(path: Path, pattern: str) -> bool:
    if pattern == "/":
        return path.is_dir()
    return path.name.lower().endswith(pattern.lower()) and not path.is_dir()


_DEFAULT: PluginRegistry | None = None


def default_registry(refresh: bool = False) -> PluginRegistry:
    """The process-wide registry of installed plugins, discovered on first use."""
    global _DEFAULT
    if _DEFAULT is None or refresh:
        _DEFAULT = PluginRegistry.discover()
    return _DEFAULT
