"""Plugins as single ``.py`` files in the user's plugin folder — the quick way to write one.

The folder is ``platformdirs.user_data_dir("vendiscope")/plugins``; the environment variable
``VENDISCOPE_PLUGIN_DIR`` overrides it (an empty value turns file plugins off). Each file
``NAME.py`` whose name does not start with ``_`` is a plugin. It is imported as the module
``vendiscope_user_plugins.NAME`` and must define a module-level ``manifest``; its contributions
name their classes with ``f"{__name__}:ClassName"``, which works both under that name and
when an author imports the file directly in a test::

    # ~/.local/share/vendiscope/plugins/norms.py
    from vendiscope.api import Contribution, Metric, MetricResult, PluginManifest

    class MeanNorm(Metric):
        def compute(self, vectors, *, quality=None): ...

    manifest = PluginManifest(
        name="norms",
        contributions=(Contribution("metric", "mean-norm", f"{__name__}:MeanNorm"),),
    )

Files whose names start with ``_`` are helpers the plugin files may import
(``from vendiscope_user_plugins._shared import ...``). Unlike a package, a file plugin is
executed when plugins are discovered — importing it runs its code with the user's rights, which
``vendiscope plugins`` and the GUI say — so keep heavy imports inside methods.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import os
import sys
from pathlib import Path

PACKAGE = "vendiscope_user_plugins"
ENV_VAR = "VENDISCOPE_PLUGIN_DIR"


def user_plugin_dir() -> Path | None:
    """The folder file plugins are read from, or ``None`` when turned off."""
    override = os.environ.get(ENV_VAR)
    if override is not None:
        return Path(override).expanduser() if override.strip() else None
    from platformdirs import user_data_dir

    return Path(user_data_dir("vendiscope")) / "plugins"


def plugin_files(folder: Path) -> list[Path]:
    """The plugin files of ``folder`` (``*.py`` not starting with ``_``), sorted by name."""
    if not folder.is_dir():
        return []
    return sorted(
        p for p in folder.glob("*.py") if p.is_file() and not p.name.startswith(("_", "."))
    )


def unsafe(path: Path) -> str | None:
    """Why ``path`` must not be loaded, as ssh refuses keys others can change; else None.

    Code in the plugin folder runs with the user's rights, so the folder and each file must
    be writable by no one else: not world-writable, and owned by the user (or root).
    """
    if os.name != "posix":
        return None
    try:
        found = path.stat()
    except OSError as exc:
        return f"{path}: cannot be checked ({exc.strerror})"
    if found.st_mode & 0o002:
        return (
            f"{path} is writable by every user, so anyone could put code there that "
            f"Vendiscope would run as you; fix it with `chmod o-w {path}`"
        )
    if found.st_uid not in (os.getuid(), 0):
        return (
            f"{path} belongs to another user (uid {found.st_uid}), who could change the code "
            "Vendiscope would run as you; keep plugins in a folder of your own"
        )
    return None


def module_name(path: Path) -> str:
    """The private module name a plugin file is imported under."""
    return f"{PACKAGE}.{path.stem}"


def mount(folder: Path) -> None:
    """Make ``folder`` the package ``vendiscope_user_plugins``; forget modules imported before.

    Called once per discovery, so an edited or new file is read afresh.
    """
    for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
        del sys.modules[name]
    spec = importlib.machinery.ModuleSpec(PACKAGE, None, is_package=True)
    package = importlib.util.module_from_spec(spec)
    package.__path__ = [str(folder)]
    package.__doc__ = (
        "Plugin files of the user's plugin folder (see vendiscope.core.plugin_host.userdir)."
    )
    sys.modules[PACKAGE] = package
    importlib.invalidate_caches()


def load_manifest(path: Path) -> object:
    """Import the plugin file ``path`` (after :func:`mount`) and return its ``manifest``.

    Raises whatever the file raises, ``ValueError`` for a file name that is not a Python
    identifier, and ``AttributeError`` when it defines no ``manifest``.
    """
    if not path.stem.isidentifier():
        raise ValueError(
            f"the file name '{path.name}' is not a Python identifier (use letters, digits, _)"
        )
    module = importlib.import_module(module_name(path))
    try:
        return module.manifest
    except AttributeError:
        raise AttributeError(
            f"{path.name} defines no module-level 'manifest' (a vendiscope PluginManifest)"
        ) from None


__all__ = [
    "ENV_VAR",
    "PACKAGE",
    "load_manifest",
    "module_name",
    "plugin_files",
    "unsafe",
    "user_plugin_dir",
]
