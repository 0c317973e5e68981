"""The Vendiscope engine: storage, jobs, plugins. Never imports Qt.

Usable from scripts, notebooks, the CLI and distributed workers alike.
"""

from vendiscope.core.base.errors import (
    InputError,
    PluginError,
    ProjectError,
    VendiscopeError,
)
from vendiscope.core.base.jobs import Cancelled, CancelToken, NullProgress, Progress

__all__ = [
    "CancelToken",
    "Cancelled",
    "InputError",
    "NullProgress",
    "PluginError",
    "Progress",
    "ProjectError",
    "VendiscopeError",
]
