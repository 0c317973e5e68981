"""The built-in exporters write what each format's own reader reads back."""

from __future__ import annotations

import base64
import csv
import datetime as dt
import decimal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import datasets
import orjson
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from vendiscope.core.base.errors import ExportError
from vendiscope.core.plugin_host import Exporter, default_registry
from vendiscope.core.store import rawjson
from vendiscope.plugins.exporters.csv import CsvExporter
from vendiscope.plugins.exporters.hf_disk import HFDiskExporter
from vendiscope.plugins.exporters.jsonl import JsonlExporter
from vendiscope.plugins.exporters.parquet import ParquetExporter

ROWS: list[dict[str, Any]] = [
    {"prompt": "Say hi", "response": "hi", "score": 3, "ok": True},
    {
        "prompt": "Ünïcödé ✓ — 日本語 🙂",
        "response": "line one\nline two\r\nline three",
        "score": 1.5,
        "ok": False,
    },
    {"prompt": 'quotes " and , commas', "response": None, "score": None, "ok": None},
]


def as_imported(row: dict[str, Any]) -> dict[str, Any]:
    """A row as the export job hands it over: serialised at import, decoded from JSON."""
    return orjson.loads(rawjson.dumps(row))


def describe(schema: pa.Schema, features: datasets.Features | None = None) -> dict[str, Any]:
    """The schema description the Parquet and HF importers record."""
    description = {
        "arrow": base64.b64encode(schema.serialize().to_pybytes()).decode("ascii"),
        "columns": list(schema.names),
    }
    if features is not None:
        description["features"] = features.to_dict()
    return description


def generated(count: int) -> Iterator[dict[str, Any]]:
    for i in range(count):
        yield {"id": i, "text": f"row {i}", "tags": ["even" if i % 2 == 0 else "odd"]}


# ----------------------------------------------------------------- registry
@pytest.mark.parametrize(
    ("name", "cls", "suffix", "is_directory"),
    [
        ("jsonl", JsonlExporter, ".jsonl", False),
        ("csv", CsvExporter, ".csv", False),
        ("parquet", ParquetExporter, ".parquet", False),
        ("hf-disk", HFDiskExporter, "", True),
    ],
)
def test_registry_creates_each_exporter(name, cls, suffix, is_directory) -> None:
    exporter = default_registry().create("exporter", name)
    assert type(exporter) is cls
    assert isinstance(exporter, Exporter)
    assert exporter.suffix == suffix
    assert exporter.is_directory is is_directory


def test_registry_passes_parameters() -> None:
    exporter = default_registry().create("exporter", "parquet", compression="snappy")
    assert exporter.compression == "snappy"


# ----------------------------------------------------------------- JSON Lines
def test_jsonl_round_trip_keeps_values_and_key_order(tmp_path: Path) -> None:
    path = tmp_path / "out.jsonl"
    rows = [{"z": 1, "a": {"y": [1, None], "b": "x"}}, *ROWS]
    assert JsonlExporter().write(iter(rows), path, schema=None) == len(rows)
    lines = path.read_bytes().split(b"\n")
    assert lines[-1] == b""  # every line ends with "\n"
    back = [orjson.loads(line) for line in lines[:-1]]
    assert back == rows
    assert [list(row) for row in back] == [list(row) for row in rows]
    assert list(back[0]["a"]) == ["y", "b"]
    assert "日本語".encode() in path.read_bytes()  # UTF-8, not \u escapes


def test_jsonl_no_rows_is_an_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "out.jsonl"
    assert JsonlExporter().write(iter([]), path, schema=None) == 0
    assert path.read_bytes() == b""


def test_jsonl_streams_a_generator(tmp_path: Path) -> None:
    path = tmp_path / "out.jsonl"
    assert JsonlExporter().write(generated(10_000), path, schema=None) == 10_000
    lines = path.read_text("utf-8").splitlines()
    assert len(lines) == 10_000
    assert orjson.loads(lines[-1]) == {"id": 9999, "text": "row 9999", "tags": ["odd"]}


