"""The built-in importers through the registry, the shared source checks, JSON Lines and JSON."""

from __future__ import annotations

import gzip
import json
import tempfile
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.plugins._importer_helpers import bad, data, numbers, read_all
from vendiscope.core.base.errors import InputError
from vendiscope.core.plugin_host import BadRow, Importer, SourceRow, default_registry
from vendiscope.plugins.importers.csv import CsvImporter
from vendiscope.plugins.importers.hf_disk import HFDiskImporter
from vendiscope.plugins.importers.json_array import JsonArrayImporter
from vendiscope.plugins.importers.jsonl import JsonlImporter
from vendiscope.plugins.importers.parquet import ParquetImporter
from vendiscope.plugins.importers.txt_folder import TxtFolderImporter

BIG = 50 * 1024 * 1024

FILE_IMPORTERS = [JsonlImporter, JsonArrayImporter, CsvImporter, ParquetImporter]
ALL_IMPORTERS = [*FILE_IMPORTERS, HFDiskImporter, TxtFolderImporter]


def write_jsonl(path: Path, rows: list[object]) -> Path:
    path.write_bytes(b"".join(orjson.dumps(row) + b"\n" for row in rows))
    return path


# --------------------------------------------------------------------------- registry
@pytest.mark.parametrize(
    ("name", "cls"),
    [
        ("jsonl", JsonlImporter),
        ("json", JsonArrayImporter),
        ("csv", CsvImporter),
        ("parquet", ParquetImporter),
        ("hf-disk", HFDiskImporter),
        ("txt-folder", TxtFolderImporter),
    ],
)
def test_registry_creates_each_builtin_importer(name: str, cls: type) -> None:
    importer = default_registry().create("importer", name)
    assert type(importer) is cls
    assert isinstance(importer, Importer)


def test_registry_passes_parameters(tmp_path: Path) -> None:
    registry = default_registry()
    assert registry.create("importer", "csv", delimiter=";").delimiter == ";"
    assert registry.create("importer", "hf-disk", split="test").split == "test"
    importer = registry.create("importer", "jsonl", encoding="latin-1")
    path = tmp_path / "latin.jsonl"
    path.write_bytes('{"text": "café"}\n'.encode("latin-1"))
    assert data(read_all(importer, path)) == [{"text": "café"}]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("a.jsonl", "jsonl"),
        ("a.ndjson", "jsonl"),
        ("a.jsonl.gz", "jsonl"),
        ("a.JSON", "json"),
        ("a.csv", "csv"),
        ("a.tsv", "csv"),
        ("a.tab", "csv"),
        ("a.parquet", "parquet"),
        ("a.pq", "parquet"),
    ],
)
def test_registry_picks_importer_by_extension(tmp_path: Path, name: str, expected: str) -> None:
    path = tmp_path / name
    path.write_bytes(b"x")
    assert default_registry().importer_for(path).name == expected


def test_registry_picks_folder_importers(tmp_path: Path) -> None:
    hf = tmp_path / "hf"
    hf.mkdir()
    (hf / "state.json").write_text("{}")
    plain = tmp_path / "texts"
    plain.mkdir()
    (plain / "a.txt").write_text("hello")
    registry = default_registry()
    assert registry.importer_for(hf).name == "hf-disk"
    assert registry.importer_for(plain).name == "txt-folder"


def test_registry_picks_hf_disk_for_a_dataset_dict_folder(tmp_path: Path) -> None:
    folder = tmp_path / "dd"
    folder.mkdir()
    (folder / "dataset_dict.json").write_text('{"splits": ["train"]}')
    assert default_registry().importer_for(folder).name == "hf-disk"


def test_registry_reads_through_created_importer(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "a.jsonl", [{"q": "x"}, {"q": "y"}])
    registry = default_registry()
    contribution = registry.importer_for(path)
    importer = registry.create("importer", contribution.name)
    assert data(read_all(importer, path)) == [{"q": "x"}, {"q": "y"}]


