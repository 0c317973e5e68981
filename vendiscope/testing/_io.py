"""Checks of importers and exporters: reading a sample, writing rows, reading them back."""

from __future__ import annotations

import copy
import inspect
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from vendiscope.core.base.errors import VendiscopeError
from vendiscope.core.plugin_host.interfaces import BadRow, SourceInfo, SourceRow
from vendiscope.core.plugin_host.runtime import result_problem
from vendiscope.testing._subject import Subject


def _other(obj: Any) -> Any:
    return obj() if inspect.isclass(obj) else obj


def _read_all(importer: Any, path: Path, what: str) -> list[SourceRow | BadRow]:
    stream = importer.read(path)
    assert isinstance(stream, Iterator), (
        f"{what}.read returned {type(stream).__name__}; it must stream (a generator), "
        "not build a list of the whole source"
    )
    items = list(stream)
    for item in items:
        assert isinstance(item, (SourceRow, BadRow)), (
            f"{what}.read yielded {type(item).__name__}; expected SourceRow or BadRow"
        )
    return items


def _good_rows(items: list[SourceRow | BadRow], what: str) -> list[dict[str, Any]]:
    bad = [i for i in items if isinstance(i, BadRow)]
    assert not bad, f"{what}: a good sample gave bad rows, first: {bad[0]}"
    numbers = [i.number for i in items]
    assert all(isinstance(n, int) and n >= 1 for n in numbers), (
        f"{what}: row numbers must be 1-based ints, got {numbers[:5]}"
    )
    assert numbers == sorted(numbers) and len(set(numbers)) == len(numbers), (
        f"{what}: row numbers must increase, got {numbers[:10]}"
    )
    for item in items:
        assert isinstance(item.data, dict) and all(isinstance(k, str) for k in item.data), (
            f"{what}: row {item.number} is not a dict with string keys: {item.data!r}"
        )
    return [i.data for i in items]


# --------------------------------------------------------------------------- importers
def _sample(subject: Subject, folder: Path) -> tuple[Path, list[dict[str, Any]] | None]:
    sample = subject.opts.get("sample")
    if sample is not None:
        return Path(sample), subject.opts.get("expected")
    exporter = subject.opts.get("exporter")
    assert exporter is not None, (
        f"{subject.name}: give the importer checks a small sample file (sample=PATH, and "
        "expected=ROWS if you can), or the matching exporter (exporter=CLASS)"
    )
    writer = _other(exporter)
    rows = subject.rows()
    path = folder / f"sample{writer.suffix}"
    writer.write(iter(copy.deepcopy(rows)), path, schema=None)
    return path, rows


def check_importer_reads_sample(subject: Subject) -> None:
    """inspect() gives a SourceInfo; read() streams numbered rows (the expected ones)."""
    with tempfile.TemporaryDirectory() as tmp:
        path, expected = _sample(subject, Path(tmp))
        importer = subject.instance()
        info = importer.inspect(path)
        assert isinstance(info, SourceInfo), (
            f"{subject.name}.inspect returned {type(info).__name__}, not a SourceInfo"
        )
        rows = _good_rows(_read_all(importer, path, subject.name), subject.name)
        assert rows, f"{subject.name}: read {path.name} but found no rows"
        if expected is not None:
            assert rows == expected, (
                f"{subject.name}: read {rows[:3]}... from {path.name}; expected {expected[:3]}..."
            )


def check_importer_deterministic(subject: Subject) -> None:
    """Reading the same source twice gives the same rows."""
    with tempfile.TemporaryDirectory() as tmp:
        path, _ = _sample(subject, Path(tmp))
        importer = subject.instance()
        first = _read_all(importer, path, subject.name)
        assert _read_all(importer, path, subject.name) == first, (
            f"{subject.name}: reading {path.name} twice gave different rows"
        )


def _source_error(call: Any, what: str) -> bool:
    """True when ``call()`` raised a VendiscopeError with a message; False if it returned."""
    try:
        call()
    except VendiscopeError as exc:
        assert str(exc).strip(), f"{what}: raised {type(exc).__name__} without a message"
        return True
    except AssertionError:
        raise
    except Exception as exc:
        raise AssertionError(
            f"{what}: raised {type(exc).__name__} ({exc}); expected InputError naming the path"
        ) from exc
    return False


def check_importer_missing_source(subject: Subject) -> None:
    """A path that does not exist raises InputError (a VendiscopeError) with a message."""
    with tempfile.TemporaryDirectory() as tmp:
        path, _ = _sample(subject, Path(tmp))
        missing = Path(tmp) / f"missing-{path.name}"
        importer = subject.instance()
        raised = _source_error(lambda: importer.inspect(missing), f"{subject.name}.inspect")
        if not raised:
            raised = _source_error(lambda: list(importer.read(missing)), f"{subject.name}.read")
        assert raised, f"{subject.name}: reading a missing path raised no InputError"


