"""Discover plugins, import their contributions lazily, record every failure.

Plugins come from entry points (group ``vendiscope.plugins``; the built-ins first) and from
``.py`` files in the user's plugin folder (:mod:`vendiscope.core.plugin_host.userdir`). A plugin
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

Finding plugins and registering their manifests is :mod:`~vendiscope.core.plugin_host.discovery`
(the base class); what is recorded (failures, states) is
:mod:`~vendiscope.core.plugin_host.records`.
Both are re-exported here.
"""

from __future__ import annotations

import importlib
import inspect
import traceback
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from vendiscope.core.base.errors import PluginError, PluginRuntimeError, VendiscopeError
from vendiscope.core.base.jobs import Cancelled
from vendiscope.core.plugin_host import interfaces
from vendiscope.core.plugin_host.discovery import PluginDiscovery
from vendiscope.core.plugin_host.manifest import KINDS, Contribution
from vendiscope.core.plugin_host.records import (
    AVAILABLE,
    LOAD_FAILED,
    LOADED,
    RUN_FAILED,
    ContributionStatus,
    PluginFailure,
    PluginInfo,
)
from vendiscope.core.plugin_host.runtime import result_problem
from vendiscope.core.plugin_host.signatures import signature_problems
from vendiscope.core.store import runs

if TYPE_CHECKING:
    from vendiscope.core.plugin_host.params import ParamSpec

T = TypeVar("T")

BASE_CLASSES: dict[str, type] = {
    "importer": interfaces.Importer,
    "exporter": interfaces.Exporter,
    "embedder": interfaces.Embedder,
    "featurizer": interfaces.Featurizer,
    "metric": interfaces.Metric,
    "selector": interfaces.Selector,
    "view": interfaces.View,
    "generator": interfaces.Generator,
    "trainer": interfaces.Trainer,
    "signal": interfaces.Signal,
}


class PluginRegistry(PluginDiscovery):
    """All known contributions, by kind and name."""

    def __init__(self) -> None:
        super().__init__()
        self._loaded: dict[tuple[str, str], type] = {}
        self._broken: dict[tuple[str, str], str] = {}

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
        from vendiscope.core.plugin_host.params import describe_params

        return describe_params(self.load(kind, name))

    def coerce(
        self, kind: str, name: str, values: Mapping[str, Any], *, prefix: str = ""
    ) -> dict[str, Any]:
        """``values`` (strings from a command line or form) typed and checked for a contribution.

        Raises :class:`~vendiscope.core.plugin_host.params.ParamError` naming the parameter.
        """
        from vendiscope.core.plugin_host.params import coerce_params

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
                f"{kind} '{name}': {exc}",
                kind=kind,
                name=name,
                plugin=contribution.plugin,
                reason=str(exc),
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


__all__ = [
    "AVAILABLE",
    "BASE_CLASSES",
    "LOADED",
    "LOAD_FAILED",
    "RUN_FAILED",
    "ContributionStatus",
    "PluginFailure",
    "PluginInfo",
    "PluginRegistry",
    "default_registry",
]
