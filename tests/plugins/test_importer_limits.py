"""Inputs are bounded: every built-in importer reads within max_row_bytes, max_field_bytes and
max_depth, reports what breaks them as a bad row naming the file, row and field, and treats a
NUL byte in text, damaged data and deep nesting the same way in every format."""

from __future__ import annotations

import csv
import gzip
import json
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import orjson
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.plugins._importer_helpers import bad, good, numbers, read_all
from vendiscope.core.base.errors import InputError
from vendiscope.core.io.importing import import_dataset
from vendiscope.core.plugin_host import BadRow, SourceRow, default_registry
from vendiscope.core.plugin_host.params import ParamError, coerce_params, describe_params
from vendiscope.plugins.importers import limits
from vendiscope.plugins.importers.csv import CsvImporter
from vendiscope.plugins.importers.hf_disk import HFDiskImporter
from vendiscope.plugins.importers.json_array import JsonArrayImporter
from vendiscope.plugins.importers.jsonl import JsonlImporter
from vendiscope.plugins.importers.parquet import ParquetImporter
from vendiscope.plugins.importers.txt_folder import TxtFolderImporter

MiB = 1024 * 1024
LIMIT = 1 * MiB  # the limit the tests set: small, so that inputs stay small
HUGE = 10 * MiB  # a line ten times the limit
ROW_LIMITED = [JsonlImporter, JsonArrayImporter, CsvImporter]
FIELD_LIMITED = [*ROW_LIMITED, ParquetImporter, HFDiskImporter, TxtFolderImporter]
DEPTH_LIMITED = [JsonlImporter, JsonArrayImporter, ParquetImporter, HFDiskImporter]


def peak_bytes(read: Callable[[], object]) -> int:
    """The peak of Python allocations while ``read()`` runs."""
    tracemalloc.start()
    try:
        read()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def deep_value(depth: int) -> str:
    """A JSON list nested ``depth`` levels deep, written without recursion."""
    return "[" * depth + "]" * depth


# --------------------------------------------------------------------------- the parameters
@pytest.mark.parametrize("cls", FIELD_LIMITED)
def test_every_importer_exposes_its_limits_as_parameters(cls: type) -> None:
    specs = {spec.name: spec for spec in describe_params(cls)}
    expected = {"max_field_bytes": limits.MAX_FIELD_BYTES}
    if cls in ROW_LIMITED:
        expected["max_row_bytes"] = limits.MAX_ROW_BYTES
    if cls in DEPTH_LIMITED:
        expected["max_depth"] = limits.MAX_DEPTH
    assert {name: specs[name].default for name in expected} == expected
    assert all(specs[name].help for name in expected)
    typed = coerce_params(cls, {name: "12345" for name in expected if name != "max_depth"})
    assert set(typed.values()) == {12345}


def test_max_depth_cannot_pass_what_can_be_stored() -> None:
    ceiling = str(limits.DEPTH_CEILING)
    assert coerce_params(JsonlImporter, {"max_depth": ceiling}) == {"max_depth": 200}
    with pytest.raises(ParamError, match="max_depth: expected an integer >= 1 and <= 200"):
        coerce_params(JsonlImporter, {"max_depth": str(limits.DEPTH_CEILING + 1)})
    with pytest.raises(ParamError, match="max_row_bytes"):
        coerce_params(CsvImporter, {"max_row_bytes": "0"})


# --------------------------------------------------------------------------- long rows
def test_huge_gzip_line_is_a_bad_row_read_in_bounded_memory(tmp_path: Path) -> None:
    path = tmp_path / "huge.jsonl.gz"
    with gzip.open(path, "wb", compresslevel=1) as handle:
        handle.write(b'{"text": "' + b"a" * HUGE + b'"}\n{"text": "after"}\n')
    assert path.stat().st_size < HUGE // 20
    importer = JsonlImporter(max_row_bytes=LIMIT)
    items: list[SourceRow | BadRow] = []
    peak = peak_bytes(lambda: items.extend(importer.read(path)))
    assert numbers(items) == [1, 2]
    first, second = items
    assert isinstance(first, BadRow)
    assert first.message == (
        "the line is longer than the limit of 1,048,576 bytes (importer option max_row_bytes)"
    )
    assert isinstance(second, SourceRow) and second.data == {"text": "after"}
    assert peak < 4 * LIMIT  # the line is never held: at most the limit, and a piece


