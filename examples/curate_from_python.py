"""Import a dataset, inspect it, save a subset of one record per source, and export it.

Usage: python examples/curate_from_python.py DATA_FILE OUTPUT_FOLDER
"""

from __future__ import annotations

import sys
from pathlib import Path

from vendiscope.core.io.exporting import export_dataset
from vendiscope.core.io.importing import import_dataset
from vendiscope.core.store.project import Project


def main(data: Path, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    project_file = out / "example.vscope"
    with Project.open(project_file, create=True) as project:
        name = data.stem
        if name not in {d.name for d in project.datasets()}:
            result = import_dataset(project, data, name=name)
            print(f"imported {result.rows} records ({result.duplicates} exact duplicates)")
            print(f"mapping: {result.mapping.describe()}")
        stats = project.stats(name)
        print(f"sources: {stats['sources']}")

        first_of_each_source: dict[str | None, int] = {}
        for record in project.iter_records(name):
            first_of_each_source.setdefault(record.source, record.seq)
        subset = "one-per-source"
        if subset not in {s.name for s in project.subsets(name)}:
            project.create_subset(name, subset, list(first_of_each_source.values()))
        exported = export_dataset(
            project, name, out / "one-per-source.jsonl", subset=subset, force=True
        )
        print(f"exported {exported.rows} rows to {exported.destination}")
        print(f"manifest: {exported.manifest}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(Path(sys.argv[1]), Path(sys.argv[2]))
