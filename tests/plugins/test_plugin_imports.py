"""The built-in plugins are examples a third-party author can copy line for line: they import
the public API (``vendiscope.api``), each other and libraries — never the core, the GUI, the
CLI or the Python API behind ``vendiscope.open``.

The rule is stated once, as the import-linter contract on ``vendiscope.plugins`` in
``pyproject.toml`` (``lint-imports`` checks it). This test reads that contract and applies it
file by file, so a plain pytest run names each offending ``FILE:LINE`` too — imports inside
functions and under ``TYPE_CHECKING`` included.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import vendiscope.plugins

tomllib = pytest.importorskip("tomllib")  # Python 3.11+

PLUGINS = Path(vendiscope.plugins.__file__).parent
PYPROJECT = PLUGINS.parents[1] / "pyproject.toml"


def forbidden() -> tuple[str, ...]:
    """``forbidden_modules`` of the import-linter contract whose source is the plugins."""
    config = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    (rule,) = [c for c in contracts if c.get("source_modules") == ["vendiscope.plugins"]]
    assert rule["type"] == "forbidden"
    return tuple(rule["forbidden_modules"])


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """Every module ``path`` imports (at any depth, TYPE_CHECKING included), with its line;
    ``from package import name`` also counts as ``package.name`` (``name`` may be a module)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
    return found


def problems(folder: Path, never: tuple[str, ...]) -> list[str]:
    """``FILE:LINE imports MODULE`` for every import under ``folder`` the rule forbids."""
    out = []
    for path in sorted(folder.rglob("*.py")):
        for line, module in sorted(imported_modules(path)):
            if any(module == n or module.startswith(n + ".") for n in never):
                out.append(f"{path.relative_to(folder.parent)}:{line} imports {module}")
    return list(dict.fromkeys(out))


def test_builtin_plugins_import_only_the_api() -> None:
    assert "vendiscope.core" in forbidden()
    assert problems(PLUGINS, forbidden()) == []


def test_the_check_catches_what_it_forbids(tmp_path: Path) -> None:
    (tmp_path / "bad.py").write_text(
        "from vendiscope.core.store import vectors\n"
        "from vendiscope import gui\n"
        "from vendiscope.api import View, k_center\n"
        "from vendiscope.plugins.views._common import chart\n"
        "def f():\n    from vendiscope.core.selection.algorithms.kcenter import k_center\n"
        "    import PySide6.QtCore\n",
        encoding="utf-8",
    )
    found = [p.split(" imports ")[1] for p in problems(tmp_path, forbidden())]
    assert found == [
        "vendiscope.core.store",
        "vendiscope.core.store.vectors",
        "vendiscope.gui",
        "vendiscope.core.selection.algorithms.kcenter",
        "vendiscope.core.selection.algorithms.kcenter.k_center",
        "PySide6.QtCore",
    ]