def test_long_plain_lines_are_stepped_over_in_step(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    long_line = orjson.dumps({"text": "b" * (LIMIT + 10)})
    path.write_bytes(b'{"n": 1}\n' + long_line + b'\n{"n": 3}\n' + long_line)
    items = read_all(JsonlImporter(max_row_bytes=LIMIT), path)
    assert numbers(items) == [1, 2, 3, 4]
    assert [type(item).__name__ for item in items] == ["SourceRow", "BadRow", "SourceRow", "BadRow"]
    assert items[2].data == {"n": 3}
    assert items[2].position == 9 + len(long_line) + 1 + 9


def test_a_line_at_the_limit_is_read(tmp_path: Path) -> None:
    line = orjson.dumps({"text": "c" * 100})
    path = tmp_path / "a.jsonl"
    path.write_bytes(line + b"\n" + line + b"x\n")
    items = read_all(JsonlImporter(max_row_bytes=len(line)), path)
    assert isinstance(items[0], SourceRow) and isinstance(items[1], BadRow)


@pytest.mark.slow
def test_long_json_item_is_a_bad_row_in_bounded_memory(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_bytes(b'[{"n": 1},\n {"text": "' + b"x" * HUGE + b'", "n": 2},\n {"n": 3}, "four"]')
    items: list[SourceRow | BadRow] = []
    peak = peak_bytes(lambda: items.extend(JsonArrayImporter(max_row_bytes=LIMIT).read(path)))
    assert numbers(items) == [1, 2, 3, 4]
    assert [item.data for item in good(items)] == [{"n": 1}, {"n": 3}]
    long_item, four = bad(items)
    assert long_item.message.startswith(f"the item is {HUGE + 20:,} bytes long, over the limit")
    assert four.message == "item 4: expected a JSON object, got string"
    assert items[-1].position == path.stat().st_size
    assert peak < 4 * LIMIT


@pytest.mark.slow
def test_long_csv_row_spanning_quoted_lines_is_stepped_over(tmp_path: Path) -> None:
    path = tmp_path / "a.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "text"])
        writer.writerow(["1", "short"])
        line = 'a "quoted" line, padded to a hundred bytes '.ljust(99, ".") + "\n"
        writer.writerow(["2", line * 100_000])  # 10 MiB over 100k lines
        writer.writerow(["3", "after"])
    items: list[SourceRow | BadRow] = []
    peak = peak_bytes(lambda: items.extend(CsvImporter(max_row_bytes=LIMIT).read(path)))
    assert numbers(items) == [2, 3, 100_004]
    assert numbers(read_all(CsvImporter(), path)) == [2, 3, 100_004]  # in step, as unlimited
    assert [item.data for item in good(items)] == [
        {"id": "1", "text": "short"},
        {"id": "3", "text": "after"},
    ]
    assert "the row is longer than the limit of 1,048,576 bytes" in bad(items)[0].message
    assert peak < 6 * LIMIT  # the csv module holds a field as 4-byte characters: 4 x LIMIT


def test_long_csv_header_is_an_input_error(tmp_path: Path) -> None:
    path = tmp_path / "a.csv"
    path.write_text("a" * 2000 + ",b\n1,2\n")
    with pytest.raises(InputError, match="header row is not readable: the row is longer") as caught:
        list(CsvImporter(max_row_bytes=1000).read(path))
    assert caught.value.location.line == 1


# --------------------------------------------------------------------------- long fields
def _long_field_sources(tmp_path: Path, cls: type) -> Path:
    long_text = "é" * (LIMIT // 2 + 1)  # within LIMIT characters, over LIMIT bytes of UTF-8
    rows = [{"id": "1", "text": "ok"}, {"id": "2", "text": long_text}, {"id": "3", "text": "ok"}]
    if cls is JsonlImporter:
        path = tmp_path / "a.jsonl"
        path.write_bytes(b"".join(orjson.dumps(row) + b"\n" for row in rows))
    elif cls is JsonArrayImporter:
        path = tmp_path / "a.json"
        path.write_bytes(orjson.dumps(rows))
    elif cls is CsvImporter:
        path = tmp_path / "a.csv"
        with path.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, ["id", "text"])
            writer.writeheader()
            writer.writerows(rows)
    elif cls is ParquetImporter:
        path = tmp_path / "a.parquet"
        pq.write_table(pa.Table.from_pylist(rows), path, row_group_size=2)
    elif cls is HFDiskImporter:
        import datasets

        path = tmp_path / "ds"
        datasets.Dataset.from_list(rows).save_to_disk(str(path))
    else:
        path = tmp_path / "texts"
        path.mkdir()
        for row in rows:
            (path / f"{row['id']}.txt").write_text(row["text"], encoding="utf-8")
    return path


@pytest.mark.parametrize("cls", FIELD_LIMITED)
def test_a_field_over_max_field_bytes_is_a_bad_row_naming_it(tmp_path: Path, cls: type) -> None:
    path = _long_field_sources(tmp_path, cls)
    params = {"max_row_bytes": 4 * LIMIT} if cls in ROW_LIMITED else {}
    items = read_all(cls(max_field_bytes=LIMIT, **params), path)
    assert len(good(items)) == 2
    (long,) = bad(items)
    assert long.number == (3 if cls is CsvImporter else 2)
    assert long.field == "text"
    assert f"{LIMIT + 2:,} bytes long, over the limit of 1,048,576 bytes" in long.message
    assert "max_field_bytes" in long.message
    assert len(good(read_all(cls(), path))) == 3  # the default limit lets it through


def test_a_field_deep_in_a_row_is_named_by_its_path(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_bytes(orjson.dumps({"meta": {"turns": ["x", "y" * (LIMIT + 1)]}}) + b"\n")
    (item,) = read_all(JsonlImporter(max_field_bytes=LIMIT), path)
    assert isinstance(item, BadRow) and item.field == "meta.turns[1]"


# --------------------------------------------------------------------------- the import job
def test_import_stops_at_a_long_line_naming_file_and_line(project, tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    path.write_bytes(b'{"text": "a"}\n' + orjson.dumps({"text": "b" * (2 * LIMIT)}) + b"\n")
    with pytest.raises(InputError, match=r"d\.jsonl, line 2: the line is longer than the limit"):
        import_dataset(project, path, importer_params={"max_row_bytes": LIMIT})
    assert project.datasets() == []


def test_skip_bad_skips_and_reports_the_long_line(project, tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl.gz"
    path.write_bytes(
        gzip.compress(b'{"text": "a"}\n{"text": "' + b"b" * HUGE + b'"}\n{"text": "c"}\n', 1)
    )
    report = tmp_path / "bad.jsonl"
    result = import_dataset(
        project,
        path,
        importer_params={"max_row_bytes": LIMIT},
        skip_bad=True,
        bad_report=report,
    )
    assert result.rows == 2
    assert [r.text for r in project.records("d", 0, 5)] == ["a", "c"]
    (reported,) = [orjson.loads(line) for line in report.read_bytes().splitlines()]
    assert reported["line"] == 2 and "max_row_bytes" in reported["error"]


# --------------------------------------------------------------------------- deep nesting
@pytest.mark.parametrize("depth", [limits.MAX_DEPTH + 1, 300, 1024, 5000])
def test_deep_jsonl_rows_are_bad_rows(tmp_path: Path, depth: int) -> None:
    path = tmp_path / "deep.jsonl"
    deep = '{"text": "deep", "x": ' + deep_value(depth - 1) + "}"
    path.write_text('{"text": "a", "x": ' + deep_value(limits.MAX_DEPTH - 1) + "}\n" + deep + "\n")
    items = read_all(JsonlImporter(), path)
    assert isinstance(items[0], SourceRow)  # exactly at the limit
    assert isinstance(items[1], BadRow)
    assert (items[1].number, items[1].field) == (2, "x")
    assert items[1].message == "nested deeper than 64 levels (importer option max_depth)"


def test_deep_rows_are_skipped_by_the_import(project, tmp_path: Path) -> None:
    path = tmp_path / "deep.jsonl"
    path.write_text('{"text": "a"}\n{"text": "b", "x": ' + deep_value(300) + '}\n{"text": "c"}\n')
    with pytest.raises(InputError, match=r"deep\.jsonl, line 2, field 'x': nested deeper"):
        import_dataset(project, path)
    result = import_dataset(project, path, skip_bad=True, bad_report=tmp_path / "bad.jsonl")
    assert result.rows == 2 and [bad.number for bad in result.skipped] == [2]


def test_a_json_array_nested_100k_deep_is_a_bad_row(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text('[{"text": "a"}, {"text": "b", "x": ' + deep_value(100_000) + "}]")
    items = read_all(JsonArrayImporter(), path)
    assert numbers(items) == [1, 2]
    assert (items[1].field, items[1].message) == ("x", limits.depth_message(64))


def test_the_whole_json_document_nested_deep_is_a_bad_row(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" + deep_value(100_000) + "]")
    (item,) = read_all(JsonArrayImporter(), path)
    assert isinstance(item, BadRow) and item.number == 1


@pytest.mark.parametrize("cls", [ParquetImporter, HFDiskImporter])
def test_deep_arrow_rows_are_bad_rows(tmp_path: Path, cls: type) -> None:
    nested: pa.DataType = pa.string()
    for _ in range(5):
        nested = pa.list_(nested)
    rows = [{"x": None, "t": "shallow"}, {"x": [[[[["deep"]]]]], "t": "deep"}]
    table = pa.Table.from_pylist(rows, schema=pa.schema([("x", nested), ("t", pa.string())]))
    if cls is ParquetImporter:
        path = tmp_path / "a.parquet"
        pq.write_table(table, path)
    else:
        import datasets

        path = tmp_path / "ds"
        datasets.Dataset(table).save_to_disk(str(path))
    items = read_all(cls(max_depth=4), path)
    assert isinstance(items[0], SourceRow)
    assert (items[1].number, items[1].field) == (2, "x")
    assert len(good(read_all(cls(max_depth=6), path))) == 2


# --------------------------------------------------------------------------- damaged data
def test_a_corrupt_parquet_page_names_file_row_and_row_group(tmp_path: Path) -> None:
    path = tmp_path / "a.parquet"
    table = pa.table({"text": [f"row {i} " + "lorem ipsum " * 20 for i in range(3000)]})
    pq.write_table(table, path, compression="snappy", row_group_size=1000)
    column = pq.ParquetFile(path).metadata.row_group(1).column(0)
    start = column.dictionary_page_offset or column.data_page_offset
    raw = bytearray(path.read_bytes())
    middle = start + column.total_compressed_size // 2
    raw[middle : middle + 64] = b"\xff" * 64
    path.write_bytes(bytes(raw))
    items: list[SourceRow | BadRow] = []
    with pytest.raises(InputError, match="damaged in row group 2 of 3") as caught:
        items.extend(ParquetImporter().read(path))
    assert len(items) == 1000
    assert caught.value.location == type(caught.value.location)(path, 1001, unit="row")
    assert str(caught.value).startswith(f"{path}, row 1001: ")


def test_a_corrupt_parquet_file_stops_the_import_with_its_name(project, tmp_path: Path) -> None:
    path = tmp_path / "a.parquet"
    pq.write_table(pa.table({"text": ["lorem ipsum " * 20] * 50}), path, compression="snappy")
    column = pq.ParquetFile(path).metadata.row_group(0).column(0)
    raw = bytearray(path.read_bytes())
    start = column.data_page_offset + 20
    raw[start : start + 32] = b"\xff" * 32
    path.write_bytes(bytes(raw))
    with pytest.raises(InputError, match=r"a\.parquet, row 1: the Parquet data is damaged"):
        import_dataset(project, path, skip_bad=True)


# --------------------------------------------------------------------------- NUL bytes
PAD_ROWS = 1000  # enough rows that the NUL comes after the first 8 KiB the sniffer reads


def test_a_nul_byte_in_a_csv_field_after_8_kib_is_a_bad_row(project, tmp_path: Path) -> None:
    path = tmp_path / "nul.csv"
    pad = "".join(f"{i},hello world {i}\n" for i in range(PAD_ROWS))
    path.write_bytes(f"id,text\n{pad}".encode() + b"x,bad\x00value\ny,fine\n")
    assert path.read_bytes().index(b"\x00") > 8192
    items = read_all(CsvImporter(), path)
    (nul,) = bad(items)
    assert (nul.number, nul.field) == (PAD_ROWS + 2, "text")
    assert nul.message == limits.NUL_MESSAGE
    assert items[-1].data == {"id": "y", "text": "fine"}
    with pytest.raises(InputError, match=rf"nul\.csv, line {PAD_ROWS + 2}, field 'text': .*NUL"):
        import_dataset(project, path)


def test_a_nul_byte_in_a_jsonl_value_is_the_same_bad_row(tmp_path: Path) -> None:
    path = tmp_path / "nul.jsonl"
    pad = b"".join(orjson.dumps({"text": f"hello world {i}"}) + b"\n" for i in range(PAD_ROWS))
    path.write_bytes(pad + b'{"text": "ok", "meta": {"q": "bad\x00value"}}\n{"text": "fine"}\n')
    items = read_all(JsonlImporter(), path)
    (nul,) = bad(items)
    assert (nul.number, nul.field, nul.message) == (PAD_ROWS + 1, "meta.q", limits.NUL_MESSAGE)
    assert items[-1].data == {"text": "fine"}


def test_a_nul_byte_in_a_json_item_is_a_bad_row(tmp_path: Path) -> None:
    path = tmp_path / "nul.json"
    pad = b"".join(orjson.dumps({"text": f"hello world {i}"}) + b"," for i in range(PAD_ROWS))
    path.write_bytes(b"[" + pad + b'{"text": "bad\x00"}, {"text": "fine"}]')
    items = read_all(JsonArrayImporter(), path)
    (nul,) = bad(items)
    assert (nul.number, nul.field, nul.message) == (PAD_ROWS + 1, "text", limits.NUL_MESSAGE)
    assert items[-1].data == {"text": "fine"}


def test_escaped_nul_in_json_is_text_and_round_trips(tmp_path: Path) -> None:
    path = tmp_path / "escaped.jsonl"
    path.write_bytes(orjson.dumps({"text": "a\x00b"}) + b"\n")
    assert b"\\u0000" in path.read_bytes()
    assert [item.data for item in read_all(JsonlImporter(), path)] == [{"text": "a\x00b"}]


def test_a_nul_byte_in_a_text_file_is_a_bad_row(tmp_path: Path) -> None:
    root = tmp_path / "texts"
    root.mkdir()
    (root / "a.txt").write_bytes(b"x" * 10_000 + b"\x00")
    (root / "b.txt").write_text("fine")
    items = read_all(TxtFolderImporter(), root)
    assert (items[0].number, items[0].field) == (1, "text")
    assert items[1].data == {"path": "b.txt", "text": "fine"}


# --------------------------------------------------------------------------- registry and CLI
def test_the_limits_reach_the_importer_through_the_registry(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_bytes(json.dumps({"text": "x" * 200}).encode() + b"\n")
    importer = default_registry().create("importer", "jsonl", max_row_bytes=100)
    (item,) = read_all(importer, path)
    assert isinstance(item, BadRow)


def test_param_sets_a_limit_on_the_command_line(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from vendiscope.cli._app import app

    path = tmp_path / "d.jsonl"
    path.write_bytes(b'{"text": "a"}\n' + orjson.dumps({"text": "b" * 500}) + b"\n")
    project = tmp_path / "p.vscope"
    result = CliRunner().invoke(
        app, ["import", str(project), str(path), "--param", "max_row_bytes=100"]
    )
    assert result.exit_code == 1
    assert "d.jsonl, line 2: the line is longer than the limit of 100 bytes" in result.output
    result = CliRunner().invoke(
        app, ["import", str(project), str(path), "--param", "max_row_bytes=100", "--skip-bad"]
    )
    assert result.exit_code == 0, result.output
    assert "imported 1 records" in result.output
