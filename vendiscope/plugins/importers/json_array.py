"""JSON array importer: one JSON document holding a list of objects."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from vendiscope.core.errors import InputError, Location
from vendiscope.core.plugins.interfaces import BadRow, Importer, SourceInfo, SourceRow
from vendiscope.plugins.importers._common import check_text_file, strip_bom
from vendiscope.plugins.importers.jsonl import json_type


class JsonArrayImporter(Importer):
    """Read a ``.json`` file holding an array of objects.

    The top level may be the array itself, an object whose ``"data"`` value is the array,
    or an object with exactly one value that is a list of objects. Unlike the JSON Lines
    importer this one loads the whole file into memory (a JSON document cannot be parsed in
    pieces cheaply); use JSON Lines for sources larger than memory.

    Rows are numbered by their 1-based index in the array (unit ``"item"``). Progress is in
    bytes: ``position`` is an estimate proportional to the index, reaching the file size.
    """

    def inspect(self, path: Path) -> SourceInfo:
        """File size in bytes as the progress total; rows are counted in items."""
        path = Path(path)
        size = check_text_file(path, "utf-8")
        return SourceInfo(unit="item", total=size, progress_unit="B")

    def read(self, path: Path) -> Iterator[SourceRow | BadRow]:
        """Yield each element of the array; a non-object element is a :class:`BadRow`."""
        path = Path(path)
        size = check_text_file(path, "utf-8")
        items = _items(_load(path), path)
        count = len(items)
        for index, item in enumerate(items, start=1):
            position = size * index // count
            if isinstance(item, dict):
                yield SourceRow(number=index, data=item, position=position)
            else:
                yield BadRow(
                    number=index,
                    message=f"item {index}: expected a JSON object, got {json_type(item)}",
                    position=position,
                )


def _load(path: Path) -> Any:
    raw = strip_bom(path.read_bytes(), "utf-8")
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        pass
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        column = exc.start - raw.rfind(b"\n", 0, exc.start)
        raise InputError(
            f"invalid UTF-8 at byte {column} of line {line}", Location(path, line)
        ) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        hint = ""
        if exc.msg == "Extra data" and _first_line_is_object(text):
            hint = "; this looks like JSON Lines (one object per line): choose that format"
        raise InputError(
            f"malformed JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}{hint}",
            Location(path, exc.lineno),
        ) from None


def _first_line_is_object(text: str) -> bool:
    first = text.lstrip().split("\n", 1)[0]
    try:
        return isinstance(orjson.loads(first), dict)
    except orjson.JSONDecodeError:
        return False


def _items(document: Any, path: Path) -> list[Any]:
    """The array of rows inside ``document``, or an :class:`InputError` saying why not."""
    if isinstance(document, list):
        return document
    if not isinstance(document, dict):
        raise InputError(
            f"expected a JSON array of objects, got {json_type(document)}", Location(path)
        )
    if isinstance(document.get("data"), list):
        return document["data"]
    lists = [
        key
        for key, value in document.items()
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value)
    ]
    if len(lists) == 1:
        return document[lists[0]]
    if not lists:
        raise InputError(
            "expected a JSON array of objects, or an object holding one; this object "
            "holds no list of objects",
            Location(path),
        )
    names = ", ".join(f"'{key}'" for key in lists)
    raise InputError(
        f"the top-level object holds several lists of objects ({names}); "
        "cannot tell which one is the data",
        Location(path),
    )