# ----------------------------------------------------------------- CSV
def read_csv(path: Path, delimiter: str = ",") -> list[list[str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.reader(handle, delimiter=delimiter))


def test_csv_writes_header_and_cells(tmp_path: Path) -> None:
    path = tmp_path / "out.csv"
    rows = [
        *ROWS,
        {
            "prompt": "p",
            "response": "r",
            "score": 0,
            "ok": True,
        },
    ]
    rows.append({"prompt": {"nested": [1, "é"]}, "response": [1, 2], "score": 2})
    assert CsvExporter().write(iter(rows), path, schema=None) == len(rows)
    table = read_csv(path)
    assert table[0] == ["prompt", "response", "score", "ok"]
    assert table[1] == ["Say hi", "hi", "3", "True"]
    assert table[2] == ["Ünïcödé ✓ — 日本語 🙂", "line one\nline two\r\nline three", "1.5", "False"]
    assert table[3] == ['quotes " and , commas', "", "", ""]
    assert table[5] == ['{"nested":[1,"é"]}', "[1,2]", "2", ""]  # missing key -> empty cell
    assert path.read_bytes().startswith(b"prompt,response,score,ok\nSay hi,hi,3,True\n")


def test_csv_round_trip_of_string_rows_is_exact(tmp_path: Path) -> None:
    source = tmp_path / "source.csv"
    source.write_text(
        'id,text,note\n1,"multi\nline ""quoted"", text",\n2,plain,Ünïcödé\n3,,"a,b"\n',
        encoding="utf-8",
        newline="",
    )
    with source.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))  # what the CSV importer yields: all strings
    out = tmp_path / "out.csv"
    CsvExporter().write((as_imported(row) for row in rows), out, schema=None)
    assert out.read_bytes() == source.read_bytes()


def test_csv_tab_delimiter(tmp_path: Path) -> None:
    path = tmp_path / "out.tsv"
    CsvExporter(delimiter="\t").write(iter([{"a": "x\ty", "b": "z"}]), path, schema=None)
    assert read_csv(path, delimiter="\t") == [["a", "b"], ["x\ty", "z"]]


def test_csv_key_missing_from_header_is_an_error(tmp_path: Path) -> None:
    rows = [{"a": 1}, {"a": 2}, {"a": 3, "surprise": 4}]
    with pytest.raises(ExportError, match=r"row 3 .*'surprise'.*JSON Lines"):
        CsvExporter().write(iter(rows), tmp_path / "out.csv", schema=None)


def test_csv_no_rows_is_an_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "out.csv"
    assert CsvExporter().write(iter([]), path, schema=None) == 0
    assert path.read_bytes() == b""


def test_csv_streams_a_generator(tmp_path: Path) -> None:
    path = tmp_path / "out.csv"
    assert CsvExporter().write(generated(10_000), path, schema=None) == 10_000
    table = read_csv(path)
    assert len(table) == 10_001
    assert table[-1] == ["9999", "row 9999", '["odd"]']


# ----------------------------------------------------------------- Parquet
TYPED_SCHEMA = pa.schema(
    [
        ("id", pa.int64()),
        ("small", pa.int8()),
        ("score", pa.float64()),
        ("ok", pa.bool_()),
        ("tags", pa.list_(pa.string())),
        ("created", pa.timestamp("us")),
        ("stamp", pa.timestamp("ns", tz="UTC")),
        ("day", pa.date32()),
        ("clock", pa.time64("us")),
        ("blob", pa.binary()),
        ("price", pa.decimal128(10, 2)),
        ("wait", pa.duration("ms")),
        ("attrs", pa.map_(pa.string(), pa.int64())),
        (
            "meta",
            pa.struct(
                [
                    ("source", pa.string()),
                    ("seen", pa.timestamp("ms")),
                    ("chunks", pa.list_(pa.binary())),
                    ("inner", pa.struct([("depth", pa.int32())])),
                ]
            ),
        ),
    ],
    metadata={b"origin": b"test"},
)

