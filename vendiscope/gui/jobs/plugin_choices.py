"""The plugins of one kind a job's dialog offers: generators, trainers, selectors (Qt-free)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from vendiscope.core.plugin_host.registry import PluginRegistry


@dataclass(frozen=True)
class PluginChoice:
    name: str
    title: str
    description: str


def plugin_choices(registry: PluginRegistry, kind: str) -> list[PluginChoice]:
    """The plugins of ``kind`` the registry offers (none while the kind is unknown to it)."""
    from vendiscope.core.base.errors import VendiscopeError

    try:
        found = registry.contributions(kind)
    except VendiscopeError:
        return []
    return [PluginChoice(c.name, c.title or c.name, c.description or "") for c in found]
