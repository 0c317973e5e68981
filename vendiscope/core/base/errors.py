"""Errors that reach a user. Each one carries enough context to act on."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


class VendiscopeError(Exception):
    """Base class of every error Vendiscope reports to a user (no traceback needed)."""


class ProjectError(VendiscopeError):
    """A project file cannot be opened, created or migrated."""


class PluginError(VendiscopeError):
    """A plugin failed to load, is incompatible, or is not installed."""


class PluginRuntimeError(PluginError):
    """A plugin raised, or returned something malformed, while a job was calling it.

    The message names the contribution and its plugin, e.g. ``"metric 'coherence' (plugin
    'vendiscope-coherence') failed: ZeroDivisionError: division by zero"``; the original
    exception is the ``__cause__``. Jobs raise it through
    :meth:`vendiscope.core.plugin_host.PluginRegistry.running`, which also records the failure.
    ``reason`` is None for a failure; when the contribution refused its input with a
    ``ValueError`` (not a failure), it is that error's message, which ``message`` quotes.
    """

    def __init__(
        self,
        message: str,
        *,
        kind: str = "",
        name: str = "",
        plugin: str = "",
        reason: str | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.name = name
        self.plugin = plugin
        self.reason = reason


class ExportError(VendiscopeError):
    """An export could not be written (destination exists, unknown subset, ...)."""


@dataclass(frozen=True)
class Location:
    """Where in an input a problem was found: file, 1-based line or row, field."""

    file: str | Path
    line: int | None = None
    field: str | None = None
    unit: str = "line"

    def __str__(self) -> str:
        parts = [str(self.file)]
        if self.line is not None:
            parts.append(f"{self.unit} {self.line}")
        if self.field is not None:
            parts.append(f"field '{self.field}'")
        return ", ".join(parts)


class InputError(VendiscopeError):
    """Bad input data: the message names the file, the line or row, and the field."""

    def __init__(self, message: str, location: Location | None = None) -> None:
        self.message = message
        self.location = location
        super().__init__(f"{location}: {message}" if location is not None else message)