TYPED_ROWS: list[dict[str, Any]] = [
    {
        "id": 2**53 + 1,
        "small": -7,
        "score": 0.1,
        "ok": True,
        "tags": ["a", "日本"],
        "created": dt.datetime(2024, 2, 29, 13, 14, 15, 123456),
        "stamp": dt.datetime(1969, 12, 31, 23, 59, 59, 999999, tzinfo=dt.timezone.utc),
        "day": dt.date(1900, 1, 1),
        "clock": dt.time(23, 59, 58, 1),
        "blob": b"\x00\x01\xfe\xff",
        "price": decimal.Decimal("12345678.90"),
        "wait": dt.timedelta(days=-1, seconds=3, milliseconds=250),
        "attrs": [("k", 1), ("j", None)],
        "meta": {
            "source": "web",
            "seen": dt.datetime(2000, 1, 1, 0, 0, 0, 1000),
            "chunks": [b"x", b""],
            "inner": {"depth": 3},
        },
    },
    {
        "id": None,
        "small": None,
        "score": None,
        "ok": None,
        "tags": None,
        "created": None,
        "stamp": None,
        "day": None,
        "clock": None,
        "blob": None,
        "price": None,
        "wait": None,
        "attrs": None,
        "meta": None,
    },
    {
        "id": 0,
        "small": 127,
        "score": -1e300,
        "ok": False,
        "tags": [],
        "created": dt.datetime(1970, 1, 1),
        "stamp": dt.datetime(2024, 6, 1, 12, tzinfo=dt.timezone.utc),
        "day": dt.date(2024, 6, 1),
        "clock": dt.time(0, 0),
        "blob": b"",
        "price": decimal.Decimal("-0.01"),
        "wait": dt.timedelta(0),
        "attrs": [],
        "meta": {"source": None, "seen": None, "chunks": [], "inner": None},
    },
]


def test_parquet_typed_round_trip_with_schema(tmp_path: Path) -> None:
    original = pa.Table.from_pylist(TYPED_ROWS, schema=TYPED_SCHEMA)
    rows = [as_imported(row) for row in original.to_pylist()]
    assert isinstance(rows[0]["blob"], str) and isinstance(rows[0]["created"], str)
    path = tmp_path / "out.parquet"
    count = ParquetExporter().write(iter(rows), path, schema=describe(TYPED_SCHEMA))
    assert count == 3
    back = pq.read_table(path)
    assert back.schema.metadata == TYPED_SCHEMA.metadata
    for field in TYPED_SCHEMA:  # DataType equality ignores the list item's name
        assert back.schema.field(field.name).type == field.type, field.name
    assert back.to_pylist() == original.to_pylist()


def test_parquet_nanosecond_timestamps_survive(tmp_path: Path) -> None:
    schema = pa.schema([("t", pa.timestamp("ns")), ("d", pa.duration("ns"))])
    original = pa.table(
        {
            "t": pa.array([1_704_067_200_123_456_789, -1], pa.timestamp("ns")),
            "d": pa.array([-1, 86_400 * 10**9 + 5], pa.duration("ns")),
        }
    )
    rows = [as_imported(row) for row in original.to_pylist()]
    path = tmp_path / "out.parquet"
    ParquetExporter().write(iter(rows), path, schema=describe(schema))
    assert pq.read_table(path).equals(original)


def test_parquet_without_schema_infers_types(tmp_path: Path) -> None:
    path = tmp_path / "out.parquet"
    assert ParquetExporter().write(iter(ROWS), path, schema=None) == 3
    back = pq.read_table(path)
    assert back.column_names == ["prompt", "response", "score", "ok"]
    assert back.schema.field("score").type == pa.float64()
    assert back.to_pylist() == ROWS


def test_parquet_without_schema_takes_keys_from_every_row(tmp_path: Path) -> None:
    rows = [{"a": 1}, {"a": 2, "b": "x"}]
    path = tmp_path / "out.parquet"
    ParquetExporter().write(iter(rows), path, schema=None)
    assert pq.read_table(path).to_pylist() == [{"a": 1, "b": None}, {"a": 2, "b": "x"}]


