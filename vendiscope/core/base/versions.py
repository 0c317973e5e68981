"""Library versions recorded with every run, so an audit can be reproduced."""

from __future__ import annotations

import platform
from importlib.metadata import PackageNotFoundError, version

from vendiscope import __version__

CORE_PACKAGES = ("sqlalchemy", "numpy")


def library_versions(*packages: str) -> dict[str, str]:
    found = {"vendiscope": __version__, "python": platform.python_version()}
    for name in (*CORE_PACKAGES, *packages):
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            found[name] = "not installed"
    return found