def check_importer_empty_source(subject: Subject) -> None:
    """An empty file (or folder) raises InputError, or gives no rows — nothing else."""
    with tempfile.TemporaryDirectory() as tmp:
        path, _ = _sample(subject, Path(tmp))
        empty = Path(tmp) / f"empty-{path.name}"
        if path.is_dir():
            empty.mkdir()
        else:
            empty.write_bytes(b"")
        importer = subject.instance()
        what = f"{subject.name} on an empty {'folder' if path.is_dir() else 'file'}"
        rows: list[Any] = []

        def read() -> None:
            importer.inspect(empty)
            rows.extend(i for i in importer.read(empty) if isinstance(i, SourceRow))

        if not _source_error(read, what):
            assert not rows, f"{what}: gave {len(rows)} rows"


def check_importer_round_trip(subject: Subject) -> None:
    """With the matching exporter (exporter=...): rows written and read back are the same."""
    exporter = subject.opts.get("exporter")
    if exporter is None:
        return
    with tempfile.TemporaryDirectory() as tmp:
        path, _ = _sample(subject, Path(tmp))
        importer = subject.instance()
        schema = importer.inspect(path).schema
        rows = _good_rows(_read_all(importer, path, subject.name), subject.name)
        writer = _other(exporter)
        again = Path(tmp) / f"again{writer.suffix}"
        writer.write(iter(copy.deepcopy(rows)), again, schema=schema)
        back = _good_rows(_read_all(importer, again, subject.name), subject.name)
        assert back == rows, (
            f"{subject.name}: rows written by {type(writer).__name__} and read back differ: "
            f"{back[:2]} vs {rows[:2]}"
        )


IMPORTER = (
    check_importer_reads_sample,
    check_importer_deterministic,
    check_importer_missing_source,
    check_importer_empty_source,
    check_importer_round_trip,
)


# --------------------------------------------------------------------------- exporters
def _write(subject: Subject, rows: list[dict[str, Any]], folder: Path, name: str = "out") -> Any:
    exporter = subject.instance()
    destination = folder / f"{name}{exporter.suffix}"
    count = exporter.write(iter(rows), destination, schema=subject.opts.get("schema"))
    return destination, count


def check_exporter_writes(subject: Subject) -> None:
    """write() consumes an iterator of rows, creates the destination, returns the count."""
    exporter = subject.instance()
    assert isinstance(exporter.suffix, str), f"{subject.name}.suffix must be a string"
    assert isinstance(exporter.is_directory, bool), f"{subject.name}.is_directory must be a bool"
    rows = subject.rows()
    with tempfile.TemporaryDirectory() as tmp:
        destination, count = _write(subject, rows, Path(tmp))
        problem = result_problem("exporter", count, rows=len(rows))
        assert problem is None, f"{subject.name}.write {problem}"
        assert destination.exists(), f"{subject.name}.write did not create {destination.name}"
        assert destination.is_dir() == exporter.is_directory, (
            f"{subject.name}.write made a {'folder' if destination.is_dir() else 'file'} "
            f"but is_directory is {exporter.is_directory}"
        )


def check_exporter_no_mutation(subject: Subject) -> None:
    """The rows given to write() are left unchanged."""
    rows = subject.rows()
    before = copy.deepcopy(rows)
    with tempfile.TemporaryDirectory() as tmp:
        _write(subject, rows, Path(tmp))
    assert rows == before, f"{subject.name}.write modified the rows it was given"


def check_exporter_empty(subject: Subject) -> None:
    """No rows write an empty output and return 0, or raise ValueError/ExportError."""
    with tempfile.TemporaryDirectory() as tmp:
        try:
            _, count = _write(subject, [], Path(tmp))
        except (ValueError, VendiscopeError) as exc:
            assert str(exc).strip(), f"{subject.name}.write([]) raised without a message"
            return
        assert count == 0, f"{subject.name}.write([]) returned {count!r}; expected 0"


def check_exporter_round_trip(subject: Subject) -> None:
    """With the matching importer (importer=...): the written rows read back unchanged."""
    importer = subject.opts.get("importer")
    if importer is None:
        return
    rows = subject.rows()
    with tempfile.TemporaryDirectory() as tmp:
        destination, _ = _write(subject, copy.deepcopy(rows), Path(tmp))
        reader = _other(importer)
        back = _good_rows(_read_all(reader, destination, type(reader).__name__), subject.name)
        assert back == rows, (
            f"{subject.name}: wrote {rows[:2]}..., {type(reader).__name__} read back {back[:2]}..."
        )


EXPORTER = (
    check_exporter_writes,
    check_exporter_no_mutation,
    check_exporter_empty,
    check_exporter_round_trip,
)