def test_parquet_streams_a_generator_in_batches(tmp_path: Path) -> None:
    path = tmp_path / "out.parquet"
    count = ParquetExporter().write(generated(25_000), path, schema=None)
    assert count == 25_000
    parquet = pq.ParquetFile(path)
    assert parquet.metadata.num_rows == 25_000
    assert parquet.metadata.num_row_groups == 3  # written 10,000 rows at a time
    assert parquet.read().slice(24_999).to_pylist() == [
        {"id": 24_999, "text": "row 24999", "tags": ["odd"]}
    ]


def test_parquet_later_batches_may_widen_types(tmp_path: Path) -> None:
    first = [{"n": 0.5, "items": [1], "meta": {"a": 1, "b": "x"}}] * 10_000
    later = [{"n": 2, "items": [], "meta": {"a": 2}}, {"n": None, "items": None, "meta": None}]
    path = tmp_path / "out.parquet"
    assert ParquetExporter().write(iter(first + later), path, schema=None) == 10_002
    back = pq.read_table(path)
    assert back.schema.field("n").type == pa.float64()
    assert back.slice(10_000).to_pylist() == [
        {"n": 2.0, "items": [], "meta": {"a": 2, "b": None}},
        {"n": None, "items": None, "meta": None},
    ]


def test_parquet_column_null_in_first_batch_cannot_change_later(tmp_path: Path) -> None:
    rows = [{"x": 1, "note": None}] * 10_000 + [{"x": 2, "note": "late"}]
    with pytest.raises(ExportError, match=r"row 10001, column 'note'.*only nulls"):
        ParquetExporter().write(iter(rows), tmp_path / "out.parquet", schema=None)


def test_parquet_incompatible_types_are_an_error(tmp_path: Path) -> None:
    path = tmp_path / "out.parquet"
    # Within one batch.
    with pytest.raises(ExportError, match=r"column 'x' mixes value types \(row 3"):
        ParquetExporter().write(iter([{"x": 1}, {"x": 2}, {"x": "three"}]), path, schema=None)
    # Across batches: the first 10,000 rows fix the column's type.
    rows = [{"x": i} for i in range(10_000)] + [{"x": "ten thousand"}]
    with pytest.raises(ExportError, match=r"row 10001, column 'x'.*JSON Lines"):
        ParquetExporter().write(iter(rows), path, schema=None)
    # Against the source schema.
    schema = describe(pa.schema([("x", pa.int64())]))
    with pytest.raises(ExportError, match=r"row 2, column 'x': cannot write 'two' as int64"):
        ParquetExporter().write(iter([{"x": 1}, {"x": "two"}]), path, schema=schema)


def test_parquet_key_missing_from_schema_is_an_error(tmp_path: Path) -> None:
    schema = describe(pa.schema([("x", pa.int64())]))
    with pytest.raises(ExportError, match=r"row 2 has a column 'y'"):
        ParquetExporter().write(
            iter([{"x": 1}, {"x": 2, "y": 3}]), tmp_path / "o.pq", schema=schema
        )


def test_parquet_no_rows(tmp_path: Path) -> None:
    path = tmp_path / "out.parquet"
    schema = pa.schema([("id", pa.int64()), ("text", pa.string())])
    assert ParquetExporter().write(iter([]), path, schema=describe(schema)) == 0
    back = pq.read_table(path)
    assert back.num_rows == 0 and back.schema.equals(schema)
    with pytest.raises(ExportError, match="nothing to export"):
        ParquetExporter().write(iter([]), tmp_path / "other.parquet", schema=None)


def test_parquet_compression_parameter(tmp_path: Path) -> None:
    path = tmp_path / "out.parquet"
    ParquetExporter(compression="snappy").write(iter(ROWS), path, schema=None)
    assert pq.ParquetFile(path).metadata.row_group(0).column(0).compression == "SNAPPY"


