"""Find plugins and register their manifests, recording (never raising) what goes wrong.

Plugins come from entry points (group ``vendiscope.plugins``; the built-ins first) and from
``.py`` files in the user's plugin folder (:mod:`vendiscope.core.plugin_host.userdir`). Third-party
code is probed first (:mod:`vendiscope.core.plugin_host.probe`); a plugin that fails to import,
is not a :class:`~vendiscope.core.plugin_host.manifest.PluginManifest`, needs another plugin API
or clashes with a name already taken is kept in :attr:`PluginDiscovery.failures`.
:class:`PluginDiscovery` is the base of
:class:`~vendiscope.core.plugin_host.registry.PluginRegistry`, which adds lookup, loading and
guarded calls.
"""

from __future__ import annotations

import traceback
from collections.abc import Iterable
from dataclasses import replace
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from typing import Any, TypeVar

from vendiscope.core.plugin_host import probe, userdir
from vendiscope.core.plugin_host.manifest import (
    API_VERSION,
    ENTRY_POINT_GROUP,
    KINDS,
    Contribution,
    PluginManifest,
    api_compatible,
)
from vendiscope.core.plugin_host.records import PluginFailure, PluginInfo

_D = TypeVar("_D", bound="PluginDiscovery")


class PluginDiscovery:
    """The plugins registered, their contributions by kind and name, and the failures."""

    def __init__(self) -> None:
        self.plugins: list[PluginInfo] = []
        self.failures: list[PluginFailure] = []
        self._by_kind: dict[str, dict[str, Contribution]] = {kind: {} for kind in KINDS}

    @classmethod
    def discover(
        cls: type[_D], group: str = ENTRY_POINT_GROUP, *, plugin_dir: Path | str | None = "user"
    ) -> _D:
        """Every plugin installed under the entry-point ``group``, then the plugin files.

        ``plugin_dir`` is the folder of file plugins: by default the user's
        (:func:`~vendiscope.core.plugin_host.userdir.user_plugin_dir`); ``None`` for none.
        """
        registry = cls()
        registry.add_entry_points(entry_points(group=group))
        folder = userdir.user_plugin_dir() if plugin_dir == "user" else plugin_dir
        if folder is not None:
            registry.add_plugin_dir(Path(folder))
        return registry

    def add_entry_points(self, points: Iterable[EntryPoint]) -> None:
        # Built-ins first, so a third-party plugin cannot shadow them by accident.
        ordered = sorted(points, key=lambda ep: (not ep.value.startswith("vendiscope."), ep.name))
        for point in ordered:
            origin = f"entry point '{point.name}' ({point.value})"
            if not point.value.startswith("vendiscope."):  # third-party code: probe it first
                dist = getattr(point, "dist", None)
                version = getattr(dist, "version", "") or ""
                refused = probe.probe_entry_point(point.name, point.value, point.group, version)
                if refused is not None:
                    self._fail(point.name, f"plugin {origin} {refused}; not loaded")
                    continue
            try:
                manifest = point.load()
            except Exception as exc:
                self._fail(point.name, f"failed to import: {exc!r}", details=traceback.format_exc())
                continue
            self.add_manifest(manifest, origin=origin, fallback_name=point.name)

    def add_plugin_dir(self, folder: Path) -> None:
        """Register the plugin files of ``folder`` (see
        :mod:`~vendiscope.core.plugin_host.userdir`).

        Each file is imported — its code runs — and must define a ``manifest``.
        """
        files = userdir.plugin_files(folder)
        if not files:
            return
        refused = userdir.unsafe(folder)
        if refused is not None:
            self._fail("plugin folder", f"plugin files not loaded: {refused}")
            return
        userdir.mount(folder)
        for path in files:
            refused = userdir.unsafe(path)
            if refused is not None:
                self._fail(f"file {path.name}", f"plugin file not loaded: {refused}")
                continue
            refused = probe.probe_file(folder, path)
            if refused is not None:
                self._fail(f"file {path.name}", f"plugin file {path} {refused}; not loaded")
                continue
            try:
                manifest = userdir.load_manifest(path)
            except Exception as exc:
                self._fail(
                    f"file {path.name}",
                    f"plugin file {path} failed to import: {exc!r}",
                    details=traceback.format_exc(),
                )
                continue
            self.add_manifest(
                manifest, origin=f"file {path}", fallback_name=f"file {path.name}", source="file"
            )

    @property
    def file_plugins(self) -> list[PluginInfo]:
        """The plugins loaded from ``.py`` files (their code ran when they were discovered)."""
        return [p for p in self.plugins if p.source == "file"]

    def add_manifest(
        self,
        manifest: object,
        *,
        origin: str = "",
        fallback_name: str = "?",
        source: str = "entry-point",
    ) -> None:
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
                    kind=contribution.kind,
                )
                continue
            owned = replace(contribution, plugin=manifest.name)
            self._by_kind[owned.kind][owned.name] = owned
            accepted.append(owned)
        self.plugins.append(
            PluginInfo(
                manifest.name,
                manifest.version,
                manifest.api_version,
                origin,
                tuple(accepted),
                source=source,
            )
        )

    def _fail(self, plugin: str, message: str, **kwargs: Any) -> PluginFailure:
        failure = PluginFailure(plugin, message, **kwargs)
        self.failures.append(failure)
        return failure


__all__ = ["PluginDiscovery"]
