"""No module of ``vendiscope`` takes part in an import cycle: CLI, GUI, core and plugins.

The import graph is built with grimp (what import-linter uses) over the whole package, and
every edge counts:

* module-level imports;
* imports inside functions: a lazy import keeps start-up fast, but it is still a dependency,
  and a circle through one is as tangled as any other (and fails at run time as soon as the
  function runs while the other module is half-imported);
* imports under ``if TYPE_CHECKING:``: a type-only back-reference (a helper annotating its
  argument as the window that imports it) is a circle too. Break it the way
  ``gui/windows/file_commands.py`` does: a small ``Protocol`` of what the helper uses, in
  the helper's module.

A package's ``__init__`` importing its own submodules (``vendiscope.cli`` importing
``vendiscope.cli._commands``) is not a cycle: grimp draws no edge from a submodule to the
package above it, and Python imports the package first without needing anything from it.

A failure names each cycle as ``a -> b -> ... -> a``, shortest first.
"""

from __future__ import annotations

import itertools
from collections import deque

import grimp
import pytest


def _graph() -> grimp.ImportGraph:
    return grimp.build_graph("vendiscope", include_external_packages=False, cache_dir=None)


def strongly_connected(graph: grimp.ImportGraph) -> list[set[str]]:
    """The groups of modules that import each other in a circle (Tarjan, iterative)."""
    modules = sorted(graph.modules)
    edges = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []
    counter = 0
    for root in modules:
        if root in index:
            continue
        work = [(root, iter(edges[root]))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(edges.get(child, ()))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                group = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.add(member)
                    if member == node:
                        break
                if len(group) > 1 or node in edges.get(node, ()):
                    groups.append(group)
    return groups


def shortest_cycle(graph: grimp.ImportGraph, group: set[str]) -> list[str]:
    """One shortest circle through the group's first module, as a list of modules."""
    start = min(group)
    previous: dict[str, str] = {}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for child in sorted(graph.find_modules_directly_imported_by(node)):
            if child not in group:
                continue
            if child == start:
                path = [node]
                while path[-1] != start:
                    path.append(previous[path[-1]])
                return [*reversed(path), start]
            if child not in previous:
                previous[child] = node
                queue.append(child)
    return [start, start]


def _describe(graph: grimp.ImportGraph, group: set[str]) -> str:
    cycle = shortest_cycle(graph, group)
    lines = [" -> ".join(cycle)]
    for importer, imported in itertools.pairwise(cycle):
        details = graph.get_import_details(importer=importer, imported=imported)
        where = ", ".join(f"line {d['line_number']}: {d['line_contents']}" for d in details[:2])
        lines.append(f"    {importer} -> {imported} ({where})")
    if len(group) > len(cycle) - 1:
        lines.append(f"    (all {len(group)} modules of the circle: {', '.join(sorted(group))})")
    return "\n".join(lines)


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return _graph()


def test_no_module_imports_itself_in_a_circle(graph: grimp.ImportGraph) -> None:
    groups = list(strongly_connected(graph))
    groups.sort(key=lambda g: (len(g), min(g)))
    assert not groups, "import cycles:\n" + "\n".join(_describe(graph, g) for g in groups)


def test_the_finder_finds_a_cycle() -> None:
    """The detector itself, on a graph with a circle of three and one of two."""
    graph = grimp.ImportGraph()
    for importer, imported in [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d"), ("d", "e"),
                               ("e", "d"), ("f", "a")]:  # fmt: skip
        graph.add_import(importer=importer, imported=imported)
    groups = sorted(strongly_connected(graph), key=min)
    assert groups == [{"a", "b", "c"}, {"d", "e"}]
    assert shortest_cycle(graph, {"a", "b", "c"}) == ["a", "b", "c", "a"]