# --------------------------------------------------------------------------- whole-source checks
@pytest.mark.parametrize("cls", ALL_IMPORTERS)
def test_missing_path_is_an_input_error(tmp_path: Path, cls: type) -> None:
    path = tmp_path / "nowhere.jsonl"
    with pytest.raises(InputError, match="no such file or folder") as caught:
        list(cls().read(path))
    assert caught.value.location is not None
    assert Path(caught.value.location.file) == path
    with pytest.raises(InputError, match="no such file or folder"):
        cls().inspect(path)


@pytest.mark.parametrize("cls", FILE_IMPORTERS)
def test_empty_file_is_an_input_error(tmp_path: Path, cls: type) -> None:
    path = tmp_path / "empty.data"
    path.touch()
    with pytest.raises(InputError, match="file is empty") as caught:
        list(cls().read(path))
    assert Path(caught.value.location.file) == path


@pytest.mark.parametrize("cls", FILE_IMPORTERS)
def test_folder_given_to_a_file_importer(tmp_path: Path, cls: type) -> None:
    with pytest.raises(InputError, match="is a folder"):
        list(cls().read(tmp_path))


@pytest.mark.parametrize("cls", [HFDiskImporter, TxtFolderImporter])
def test_file_given_to_a_folder_importer(tmp_path: Path, cls: type) -> None:
    path = tmp_path / "a.txt"
    path.write_text("hello")
    with pytest.raises(InputError, match="is a file"):
        list(cls().read(path))


@pytest.mark.parametrize("cls", [JsonlImporter, JsonArrayImporter, CsvImporter])
def test_binary_file_is_an_input_error(tmp_path: Path, cls: type) -> None:
    path = tmp_path / "image.data"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4)
    with pytest.raises(InputError, match="binary file, not text") as caught:
        list(cls().read(path))
    assert Path(caught.value.location.file) == path
    with pytest.raises(InputError, match="binary"):
        cls().inspect(path)


@pytest.mark.parametrize("cls", [JsonlImporter, CsvImporter])
def test_undecodable_file_is_an_input_error(tmp_path: Path, cls: type) -> None:
    path = tmp_path / "cyrillic.data"
    path.write_bytes((bytes(range(0xC0, 0x100)) + b",\n") * 20)  # Cyrillic in cp1251
    with pytest.raises(InputError, match="another encoding"):
        list(cls().read(path))


def test_utf16_file_gets_a_specific_message(tmp_path: Path) -> None:
    path = tmp_path / "wide.jsonl"
    path.write_bytes('{"a": 1}\n'.encode("utf-16"))
    with pytest.raises(InputError, match="UTF-16"):
        list(JsonlImporter().read(path))


def test_unknown_encoding_is_reported(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "a.jsonl", [{"a": 1}])
    with pytest.raises(InputError, match="unknown text encoding 'klingon'"):
        list(JsonlImporter(encoding="klingon").read(path))
    with pytest.raises(InputError, match="not supported"):
        list(JsonlImporter(encoding="utf-16").read(path))