# ----------------------------------------------------------------- Hugging Face folder
HF_FEATURES = datasets.Features(
    {
        "text": datasets.Value("string"),
        "label": datasets.ClassLabel(names=["negative", "positive"]),
        "tokens": datasets.Sequence(datasets.Value("string")),
        "score": datasets.Value("float32"),
        "when": datasets.Value("timestamp[s]"),
        "raw": datasets.Value("binary"),
        "meta": {"lang": datasets.Value("string"), "turns": datasets.Value("int32")},
    }
)


def test_hf_disk_round_trip_restores_features(tmp_path: Path) -> None:
    original = datasets.Dataset.from_list(
        [
            {
                "text": "great 🙂\nreally",
                "label": 1,
                "tokens": ["great", "really"],
                "score": 0.5,
                "when": dt.datetime(2024, 1, 2, 3, 4, 5),
                "raw": b"\x00\xff",
                "meta": {"lang": "en", "turns": 2},
            },
            {
                "text": "bad",
                "label": 0,
                "tokens": [],
                "score": None,
                "when": None,
                "raw": None,
                "meta": {"lang": None, "turns": None},
            },
        ],
        features=HF_FEATURES,
    )
    schema = describe(original.features.arrow_schema, original.features)
    rows = [as_imported(row) for row in original.with_format("arrow")[:].to_pylist()]
    destination = tmp_path / "out"
    assert HFDiskExporter().write(iter(rows), destination, schema=schema) == 2
    assert not (tmp_path / "out.parts").exists()
    back = datasets.load_from_disk(str(destination))
    assert back.features == original.features
    assert back.features["label"].names == ["negative", "positive"]
    assert back.to_list() == original.to_list()


def test_hf_disk_without_schema_infers_features(tmp_path: Path) -> None:
    destination = tmp_path / "out"
    assert HFDiskExporter().write(iter(ROWS), destination, schema=None) == 3
    back = datasets.load_from_disk(str(destination))
    assert back.column_names == ["prompt", "response", "score", "ok"]
    assert back.to_list() == ROWS


def test_hf_disk_with_parquet_schema_only(tmp_path: Path) -> None:
    schema = pa.schema([("id", pa.int32()), ("blob", pa.binary())])
    rows = [as_imported({"id": 1, "blob": b"\x01"}), as_imported({"id": 2, "blob": None})]
    destination = tmp_path / "out"
    HFDiskExporter().write(iter(rows), destination, schema=describe(schema))
    back = datasets.load_from_disk(str(destination))
    assert back.features["id"] == datasets.Value("int32")
    assert back.to_list() == [{"id": 1, "blob": b"\x01"}, {"id": 2, "blob": None}]


def test_hf_disk_streams_a_generator_into_shards(tmp_path: Path) -> None:
    destination = tmp_path / "out"
    count = HFDiskExporter(max_shard_size=100_000).write(
        generated(10_000), destination, schema=None
    )
    assert count == 10_000
    assert len(list(destination.glob("data-*.arrow"))) > 1
    back = datasets.load_from_disk(str(destination))
    assert back.num_rows == 10_000
    assert back[9_999] == {"id": 9_999, "text": "row 9999", "tags": ["odd"]}
    assert not (tmp_path / "out.parts").exists()


def test_hf_disk_no_rows(tmp_path: Path) -> None:
    destination = tmp_path / "out"
    schema = describe(HF_FEATURES.arrow_schema, HF_FEATURES)
    assert HFDiskExporter().write(iter([]), destination, schema=schema) == 0
    back = datasets.load_from_disk(str(destination))
    assert back.num_rows == 0 and back.features == HF_FEATURES
    with pytest.raises(ExportError, match="nothing to export"):
        HFDiskExporter().write(iter([]), tmp_path / "other", schema=None)
    assert not (tmp_path / "other.parts").exists()


def test_hf_disk_bad_row_leaves_no_scratch_folder(tmp_path: Path) -> None:
    schema = describe(pa.schema([("x", pa.int64())]))
    with pytest.raises(ExportError, match="row 1, column 'x'"):
        HFDiskExporter().write(iter([{"x": "one"}]), tmp_path / "out", schema=schema)
    assert list(tmp_path.iterdir()) == []
