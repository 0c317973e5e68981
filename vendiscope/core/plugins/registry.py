"""Discover plugins, import their contributions lazily, record every failure.

Plugins come from entry points (group ``vendiscope.plugins``; the built-ins first) and from
``.py`` files in the user's plugin folder (:mod:`vendiscope.core.plugins.userdir`). A plugin
that fails to import, has a contribution whose signature does not fit its interface, or raises
while a job runs it never takes the application down: the failure is kept in
:attr:`PluginRegistry.failures` (and per contribution in :meth:`PluginRegistry.status`), shown
by ``vendiscope plugins`` and the GUI's plugin window.

Calling a plugin from a job
---------------------------
Jobs wrap each call into a contribution with :meth:`PluginRegistry.running` and check what it
returned with :meth:`PluginRegistry.check_result`::

    metric = registry.create("metric", name, **params)
    with registry.running("metric", name):
        result = metric.compute(matrix, quality=weights)
    registry.check_result("metric", name, result, rows=len(matrix))

An exception from the plugin then reaches the user as a
:class:`~vendiscope.core.base.errors.PluginRuntimeError` naming the contribution and its plugin
(``ValueError``, the documented way to reject bad input, keeps its message and is not counted
as a plugin failure; ``Cancelled`` and Vendiscope's own errors pass through unchanged).
Streams (an importer's rows) are wrapped with :meth:`PluginRegistry.guard_iter`.
"""

from __future__ import annotations

import importlib
import inspect
import traceback
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass, replace
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from vendiscope.core.base.errors import PluginError, PluginRuntimeError, VendiscopeError
from vendiscope.core.base.jobs import Cancelled
from vendiscope.core.plugins import interfaces, probe, userdir
from vendiscope.core.plugins.manifest import (
    API_VERSION,
    ENTRY_POINT_GROUP,
    KINDS,
    Contribution,
    PluginManifest,
    api_compatible,
)
from vendiscope.core.plugins.runtime import result_problem
from vendiscope.core.plugins.signatures import signature_problems
from vendiscope.core.store import runs

if TYPE_CHECKING:
    from vendiscope.core.plugins.params import ParamSpec

T = TypeVar("T")

BASE_CLASSES: dict[str, type] = {
    "importer": interfaces.Importer,
    "exporter": interfaces.Exporter,
    "embedder": interfaces.Embedder,
    "featurizer": interfaces.Featurizer,
    "metric": interfaces.Metric,
    "selector": interfaces.Selector,
    "view": interfaces.View,
}


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


