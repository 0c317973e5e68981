"""The built-in plugins are examples a third-party author can follow: they import the public
API (``vendiscope.api``), each other, and pure algorithm modules of the core — never the store,
a job, the view data behind the API, SQLAlchemy, the GUI or the CLI. Views import the API only
(and the synthesis curve and the study scatter, pure chart functions they share with the
report and the app).
"""

from __future__ import annotations

import ast
from pathlib import Path

import vendiscope.plugins

PLUGINS = Path(vendiscope.plugins.__file__).parent

PURE_CORE = {
    # algorithms and helpers that read nothing from a project
    "vendiscope.core.base.project_files",
    "vendiscope.core.gradients.batches",  # the trainer's batches and response losses
    "vendiscope.core.gradients.dims",
    "vendiscope.core.gradients.features",
    "vendiscope.core.gradients.presets",  # the named gradient settings (paper, light)
    "vendiscope.core.gradients.memory",  # how many tokens a gradient batch may hold
    "vendiscope.core.gradients.proxy",
    "vendiscope.core.gradients.render",  # the trainer's chat rendering with a response mask
    "vendiscope.core.gradients.sketch",
    "vendiscope.core.metrics.resolution",
    "vendiscope.core.metrics.vendi",
    "vendiscope.core.metrics.vendi_records",
    "vendiscope.core.selection.dpp",
    "vendiscope.core.selection.facility",
    "vendiscope.core.selection.greedy_vendi",
    "vendiscope.core.selection.kcenter",
    "vendiscope.core.selection.prismatic",
    "vendiscope.core.selection.random_choice",
    "vendiscope.core.studies.chart",
    "vendiscope.core.synthesis.curve",
    "vendiscope.core.weights.bundled",
    "vendiscope.core.weights.loading",
}
VIEW_CORE = {
    # the charts a view shares with the report and the app: pure functions of a result
    "vendiscope.core.studies.chart",
    "vendiscope.core.synthesis.curve",
}
NEVER = ("sqlalchemy", "alembic", "vendiscope.core.store", "vendiscope.core.views",
         "vendiscope.gui", "vendiscope.cli", "PySide6")  # fmt: skip


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """Every module ``path`` imports (at any depth, TYPE_CHECKING included), with its line;
    ``from package import name`` counts as ``package.name`` when that is a module."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{alias.name}" for alias in node.names]
            submodules = [n for n in names if _is_module(n)]
            found += [(node.lineno, n) for n in submodules] or [(node.lineno, node.module)]
    return found


def _is_module(name: str) -> bool:
    if not name.startswith("vendiscope."):
        return False
    base = PLUGINS.parents[1]  # the folder holding the vendiscope package
    relative = Path(*name.split("."))
    return (base / relative.with_suffix(".py")).is_file() or (base / relative).is_dir()


def problems(folder: Path, allowed: set[str]) -> list[str]:
    """``FILE:LINE imports MODULE`` for every import under ``folder`` that is not allowed."""
    out = []
    for path in sorted(folder.rglob("*.py")):
        for line, module in sorted(imported_modules(path)):
            where = f"{path.relative_to(folder.parent)}:{line} imports {module}"
            never = any(module == n or module.startswith(n + ".") for n in NEVER)
            if never or (module.startswith("vendiscope") and not _allowed(module, allowed)):
                out.append(where)
    return out


def _allowed(module: str, allowed: set[str]) -> bool:
    if module in ("vendiscope", "vendiscope.api") or module in allowed:
        return True
    return module == "vendiscope.plugins" or module.startswith("vendiscope.plugins.")


def test_builtin_plugins_import_only_the_api_and_pure_core_modules() -> None:
    assert problems(PLUGINS, PURE_CORE) == []


def test_builtin_views_import_only_the_api() -> None:
    assert problems(PLUGINS / "views", VIEW_CORE) == []
    views = {p.stem for p in (PLUGINS / "views").glob("*.py")} - {"__init__", "_common"}
    assert len(views) == 9, views


def test_the_check_catches_what_it_forbids(tmp_path: Path) -> None:
    (tmp_path / "bad.py").write_text(
        "from vendiscope.core.store import vectors\n"
        "from vendiscope.core.views import data as viewdata\n"
        "from vendiscope.core.plugins.interfaces import View\n"
        "def f():\n    from vendiscope.core.gaps.jobs import cluster_labels\n"
        "    import sqlalchemy\n",
        encoding="utf-8",
    )
    found = [p.split(" imports ")[1] for p in problems(tmp_path, PURE_CORE)]
    assert found == [
        "vendiscope.core.store.vectors",
        "vendiscope.core.views.data",
        "vendiscope.core.plugins.interfaces",
        "vendiscope.core.gaps.jobs",
        "sqlalchemy",
    ]
