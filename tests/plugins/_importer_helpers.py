"""Small helpers shared by the importer tests."""

from __future__ import annotations

from pathlib import Path

from vendiscope.core.plugin_host import BadRow, Importer, SourceRow


def read_all(importer: Importer, path: Path) -> list[SourceRow | BadRow]:
    """Every item an importer yields for ``path``."""
    return list(importer.read(path))


def good(items: list[SourceRow | BadRow]) -> list[SourceRow]:
    return [item for item in items if isinstance(item, SourceRow)]


def bad(items: list[SourceRow | BadRow]) -> list[BadRow]:
    return [item for item in items if isinstance(item, BadRow)]


def data(items: list[SourceRow | BadRow]) -> list[dict]:
    """The data of the good rows, asserting there was no bad one."""
    assert bad(items) == [], bad(items)
    return [item.data for item in items]


def numbers(items: list[SourceRow | BadRow]) -> list[int | None]:
    return [item.number for item in items]
