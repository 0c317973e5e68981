"""The CSV / TSV importer: delimiters, line numbers, bad rows, big fields, streaming."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from tests.plugins._importer_helpers import bad, data, numbers, read_all
from vendiscope.core.base.errors import InputError
from vendiscope.core.plugin_host import BadRow, SourceRow
from vendiscope.plugins.importers.csv import CsvImporter, sniff_delimiter

BIG = 50 * 1024 * 1024


def write(path: Path, content: str | bytes) -> Path:
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return path


def test_rows_are_string_dicts_numbered_by_line(tmp_path: Path) -> None:
    path = write(tmp_path / "a.csv", "question,answer,n\nWhat?,That,1\n\nWho?,Me,\n")
    items = read_all(CsvImporter(), path)
    assert data(items) == [
        {"question": "What?", "answer": "That", "n": "1"},
        {"question": "Who?", "answer": "Me", "n": ""},
    ]
    assert numbers(items) == [2, 4]
    assert items[-1].position == path.stat().st_size
    info = CsvImporter().inspect(path)
    assert info.columns == ("question", "answer", "n")
    assert (info.unit, info.total, info.progress_unit) == ("line", path.stat().st_size, "B")


def test_tsv_uses_tabs(tmp_path: Path) -> None:
    path = write(tmp_path / "a.tsv", "premise\thypothesis\tlabel\nA, b\tC; d\t0\n")
    assert data(read_all(CsvImporter(), path)) == [
        {"premise": "A, b", "hypothesis": "C; d", "label": "0"}
    ]
    tab = write(tmp_path / "a.tab", "x\ty\n1\t2\n")
    assert data(read_all(CsvImporter(), tab)) == [{"x": "1", "y": "2"}]


def test_semicolon_is_sniffed(tmp_path: Path) -> None:
    path = write(tmp_path / "excel.csv", 'text;label\n"hello, world";1\nbye;0\n')
    assert sniff_delimiter(path, "utf-8") == ";"
    assert data(read_all(CsvImporter(), path)) == [
        {"text": "hello, world", "label": "1"},
        {"text": "bye", "label": "0"},
    ]


def test_explicit_delimiter_wins(tmp_path: Path) -> None:
    path = write(tmp_path / "pipes.tsv", "a|b\n1|2\n")
    assert data(read_all(CsvImporter(delimiter="|"), path)) == [{"a": "1", "b": "2"}]


def test_single_column_falls_back_to_comma(tmp_path: Path) -> None:
    path = write(tmp_path / "one.csv", "text\nhello there\nhow are you\n")
    assert data(read_all(CsvImporter(), path)) == [{"text": "hello there"}, {"text": "how are you"}]


def test_quoted_newlines_keep_the_starting_line(tmp_path: Path) -> None:
    rows = [
        {"prompt": "line one\nline two\nline three", "response": "ok"},
        {"prompt": "single", "response": "two\r\nlines"},
        {"prompt": 'say "hi"', "response": ""},
    ]
    buffer = io.StringIO(newline="")
    writer = csv.DictWriter(buffer, fieldnames=["prompt", "response"])
    writer.writeheader()
    writer.writerows(rows)
    path = write(tmp_path / "multi.csv", buffer.getvalue())
    items = read_all(CsvImporter(), path)
    assert data(items) == rows
    assert numbers(items) == [2, 5, 7]


def test_ragged_rows_are_bad_rows_with_their_line(tmp_path: Path) -> None:
    path = write(tmp_path / "a.csv", 'a,b\n1,2\n1,2,3\n"x\ny"\n4,5\n')
    items = read_all(CsvImporter(), path)
    assert numbers(items) == [2, 3, 4, 6]
    assert [type(item) for item in items] == [SourceRow, BadRow, BadRow, SourceRow]
    too_many, too_few = bad(items)
    assert too_many.message == "expected 2 fields (header), found 3"
    assert too_few.message == "expected 2 fields (header), found 1"
    assert items[-1].data == {"a": "4", "b": "5"}


def test_invalid_utf8_row_is_a_bad_row(tmp_path: Path) -> None:
    path = write(tmp_path / "a.csv", b'text,n\ncaf\xe9,1\n"multi\nline \xff",2\nok,3\n')
    items = read_all(CsvImporter(), path)
    assert numbers(items) == [2, 3, 5]
    first, second = bad(items)
    assert first.message == "invalid UTF-8 at byte 4 of line 2"
    assert second.message == "invalid UTF-8 at byte 6 of line 4"
    assert items[-1].data == {"text": "ok", "n": "3"}


def test_unclosed_quote_is_a_bad_row(tmp_path: Path) -> None:
    path = write(tmp_path / "a.csv", 'a,b\n1,2\n3,"never closed\n4,5\n')
    items = read_all(CsvImporter(), path)
    assert numbers(items) == [2, 3]
    assert "never closed" in bad(items)[0].message


def test_last_line_without_newline_is_fine(tmp_path: Path) -> None:
    path = write(tmp_path / "a.csv", 'a,b\r\n1,2\r\n3,"x"')
    assert data(read_all(CsvImporter(), path)) == [{"a": "1", "b": "2"}, {"a": "3", "b": "x"}]


def test_byte_order_mark_is_not_part_of_the_header(tmp_path: Path) -> None:
    path = write(tmp_path / "a.csv", b"\xef\xbb\xbfid,text\n1,hi\n")
    assert CsvImporter().inspect(path).columns == ("id", "text")
    assert data(read_all(CsvImporter(), path)) == [{"id": "1", "text": "hi"}]


def test_other_encoding(tmp_path: Path) -> None:
    path = write(tmp_path / "a.csv", "text\ncafé\n".encode("cp1252"))
    assert data(read_all(CsvImporter(encoding="cp1252"), path)) == [{"text": "café"}]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("\n\n\n", "no header row"),
        (",,\n1,2,3\n", "header row \\(column names\\) is empty"),
        ("a,b,a\n1,2,3\n", "names column 'a' twice \\(columns 1 and 3\\)"),
    ],
)
def test_bad_header_is_an_input_error(tmp_path: Path, content: str, message: str) -> None:
    path = write(tmp_path / "a.csv", content)
    with pytest.raises(InputError, match=message) as caught:
        list(CsvImporter().read(path))
    assert Path(caught.value.location.file) == path
    with pytest.raises(InputError, match=message):
        CsvImporter().inspect(path)


def test_duplicate_header_error_names_its_line(tmp_path: Path) -> None:
    path = write(tmp_path / "a.csv", "\nx,x\n")
    with pytest.raises(InputError) as caught:
        list(CsvImporter().read(path))
    assert caught.value.location.line == 2


def test_blank_column_name_is_named_like_pandas(tmp_path: Path) -> None:
    path = write(tmp_path / "a.csv", ",text\n0,hello\n")
    assert data(read_all(CsvImporter(), path)) == [{"Unnamed: 0": "0", "text": "hello"}]


def test_header_only_gives_no_rows(tmp_path: Path) -> None:
    path = write(tmp_path / "a.csv", "a,b\n")
    assert read_all(CsvImporter(), path) == []


@pytest.mark.slow
def test_50_mb_field(tmp_path: Path) -> None:
    text = ("lorem, ipsum " * 80 + "\n") * (BIG // 1041)
    path = tmp_path / "big.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "text"])
        writer.writerow(["1", text])
        writer.writerow(["2", "small"])
    items = read_all(CsvImporter(), path)
    assert bad(items) == []
    assert items[0].data["text"] == text
    assert items[1].data == {"id": "2", "text": "small"}
    assert numbers(items) == [2, 2 + text.count("\n") + 1]


def test_streams_without_reading_everything(tmp_path: Path) -> None:
    line = "some text here," + "x" * 80 + "\n"
    path = write(tmp_path / "many.csv", "text,pad\n" + line * 20000)
    reader = CsvImporter().read(path)
    first = next(reader)
    assert first.number == 2
    assert first.position == len("text,pad\n") + len(line)
    assert first.position < path.stat().st_size / 1000
    reader.close()