class PluginRegistry:
    """All known contributions, by kind and name."""

    def __init__(self) -> None:
        self.plugins: list[PluginInfo] = []
        self.failures: list[PluginFailure] = []
        self._by_kind: dict[str, dict[str, Contribution]] = {kind: {} for kind in KINDS}
        self._loaded: dict[tuple[str, str], type] = {}
        self._broken: dict[tuple[str, str], str] = {}

    # ------------------------------------------------------------------ discovery
    @classmethod
    def discover(
        cls, group: str = ENTRY_POINT_GROUP, *, plugin_dir: Path | str | None = "user"
    ) -> PluginRegistry:
        """Every plugin installed under the entry-point ``group``, then the plugin files.

        ``plugin_dir`` is the folder of file plugins: by default the user's
        (:func:`~vendiscope.core.plugins.userdir.user_plugin_dir`); ``None`` for none.
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
        """Register the plugin files of ``folder`` (see :mod:`~vendiscope.core.plugins.userdir`).

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
        """Import a contribution's class and check it fits its interface.

        A failure is recorded (once) and raised as :class:`PluginError`.
        """
        key = (kind, name)
        if key in self._loaded:
            return self._loaded[key]
        if key in self._broken:
            raise PluginError(self._broken[key])
        contribution = self.get(kind, name)
        module_name, _, attr = contribution.target.partition(":")
        try:
            obj = getattr(importlib.import_module(module_name), attr)
        except Exception as exc:
            message = f"{kind} '{name}' failed to load from {contribution.target}: {exc!r}"
            raise self._load_failed(contribution, message, traceback.format_exc()) from exc
        base = BASE_CLASSES[kind]
        if not (inspect.isclass(obj) and issubclass(obj, base)):
            message = (
                f"{kind} '{name}' ({contribution.target}) is not a subclass of {base.__name__}"
            )
            raise self._load_failed(contribution, message)
        problems = signature_problems(obj, base)
        if problems:
            message = f"{kind} '{name}' ({contribution.target}): {'; '.join(problems)}"
            raise self._load_failed(contribution, message)
        self._loaded[key] = obj
        return obj

    def _load_failed(
        self, contribution: Contribution, message: str, details: str = ""
    ) -> Exception:
        self._broken[(contribution.kind, contribution.name)] = message
        self._fail(
            contribution.plugin,
            message,
            contribution=contribution.name,
            kind=contribution.kind,
            details=details,
            stage="load",
        )
        return PluginError(message)

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
        except VendiscopeError:
            raise
        except Exception as exc:
            raise self._run_failed(self.get(kind, name), exc, "__init__") from exc

    # ------------------------------------------------------------------ parameters
    def describe(self, kind: str, name: str) -> list[ParamSpec]:
        """The parameters of a contribution, for a form (imports it)."""
        from vendiscope.core.plugins.params import describe_params

        return describe_params(self.load(kind, name))

    def coerce(
        self, kind: str, name: str, values: Mapping[str, Any], *, prefix: str = ""
    ) -> dict[str, Any]:
        """``values`` (strings from a command line or form) typed and checked for a contribution.

        Raises :class:`~vendiscope.core.plugins.params.ParamError` naming the parameter.
        """
        from vendiscope.core.plugins.params import coerce_params

        if not values:
            return {}
        cls = self.load(kind, name)
        return coerce_params(cls, values, prefix=prefix, owner=f"{kind} '{name}'")

    # ------------------------------------------------------------------ status
    def status(self, kind: str, name: str) -> ContributionStatus:
        """The state of one contribution and the failures recorded against it."""
        contribution = self.get(kind, name)
        failures = tuple(
            f
            for f in self.failures
            if f.contribution == name and f.kind == kind and f.plugin == contribution.plugin
        )
        if (kind, name) in self._broken:
            state = LOAD_FAILED
        elif any(f.stage == "run" for f in failures):
            state = RUN_FAILED
        elif (kind, name) in self._loaded:
            state = LOADED
        else:
            state = AVAILABLE
        return ContributionStatus(contribution, state, failures)

    def statuses(self) -> list[ContributionStatus]:
        """Every registered contribution's status, by kind then registration order."""
        return [self.status(kind, c.name) for kind in KINDS for c in self._by_kind[kind].values()]

    def verify(self) -> list[PluginFailure]:
        """Load every contribution now (imports them all); return the failures this found."""
        before = len(self.failures)
        for kind in KINDS:
            for contribution in list(self._by_kind[kind].values()):
                with suppress(PluginError):
                    self.load(kind, contribution.name)
        return self.failures[before:]

    # ------------------------------------------------------------------ calling plugins
    @contextmanager
    def running(
        self,
        kind: str,
        name: str,
        action: str = "",
        *,
        passthrough: tuple[type[BaseException], ...] = (),
    ) -> Iterator[None]:
        """Run a call into a contribution; turn its exceptions into a PluginRuntimeError.

        ``Cancelled``, :class:`VendiscopeError` and the ``passthrough`` types (errors of the
        caller's own code running inside the call, e.g. a database error in the rows an
        exporter consumes) pass through. A ``ValueError`` (how a contribution rejects bad
        input) becomes a PluginRuntimeError with its message and the contribution named,
        not counted as a failure; any other exception is recorded in :attr:`failures`
        (stage ``"run"``) and re-raised as a PluginRuntimeError.
        """
        try:
            yield
        except (Cancelled, VendiscopeError, *passthrough):
            raise
        except ValueError as exc:
            contribution = self.get(kind, name)
            raise PluginRuntimeError(
                f"{kind} '{name}': {exc}", kind=kind, name=name, plugin=contribution.plugin
            ) from exc
        except Exception as exc:
            raise self._run_failed(self.get(kind, name), exc, action) from exc

    def guard_iter(self, kind: str, name: str, items: Iterable[T]) -> Iterator[T]:
        """``items`` (e.g. an importer's rows), with exceptions handled as in :meth:`running`."""
        iterator = iter(items)
        while True:
            with self.running(kind, name):
                try:
                    item = next(iterator)
                except StopIteration:
                    return
            yield item

    def check_result(self, kind: str, name: str, result: T, **expected: Any) -> T:
        """``result`` if it is well-formed for ``kind`` (see :func:`.runtime.result_problem`).

        ``expected`` holds ``rows``, ``dim`` or ``k``. A malformed result is recorded and
        raised as a PluginRuntimeError.
        """
        problem = result_problem(kind, result, **expected)
        if problem is not None:
            contribution = self.get(kind, name)
            message = f"{kind} '{name}' (plugin '{contribution.plugin}') {problem}"
            self._record_run_failure(contribution, message, "")
            raise PluginRuntimeError(message, kind=kind, name=name, plugin=contribution.plugin)
        return result

    def _run_failed(
        self, contribution: Contribution, exc: BaseException, action: str
    ) -> PluginRuntimeError:
        where = f" in {action}" if action else ""
        message = (
            f"{contribution.kind} '{contribution.name}' (plugin '{contribution.plugin}') "
            f"failed{where}: {type(exc).__name__}: {exc}"
        )
        self._record_run_failure(contribution, message, traceback.format_exc())
        return PluginRuntimeError(
            message, kind=contribution.kind, name=contribution.name, plugin=contribution.plugin
        )

    def _record_run_failure(self, contribution: Contribution, message: str, details: str) -> None:
        if self.failures and self.failures[-1].message == message:
            return  # the same failure again (e.g. per source of one score): keep one
        self._fail(
            contribution.plugin,
            message,
            contribution=contribution.name,
            kind=contribution.kind,
            details=details,
            stage="run",
        )

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
    """The process-wide registry of installed plugins and plugin files, discovered on first use.

    ``refresh=True`` discovers again (e.g. after a plugin file was added or edited).
    """
    global _DEFAULT
    if _DEFAULT is None or refresh:
        _DEFAULT = PluginRegistry.discover()
        runs.set_plugin_namer(lambda kind, name: _DEFAULT.get(kind, name).plugin)
    return _DEFAULT
