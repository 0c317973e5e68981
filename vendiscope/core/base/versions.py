"""Library versions: recorded with every run (so an audit can be reproduced) and by ``doctor``."""

from __future__ import annotations

import platform
import re
from importlib.metadata import PackageNotFoundError, requires, version

from vendiscope import __version__

EXTRAS_SHOWN = ("gpu", "ray")
"""Optional extras whose packages ``doctor`` reports too."""


def installed_version(name: str) -> str | None:
    """The installed version of distribution ``name``, or None."""
    try:
        return version(name)
    except PackageNotFoundError:
        return None


def library_versions(*packages: str) -> dict[str, str]:
    """Vendiscope's and Python's versions, numpy's, and those of ``packages``."""
    found = {"vendiscope": __version__, "python": platform.python_version()}
    for name in ("numpy", *packages):
        found[name] = installed_version(name) or "not installed"
    return found


def declared_packages() -> list[str]:
    """The distributions Vendiscope depends on (and its GPU and Ray extras), as declared."""
    names: list[str] = []
    for requirement in requires("vendiscope") or []:
        name, _, marker = requirement.partition(";")
        extra = re.search(r"extra\s*==\s*['\"]([\w-]+)['\"]", marker)
        if extra and extra.group(1) not in EXTRAS_SHOWN:
            continue
        bare = re.split(r"[\s\[<>=!~;]", name.strip(), maxsplit=1)[0]
        if bare and bare not in names:
            names.append(bare)
    return names
