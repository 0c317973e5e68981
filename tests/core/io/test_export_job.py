"""The export job: round trips in every format, subsets, manifests, atomic writes."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import orjson
import pytest

from tests.conftest import qa_rows, write_jsonl
from vendiscope.core.base.errors import ExportError, PluginRuntimeError
from vendiscope.core.io.exporting import export_dataset
from vendiscope.core.io.hashing import content_hash
from vendiscope.core.io.importing import import_dataset
from vendiscope.core.plugin_host import Exporter, PluginRegistry
from vendiscope.core.plugin_host.manifest import Contribution, PluginManifest
from vendiscope.core.store import subsets


def read_jsonl(path: Path) -> list[dict]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


ROWS = [
    {
        "id": 1,
        "question": "Ünïcode \u2013 ok?",
        "answer": "yes\nwith a newline",
        "tags": ["a", "b"],
    },
    {"id": 2, "question": "null answer?", "answer": None, "tags": []},
    {"id": 3, "question": "nested", "answer": "x", "tags": ["c"], "meta": {"k": 1.5}},
]


def test_jsonl_roundtrip_is_exact(project, tmp_path: Path) -> None:
    import_dataset(project, write_jsonl(tmp_path / "in.jsonl", ROWS), name="d")
    result = export_dataset(project, "d", tmp_path / "out.jsonl")
    assert result.rows == 3 and result.exporter == "jsonl"
    assert read_jsonl(tmp_path / "out.jsonl") == ROWS
    assert [list(r) for r in read_jsonl(tmp_path / "out.jsonl")] == [list(r) for r in ROWS]


def test_csv_roundtrip_is_exact(project, tmp_path: Path) -> None:
    source = tmp_path / "in.csv"
    with source.open("w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["prompt", "response", "source"])
        writer.writerows([["a, quoted", "multi\nline", "x"], ["", "only response", "y"]])
    import_dataset(project, source, name="d")
    export_dataset(project, "d", tmp_path / "out.csv")
    assert (tmp_path / "out.csv").read_text() == source.read_text()


def test_parquet_roundtrip_keeps_types(project, tmp_path: Path) -> None:
    import datetime

    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table(
        {
            "prompt": ["p1", "p2"],
            "response": ["r1", "r2"],
            "score": pa.array([1, 2], pa.int16()),
            "when": pa.array([datetime.datetime(2024, 1, 2, 3, 4, 5)] * 2, pa.timestamp("us")),
            "blob": pa.array([b"\x00\x01", b"\xff"], pa.binary()),
        }
    )
    pq.write_table(table, tmp_path / "in.parquet")
    import_dataset(project, tmp_path / "in.parquet", name="d")
    export_dataset(project, "d", tmp_path / "out.parquet")
    assert pq.read_table(tmp_path / "out.parquet").equals(table)


def test_hf_folder_roundtrip_keeps_features(project, tmp_path: Path) -> None:
    import datasets

    features = datasets.Features(
        {"text": datasets.Value("string"), "label": datasets.ClassLabel(names=["neg", "pos"])}
    )
    original = datasets.Dataset.from_dict(
        {"text": ["good", "bad", "fine"], "label": [1, 0, 1]}, features=features
    )
    original.save_to_disk(str(tmp_path / "in_ds"))
    import_dataset(project, tmp_path / "in_ds", name="d")
    export_dataset(project, "d", tmp_path / "out_ds")
    loaded = datasets.load_from_disk(str(tmp_path / "out_ds"))
    assert loaded.features == features
    assert loaded.to_list() == original.to_list()


def test_subset_export_in_rank_order_with_manifest(project, tmp_path: Path) -> None:
    rows = qa_rows(30)
    import_dataset(project, write_jsonl(tmp_path / "in.jsonl", rows), name="d")
    subsets.save(project, "d", "pick", [20, 4, 11], gains=[3.0, 2.0, 1.0])
    result = export_dataset(project, "d", tmp_path / "pick.jsonl", subset="pick")
    assert read_jsonl(tmp_path / "pick.jsonl") == [rows[20], rows[4], rows[11]]

    manifest = json.loads(result.manifest.read_text())
    assert manifest["subset"] == "pick"
    assert manifest["dataset"]["name"] == "d" and manifest["dataset"]["rows"] == 30
    assert manifest["export"]["row_count"] == 3 and len(manifest["export"]["sha256"]) == 64
    expected = [
        content_hash({"prompt": r["question"], "response": r["answer"]})
        for r in (rows[20], rows[4], rows[11])
    ]
    assert manifest["content_hash"]["per_row"] == expected
    assert manifest["vendiscope_version"]
    assert [r.kind for r in project.runs("d")] == ["import", "export"]


def test_never_overwrites_without_force(project, tmp_path: Path) -> None:
    import_dataset(project, write_jsonl(tmp_path / "in.jsonl", qa_rows(3)), name="d")
    destination = tmp_path / "out.jsonl"
    destination.write_text("precious")
    with pytest.raises(ExportError, match="already exists"):
        export_dataset(project, "d", destination)
    assert destination.read_text() == "precious"
    export_dataset(project, "d", destination, force=True)
    assert len(read_jsonl(destination)) == 3


class ExplodingExporter(Exporter):
    suffix = ".boom"

    def write(self, rows, destination, *, schema):
        with destination.open("w") as handle:
            for number, row in enumerate(rows):
                handle.write(json.dumps(row) + "\n")
                if number == 5:
                    raise RuntimeError("disk on fire")
        return 0


def test_failed_export_leaves_nothing_behind(project, tmp_path: Path) -> None:
    import_dataset(project, write_jsonl(tmp_path / "in.jsonl", qa_rows(20)), name="d")
    registry = PluginRegistry()
    registry.add_manifest(
        PluginManifest(
            "boom",
            (
                Contribution(
                    "exporter", "boom", f"{__name__}:ExplodingExporter", meta={"suffix": ".boom"}
                ),
            ),
        )
    )
    out = tmp_path / "exports"
    out.mkdir()
    destination = out / "out.boom"
    destination.write_text("old")
    # reported with the exporter's and its plugin's names; the original error is the cause
    with pytest.raises(PluginRuntimeError, match=r"exporter 'boom' .* disk on fire") as caught:
        export_dataset(project, "d", destination, registry=registry, force=True)
    assert isinstance(caught.value.__cause__, RuntimeError)
    assert sorted(p.name for p in out.iterdir()) == ["out.boom"]
    assert destination.read_text() == "old"


def test_format_from_suffix_or_explicit(project, tmp_path: Path) -> None:
    import_dataset(project, write_jsonl(tmp_path / "in.jsonl", qa_rows(3)), name="d")
    with pytest.raises(ExportError, match="cannot tell the format"):
        export_dataset(project, "d", tmp_path / "out.xyz")
    result = export_dataset(project, "d", tmp_path / "out.xyz", format="csv")
    assert result.exporter == "csv"
    assert (tmp_path / "out.xyz").read_text().startswith("id,question,answer,source")
