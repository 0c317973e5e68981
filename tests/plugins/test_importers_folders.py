"""Parquet, Hugging Face ``save_to_disk`` folders and folders of text files."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.plugins._importer_helpers import bad, data, numbers, read_all
from vendiscope.core.base.errors import InputError
from vendiscope.core.plugin_host import default_registry
from vendiscope.plugins.importers import hf_disk
from vendiscope.plugins.importers.hf_disk import HFDiskImporter
from vendiscope.plugins.importers.parquet import ParquetImporter, schema_from_description
from vendiscope.plugins.importers.txt_folder import TxtFolderImporter


# --------------------------------------------------------------------------- Parquet
def write_parquet(path: Path) -> tuple[pa.Table, list[dict]]:
    rows = [
        {
            "id": i,
            "text": f"row {i}" if i != 3 else None,
            "score": i / 2,
            "tags": ["a", "b"][: i % 3],
            "meta": {"source": f"s{i % 2}", "ok": i % 2 == 0},
            "at": dt.datetime(2024, 1, 1 + i),
        }
        for i in range(10)
    ]
    table = pa.Table.from_pylist(rows).replace_schema_metadata({"origin": "test"})
    pq.write_table(table, path, row_group_size=4)
    return table, rows


def test_parquet_rows_numbers_and_positions(tmp_path: Path) -> None:
    path = tmp_path / "a.parquet"
    _, rows = write_parquet(path)
    items = read_all(ParquetImporter(batch_size=3), path)
    assert data(items) == rows
    assert numbers(items) == list(range(1, 11))
    assert [item.position for item in items] == list(range(1, 11))


def test_parquet_inspect_keeps_the_exact_schema(tmp_path: Path) -> None:
    path = tmp_path / "a.parquet"
    table, _ = write_parquet(path)
    info = ParquetImporter().inspect(path)
    assert (info.unit, info.total, info.progress_unit) == ("row", 10, "rows")
    assert info.columns == ("id", "text", "score", "tags", "meta", "at")
    assert info.schema["columns"] == list(info.columns)
    assert isinstance(info.schema["arrow"], str)
    rebuilt = schema_from_description(info.schema)
    assert rebuilt.equals(pq.read_schema(path), check_metadata=True)
    assert rebuilt.remove_metadata().equals(table.schema.remove_metadata())
    assert rebuilt.metadata[b"origin"] == b"test"


def test_parquet_through_the_registry(tmp_path: Path) -> None:
    path = tmp_path / "a.pq"
    _, rows = write_parquet(path)
    registry = default_registry()
    importer = registry.create("importer", registry.importer_for(path).name, batch_size=4)
    assert data(read_all(importer, path)) == rows


def test_not_a_parquet_file(tmp_path: Path) -> None:
    path = tmp_path / "fake.parquet"
    path.write_text("id,text\n1,hello\n")
    with pytest.raises(InputError, match="not a readable Parquet file") as caught:
        list(ParquetImporter().read(path))
    assert Path(caught.value.location.file) == path
    with pytest.raises(InputError, match="not a readable Parquet file"):
        ParquetImporter().inspect(path)


# --------------------------------------------------------------------------- HF datasets folders
ROWS = [{"question": f"q{i}", "answer": str(i), "label": i % 2} for i in range(7)]


def save_dataset(path: Path, rows: list[dict] = ROWS) -> Path:
    import datasets

    features = datasets.Features(
        {
            "question": datasets.Value("string"),
            "answer": datasets.Value("string"),
            "label": datasets.ClassLabel(names=["no", "yes"]),
        }
    )
    datasets.Dataset.from_list(rows, features=features).save_to_disk(str(path))
    return path


def save_dataset_dict(path: Path, splits: dict[str, list[dict]]) -> Path:
    import datasets

    datasets.DatasetDict(
        {name: datasets.Dataset.from_list(rows) for name, rows in splits.items()}
    ).save_to_disk(str(path))
    return path


def test_hf_dataset_rows_in_batches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hf_disk, "BATCH_SIZE", 3)
    path = save_dataset(tmp_path / "ds")
    items = read_all(HFDiskImporter(), path)
    assert data(items) == ROWS
    assert numbers(items) == list(range(1, 8))
    assert [item.position for item in items] == list(range(1, 8))


def test_hf_dataset_inspect_has_schema_and_features(tmp_path: Path) -> None:
    import datasets

    path = save_dataset(tmp_path / "ds")
    info = HFDiskImporter().inspect(path)
    assert (info.unit, info.total, info.progress_unit) == ("row", 7, "rows")
    assert info.columns == ("question", "answer", "label")
    assert info.schema["columns"] == ["question", "answer", "label"]
    restored = datasets.Features.from_dict(info.schema["features"])
    assert restored == datasets.load_from_disk(str(path)).features
    assert restored["label"].names == ["no", "yes"]
    schema = schema_from_description(info.schema)
    assert schema.field("label").type == pa.int64()
    assert b"huggingface" in schema.metadata
    assert "split" not in info.schema


def test_hf_dataset_through_the_registry(tmp_path: Path) -> None:
    path = save_dataset(tmp_path / "ds")
    registry = default_registry()
    contribution = registry.importer_for(path)
    assert contribution.name == "hf-disk"
    assert data(read_all(registry.create("importer", contribution.name), path)) == ROWS


def test_hf_dataset_dict_single_split_is_used(tmp_path: Path) -> None:
    path = save_dataset_dict(tmp_path / "dd", {"validation": [{"a": 1}, {"a": 2}]})
    assert data(read_all(HFDiskImporter(), path)) == [{"a": 1}, {"a": 2}]
    assert HFDiskImporter().inspect(path).schema["split"] == "validation"


def test_hf_dataset_dict_split_choice(tmp_path: Path) -> None:
    path = save_dataset_dict(tmp_path / "dd", {"train": [{"a": 1}, {"a": 2}], "test": [{"a": 3}]})
    assert data(read_all(HFDiskImporter(), path)) == [{"a": 1}, {"a": 2}]
    assert data(read_all(HFDiskImporter(split="test"), path)) == [{"a": 3}]
    info = HFDiskImporter(split="test").inspect(path)
    assert (info.total, info.schema["split"]) == (1, "test")
    with pytest.raises(InputError, match="no split 'dev' \\(splits: 'train', 'test'\\)"):
        list(HFDiskImporter(split="dev").read(path))


def test_hf_dataset_dict_without_train_needs_a_choice(tmp_path: Path) -> None:
    path = save_dataset_dict(tmp_path / "dd", {"a": [{"x": 1}], "b": [{"x": 2}]})
    with pytest.raises(InputError, match="several splits \\('a', 'b'\\)") as caught:
        list(HFDiskImporter().read(path))
    assert Path(caught.value.location.file) == path
    assert data(read_all(HFDiskImporter(split="b"), path)) == [{"x": 2}]


def test_hf_folder_without_markers(tmp_path: Path) -> None:
    (tmp_path / "x.arrow").write_bytes(b"not really")
    with pytest.raises(InputError, match="not a Hugging Face datasets folder"):
        list(HFDiskImporter().read(tmp_path))


def test_hf_folder_damaged(tmp_path: Path) -> None:
    path = save_dataset(tmp_path / "ds")
    for arrow in path.glob("*.arrow"):
        arrow.write_bytes(b"garbage")
    with pytest.raises(InputError, match="cannot read this datasets folder"):
        list(HFDiskImporter().read(path))


# --------------------------------------------------------------------------- text folders
def make_texts(root: Path) -> Path:
    (root / "b" / "deep").mkdir(parents=True)
    (root / ".hidden").mkdir()
    (root / "z.txt").write_bytes(b"last\r\nline\n")
    (root / "a.txt").write_text("first", encoding="utf-8")
    (root / "b" / "c.txt").write_text("nested", encoding="utf-8")
    (root / "b" / "deep" / "d.txt").write_bytes(b"\xef\xbb\xbfwith bom \xe2\x9c\x93")
    (root / "b" / "notes.md").write_text("# not text", encoding="utf-8")
    (root / ".hidden" / "secret.txt").write_text("hidden", encoding="utf-8")
    (root / ".skip.txt").write_text("hidden too", encoding="utf-8")
    (root / "empty.txt").write_bytes(b"")
    return root


def test_txt_folder_rows_sorted_by_relative_path(tmp_path: Path) -> None:
    root = make_texts(tmp_path / "texts")
    items = read_all(TxtFolderImporter(), root)
    assert data(items) == [
        {"path": "a.txt", "text": "first"},
        {"path": "b/c.txt", "text": "nested"},
        {"path": "b/deep/d.txt", "text": "with bom \u2713"},
        {"path": "empty.txt", "text": ""},
        {"path": "z.txt", "text": "last\r\nline\n"},
    ]
    assert numbers(items) == [1, 2, 3, 4, 5]
    info = TxtFolderImporter().inspect(root)
    assert (info.unit, info.total, info.progress_unit) == ("file", 5, "files")
    assert info.columns == ("path", "text")


def test_txt_folder_pattern_and_recursion(tmp_path: Path) -> None:
    root = make_texts(tmp_path / "texts")
    flat = data(read_all(TxtFolderImporter(recursive=False), root))
    assert [row["path"] for row in flat] == ["a.txt", "empty.txt", "z.txt"]
    markdown = data(read_all(TxtFolderImporter(pattern="*.md"), root))
    assert markdown == [{"path": "b/notes.md", "text": "# not text"}]


def test_txt_folder_bad_files_are_bad_rows(tmp_path: Path) -> None:
    root = tmp_path / "texts"
    root.mkdir()
    (root / "1.txt").write_text("fine", encoding="utf-8")
    (root / "2.txt").write_bytes(b"caf\xe9")
    (root / "3.txt").write_bytes(b"\x00\x01\x02binary")
    items = read_all(TxtFolderImporter(), root)
    assert numbers(items) == [1, 2, 3]
    latin, binary = bad(items)
    assert (latin.field, latin.message) == ("text", "2.txt: invalid UTF-8 at byte 4")
    assert (binary.field, binary.message) == ("text", "3.txt: looks like a binary file, not text")
    assert data(read_all(TxtFolderImporter(encoding="latin-1", pattern="2.txt"), root)) == [
        {"path": "2.txt", "text": "café"}
    ]


def test_txt_folder_without_matching_files(tmp_path: Path) -> None:
    (tmp_path / "readme.md").write_text("nothing to see")
    with pytest.raises(InputError, match=r"no files matching '\*\.txt'") as caught:
        list(TxtFolderImporter().read(tmp_path))
    assert Path(caught.value.location.file) == tmp_path
    with pytest.raises(InputError, match="no files matching"):
        TxtFolderImporter().inspect(tmp_path)


def test_txt_folder_through_the_registry(tmp_path: Path) -> None:
    root = make_texts(tmp_path / "texts")
    registry = default_registry()
    contribution = registry.importer_for(root)
    assert contribution.name == "txt-folder"
    importer = registry.create("importer", contribution.name, recursive=False)
    assert len(data(read_all(importer, root))) == 3
