"""The core never imports the built-in plugins (it names views and lets the registry load
them), and the report reads its data through public functions, never through SQL.

An AST walk over the source, so function-level (lazy) imports count too."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import vendiscope

PACKAGE = Path(vendiscope.__file__).parent
CORE = PACKAGE / "core"


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """``(line, module)`` for every import statement of ``path``, relative ones resolved."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    package = parts[:-1]  # the module's package, for both ``x/y.py`` and ``x/__init__.py``
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            found.append((node.lineno, module))
            found += [(node.lineno, f"{module}.{alias.name}") for alias in node.names]
    return found


def offending(root: Path, forbidden: str) -> list[str]:
    return [
        f"{path.relative_to(PACKAGE.parent)}:{line}: {module}"
        for path in sorted(root.rglob("*.py"))
        for line, module in imported_modules(path)
        if module == forbidden or module.startswith(f"{forbidden}.")
    ]


@pytest.mark.slow
def test_the_core_never_imports_the_built_in_plugins() -> None:
    assert len(list(CORE.rglob("*.py"))) > 50  # the walk sees the whole core
    assert offending(CORE, "vendiscope.plugins") == []


def test_the_report_never_imports_sqlalchemy() -> None:
    assert offending(CORE / "report", "sqlalchemy") == []


def test_the_walk_sees_imports_inside_functions() -> None:
    found = {name for _, name in imported_modules(CORE / "report" / "charts.py")}
    assert "vendiscope.core.view_data.build.build_view" in found  # imported inside a function