# --------------------------------------------------------------------------- JSON Lines
def test_jsonl_rows_and_line_numbers(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_bytes(b'{"q": "one", "n": 1}\n\n   \n{"q": "two", "n": null}\r\n{"q": "three"}')
    items = read_all(JsonlImporter(), path)
    assert data(items) == [{"q": "one", "n": 1}, {"q": "two", "n": None}, {"q": "three"}]
    assert numbers(items) == [1, 4, 5]
    assert items[-1].position == path.stat().st_size
    info = JsonlImporter().inspect(path)
    assert (info.unit, info.total, info.progress_unit) == ("line", path.stat().st_size, "B")


def test_jsonl_positions_are_bytes_consumed(tmp_path: Path) -> None:
    lines = [b'{"a": 1}\n', b'{"a": "\xc3\xa9t\xc3\xa9"}\n', b'{"a": 3}\n']
    path = tmp_path / "a.jsonl"
    path.write_bytes(b"".join(lines))
    positions = [item.position for item in read_all(JsonlImporter(), path)]
    assert positions == [len(lines[0]), len(lines[0] + lines[1]), len(b"".join(lines))]


def test_jsonl_bad_lines_are_reported_with_their_numbers(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_bytes(
        b'{"a": 1}\n{"a": \n[1, 2]\n{"a": "caf\xe9"}\n"just a string"\n42\nnull\n{"a": 2}\n'
    )
    items = read_all(JsonlImporter(), path)
    assert numbers(items) == [1, 2, 3, 4, 5, 6, 7, 8]
    assert [type(item) for item in items] == [SourceRow] + [BadRow] * 6 + [SourceRow]
    malformed, non_object, utf8, string, number, null = bad(items)
    assert malformed.message.startswith("malformed JSON: ")
    assert "unexpected end of data" in malformed.message
    assert non_object.message == "expected a JSON object, got list"
    assert utf8.message.startswith("invalid UTF-8 at byte 11")
    assert "line 4" in utf8.message
    assert string.message == "expected a JSON object, got string"
    assert number.message == "expected a JSON object, got number"
    assert null.message == "expected a JSON object, got null"


def test_jsonl_byte_order_mark_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"a": 1}\n{"a": 2}\n')
    assert data(read_all(JsonlImporter(), path)) == [{"a": 1}, {"a": 2}]


def test_jsonl_only_blank_lines_gives_no_rows(tmp_path: Path) -> None:
    path = tmp_path / "blank.jsonl"
    path.write_bytes(b"\n\n  \n")
    assert read_all(JsonlImporter(), path) == []


def test_jsonl_gz(tmp_path: Path) -> None:
    rows = [{"text": f"row {i}", "i": i} for i in range(500)]
    path = tmp_path / "a.jsonl.gz"
    with gzip.open(path, "wb") as handle:
        handle.write(b"".join(orjson.dumps(row) + b"\n" for row in rows))
    items = read_all(JsonlImporter(), path)
    assert data(items) == rows
    assert numbers(items) == list(range(1, 501))
    size = path.stat().st_size
    assert JsonlImporter().inspect(path).total == size
    positions = [item.position for item in items]
    assert positions == sorted(positions)
    assert 0 < positions[-1] <= size


def test_jsonl_gz_damaged(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl.gz"
    path.write_bytes(b"this is not gzip data at all\n")
    with pytest.raises(InputError, match="gzip"):
        list(JsonlImporter().read(path))
    truncated = tmp_path / "cut.jsonl.gz"
    full = gzip.compress(b"".join(orjson.dumps({"i": i}) + b"\n" for i in range(20000)))
    truncated.write_bytes(full[: len(full) // 2])
    with pytest.raises(InputError, match="gzip file is damaged"):
        list(JsonlImporter().read(truncated))


def test_jsonl_gz_binary_content(tmp_path: Path) -> None:
    path = tmp_path / "bin.jsonl.gz"
    path.write_bytes(gzip.compress(bytes(range(256)) * 10))
    with pytest.raises(InputError, match="binary"):
        list(JsonlImporter().read(path))


@pytest.mark.slow
def test_jsonl_50_mb_single_field(tmp_path: Path) -> None:
    text = "abcdefghij" * (BIG // 10)
    path = write_jsonl(tmp_path / "big.jsonl", [{"id": 1, "text": text}, {"id": 2, "text": "x"}])
    items = read_all(JsonlImporter(), path)
    assert numbers(items) == [1, 2]
    assert bad(items) == []
    assert items[0].data["text"] == text
    assert items[1].data == {"id": 2, "text": "x"}


def test_jsonl_streams_without_reading_everything(tmp_path: Path) -> None:
    rows = [{"text": "y" * 100, "i": i} for i in range(20000)]
    path = write_jsonl(tmp_path / "many.jsonl", rows)
    first_line = len(orjson.dumps(rows[0])) + 1
    reader = JsonlImporter().read(path)
    first = next(reader)
    assert first.data == rows[0]
    assert first.position == first_line
    second = next(reader)
    assert second.position == 2 * first_line
    assert second.position < path.stat().st_size / 1000
    reader.close()


json_values = st.one_of(
    st.none(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",))),
)
json_rows = st.lists(
    st.dictionaries(st.text(alphabet=st.characters(blacklist_categories=("Cs",))), json_values),
    max_size=20,
)


@pytest.mark.slow
@settings(max_examples=50, deadline=None)
@given(rows=json_rows)
def test_jsonl_round_trips_any_rows(rows: list[dict]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = write_jsonl(Path(folder) / "rows.jsonl", rows)
        if not rows:
            with pytest.raises(InputError, match="file is empty"):
                list(JsonlImporter().read(path))
            return
        items = read_all(JsonlImporter(), path)
    assert data(items) == rows
    assert numbers(items) == list(range(1, len(rows) + 1))


# --------------------------------------------------------------------------- JSON array
def test_json_array_rows_and_numbers(tmp_path: Path) -> None:
    rows = [{"q": "a", "n": 1}, {"q": "b", "n": None}, {"q": "c", "tags": ["x"]}]
    path = tmp_path / "a.json"
    path.write_text(json.dumps(rows, indent=2))
    items = read_all(JsonArrayImporter(), path)
    assert data(items) == rows
    assert numbers(items) == [1, 2, 3]
    assert items[-1].position == path.stat().st_size
    info = JsonArrayImporter().inspect(path)
    assert (info.unit, info.total, info.progress_unit) == ("item", path.stat().st_size, "B")


@pytest.mark.parametrize(
    "document",
    [
        {"data": [{"a": 1}, {"a": 2}]},
        {"version": "1.0", "examples": [{"a": 1}, {"a": 2}], "tags": ["x", "y"]},
    ],
)
def test_json_array_inside_an_object(tmp_path: Path, document: dict) -> None:
    path = tmp_path / "wrapped.json"
    path.write_bytes(orjson.dumps(document))
    assert data(read_all(JsonArrayImporter(), path)) == [{"a": 1}, {"a": 2}]


def test_json_array_object_with_several_lists_is_ambiguous(tmp_path: Path) -> None:
    path = tmp_path / "two.json"
    path.write_bytes(orjson.dumps({"train": [{"a": 1}], "test": [{"a": 2}]}))
    with pytest.raises(InputError, match="several lists of objects \\('train', 'test'\\)"):
        list(JsonArrayImporter().read(path))


@pytest.mark.parametrize(
    ("content", "message"),
    [(b'"hello"', "got string"), (b'{"a": 1}', "no list of objects")],
)
def test_json_array_wrong_top_level(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "a.json"
    path.write_bytes(content)
    with pytest.raises(InputError, match=message):
        list(JsonArrayImporter().read(path))


def test_json_array_non_object_item_is_a_bad_row(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_bytes(b'[{"a": 1}, [1, 2], {"a": 3}, 7]')
    items = read_all(JsonArrayImporter(), path)
    assert numbers(items) == [1, 2, 3, 4]
    first_bad, second_bad = bad(items)
    assert (first_bad.number, first_bad.message) == (2, "item 2: expected a JSON object, got list")
    assert second_bad.message == "item 4: expected a JSON object, got number"


def test_json_array_malformed_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_text('[\n  {"a": 1},\n  {"a": 2,}\n]\n')
    with pytest.raises(InputError, match=r"malformed JSON: .* at line 3, column") as caught:
        list(JsonArrayImporter().read(path))
    assert caught.value.location.line == 3


def test_json_array_suggests_jsonl(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "lines.json", [{"a": 1}, {"a": 2}])
    with pytest.raises(InputError, match="looks like JSON Lines"):
        list(JsonArrayImporter().read(path))


def test_json_array_invalid_utf8(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_bytes(b'[\n{"a": "ok"},\n{"a": "caf\xe9"}\n]')
    with pytest.raises(InputError, match="invalid UTF-8 at byte 11 of line 3") as caught:
        list(JsonArrayImporter().read(path))
    assert caught.value.location.line == 3


def test_json_array_byte_order_mark(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_bytes(b'\xef\xbb\xbf[{"a": 1}]')
    assert data(read_all(JsonArrayImporter(), path)) == [{"a": 1}]
