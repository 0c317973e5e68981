"""A ``.jsonl.gz`` is read within a bound on what it decompresses to: a compression bomb is
refused within seconds, naming the file, and the project is left as it was; runs of blank
lines are stepped over a buffer at a time and still counted in the line numbers."""

from __future__ import annotations

import gzip
import sqlite3
import zlib
from pathlib import Path

import orjson
import pytest

from tests.conftest import table_counts
from tests.plugins._importer_helpers import numbers, read_all
from vendiscope.core.base.errors import InputError
from vendiscope.core.io.importing import import_dataset
from vendiscope.plugins.importers import limits
from vendiscope.plugins.importers._common import BUFFER_BYTES
from vendiscope.plugins.importers.jsonl import JsonlImporter

MiB = 1024 * 1024


def gzip_of_newlines(path: Path, size: int) -> Path:
    """A gzip file of ``size`` newlines (about a thousandth of that on disk), written in pieces."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)  # wbits 31: a gzip header and trailer
    piece = b"\n" * (16 * MiB)
    with path.open("wb") as out:
        for start in range(0, size, len(piece)):
            out.write(packer.compress(piece[: size - start]))
        out.write(packer.flush())
    return path


def test_a_gzip_bomb_of_blank_lines_is_refused_naming_the_file(project, tmp_path: Path) -> None:
    bomb = gzip_of_newlines(tmp_path / "bomb.jsonl.gz", limits.GZIP_FLOOR_BYTES + 32 * MiB)
    assert bomb.stat().st_size * limits.MAX_GZIP_RATIO < limits.GZIP_FLOOR_BYTES  # a bomb
    before = table_counts(project.location)
    with pytest.raises(InputError) as raised:
        import_dataset(project, bomb)
    assert str(raised.value) == str(bomb) + (
        ": decompresses to more than 200 times its size (a compression bomb?); "
        "nothing was imported (importer option max_gzip_ratio)"
    )
    assert project.datasets() == [] and table_counts(project.location) == before
    with sqlite3.connect(project.location) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)


def test_the_gzip_limits_are_importer_options(tmp_path: Path) -> None:
    path = gzip_of_newlines(tmp_path / "d.jsonl.gz", 3 * MiB)
    with pytest.raises(InputError) as raised:
        read_all(JsonlImporter(max_gzip_bytes=MiB), path)
    assert str(raised.value) == str(path) + (
        ": decompresses to more than 1,048,576 bytes; nothing was imported "
        "(importer option max_gzip_bytes)"
    )
    assert read_all(JsonlImporter(max_gzip_ratio=1, max_gzip_bytes=4 * MiB), path) == []
    # a small file compressing far better than the ratio still reads: it is under the floor
    rows = gzip.compress(b'{"text": "a"}\n' * 100_000, 9)
    (tmp_path / "same.jsonl.gz").write_bytes(rows)
    assert limits.MAX_GZIP_RATIO * len(rows) < 14 * 100_000
    assert len(read_all(JsonlImporter(), tmp_path / "same.jsonl.gz")) == 100_000


@pytest.mark.parametrize("suffix", [".jsonl", ".jsonl.gz"])
def test_runs_of_blank_lines_are_skipped_and_counted(tmp_path: Path, suffix: str) -> None:
    run = 3 * BUFFER_BYTES + 5  # longer than the buffer, and cut by its end
    text = (
        b"\n" * run
        + b'{"n": 1}\n'
        + b" \t\r\n" * 1000
        + b'\r{"n": 2}\r\n'  # a carriage return left at the start of a row is JSON whitespace
        + b"   "
        + b"\n" * 10
        + b'{"n": 3}'
    )
    path = tmp_path / f"blank{suffix}"
    path.write_bytes(gzip.compress(text, 1) if suffix.endswith(".gz") else text)
    items = read_all(JsonlImporter(), path)
    assert [item.data for item in items] == [{"n": 1}, {"n": 2}, {"n": 3}]
    assert numbers(items) == [run + 1, run + 1002, run + 1013]
    lines = text.split(b"\n")
    assert [orjson.loads(lines[n - 1]) for n in numbers(items)] == [{"n": 1}, {"n": 2}, {"n": 3}]
