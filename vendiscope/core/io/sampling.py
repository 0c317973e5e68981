"""A stratified random sample of a dataset, as a new dataset of the same project.

Vendi scores are compared at equal n, and G-Vendi costs about a second per record on a CPU:
two million-row datasets are compared by the scores of two samples of the same size, drawn
here (``vendiscope sample``). A sample keeps the dataset's mix of sources: each source (the
records without one are the stratum ``(none)``) gets its share of the rows by the largest
remainder, and at least one row when there are at least as many rows as sources; within a
source the rows are drawn uniformly without replacement (``numpy.random.default_rng(seed)``).

The sample is written in one transaction: its records (copied field by field, in the
dataset's order), its run (kind ``sample``: the parameters, and per source the rows in the
sample and in the dataset) and, on the sampled dataset, a subset named like the sample that
lists the rows taken (rank ``i`` is the sample's record ``i``). A cancel or an error leaves
the project as it was; :func:`sample_origin` tells later whether a dataset is a sample, and
of what.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from vendiscope.core.base.errors import ProjectError
from vendiscope.core.base.jobs import CancelToken, NullProgress, Progress
from vendiscope.core.base.text import check_name
from vendiscope.core.io.hashing import Fingerprint
from vendiscope.core.store import bulk, imports, samples
from vendiscope.core.store.models import DatasetInfo
from vendiscope.core.store.project import Project

__all__ = ["SampleResult", "Stratum", "allocate", "sample_dataset", "sample_origin"]

FORMAT = "sample"
"""The ``format`` of a dataset written by :func:`sample_dataset`; its run's kind too."""
BY = ("source",)
"""What a sample can be stratified by (a record column)."""
NO_VALUE = "(none)"
"""The stratum of the records without a source (as ``vendiscope stats`` names it)."""


@dataclass(frozen=True)
class Stratum:
    """One source of the sampled dataset: its records, and how many the sample took."""

    name: str
    rows: int
    sampled: int


@dataclass(frozen=True)
class SampleResult:
    """A sample written by :func:`sample_dataset`."""

    dataset: DatasetInfo
    """The new dataset."""
    parent: str
    parent_rows: int
    seed: int
    by: str
    strata: list[Stratum]
    """Largest first."""
    positions: list[int]
    """The sampled dataset's positions taken, ascending: the new dataset's records in order."""
    subset: str
    """The subset of ``parent`` that lists ``positions``."""
    run_id: int
    seconds: float

    @property
    def rows(self) -> int:
        return len(self.positions)


def default_name(dataset: str, rows: int) -> str:
    return f"{dataset}-sample-{rows}"


def allocate(sizes: Sequence[int], rows: int) -> list[int]:
    """Rows per stratum: proportional to ``sizes`` by the largest remainder, summing to
    ``rows``; every non-empty stratum gets at least one when ``rows`` allows it.

    Ties of the remainder go to the larger stratum, then to the earlier one. The row a small
    stratum is given comes from the stratum furthest above its proportional share.
    """
    total = sum(sizes)
    if not 0 <= rows <= total:
        raise ValueError(f"cannot take {rows} rows of {total}")
    if total == 0:
        return [0] * len(sizes)
    counts = [rows * size // total for size in sizes]
    by_remainder = sorted(
        range(len(sizes)), key=lambda i: (-(rows * sizes[i] % total), -sizes[i], i)
    )
    for i in by_remainder[: rows - sum(counts)]:
        counts[i] += 1
    if rows >= sum(1 for size in sizes if size):
        for i in [i for i, size in enumerate(sizes) if size and not counts[i]]:
            # ``rows * total`` times how far each stratum is above its share, in integers
            donor = max(
                (j for j in range(len(sizes)) if counts[j] > 1),
                key=lambda j: (counts[j] * total - rows * sizes[j], sizes[j], -j),
            )
            counts[donor] -= 1
            counts[i] = 1
    return counts


def sample_dataset(
    project: Project,
    dataset: str,
    rows: int,
    *,
    name: str | None = None,
    seed: int = 0,
    by: str = "source",
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> SampleResult:
    """Write a seeded stratified random sample of ``rows`` records of ``dataset`` as the new
    dataset ``name`` (default ``DATASET-sample-ROWS``), in one transaction.

    Refused, with nothing changed: ``rows`` outside 1 to the dataset's size, a ``name`` the
    project's datasets or the dataset's subsets already use, ``by`` other than ``source``.
    """
    started = time.perf_counter()
    progress = progress or NullProgress()
    cancel = cancel or CancelToken()
    if by not in BY:
        raise ProjectError(f"a sample is stratified by {', '.join(BY)}; got '{by}'")
    info = project.dataset(dataset)
    total = info.row_count
    if isinstance(rows, bool) or not isinstance(rows, int) or not 1 <= rows <= total:
        raise ProjectError(
            f"rows must be between 1 and {total:,} (the rows of dataset '{dataset}'); got {rows}"
        )
    name = check_name(default_name(dataset, rows) if name is None else name, "dataset")
    if any(d.name == name for d in project.datasets()):
        raise ProjectError(
            f"the project already has a dataset named '{name}'; choose another name (--name)"
        )
    if any(s.name == name for s in project.subsets(dataset)):
        raise ProjectError(
            f"dataset '{dataset}' already has a subset named '{name}' (the sample's rows are "
            f"listed in a subset of that name); choose another name (--name) or delete the "
            f"subset (`vendiscope subsets delete PROJECT {dataset} {name}`)"
        )
    strata, positions = _draw(project, dataset, rows, seed, by)

    origin = f"sample of {dataset} ({rows:,} of {total:,} rows, by {by}, seed {seed})"
    progress.start(f"Sampling {dataset}", total=rows, unit="records")
    fingerprint = Fingerprint(salt=orjson.dumps(info.field_mapping).decode())
    with project.engine.begin() as connection:
        dataset_id = imports.insert_dataset(
            connection,
            name=name,
            source_uri=origin,
            format=FORMAT,
            field_mapping=info.field_mapping,
            source_schema=info.source_schema,
        )
        parent_ids: list[int] = []
        for start in range(0, rows, samples.IN_BATCH):
            cancel.raise_if_cancelled()
            ids, hashes = samples.copy_records(
                connection, info.id, dataset_id, positions[start : start + samples.IN_BATCH], start
            )
            parent_ids += ids
            fingerprint.update(hashes)
            progress.update(len(parent_ids))
        cancel.raise_if_cancelled()
        imports.finish_dataset(
            connection,
            dataset_id,
            row_count=rows,
            duplicate_count=bulk.count_duplicates(connection, dataset_id, rows),
            skipped_count=0,
            fingerprint=fingerprint.hexdigest(),
        )
        seconds = time.perf_counter() - started
        run_id = imports.record_import_run(
            connection,
            key=f"sample:{name}",
            kind=FORMAT,
            plugin="core:sample",
            dataset_id=dataset_id,
            seed=seed,
            params={"dataset": dataset, "rows": rows, "seed": seed, "by": by},
            result={
                "dataset": name,
                "rows": rows,
                "parent": dataset,
                "parent_rows": total,
                "subset": name,
                "strata": {s.name: {"sample": s.sampled, "dataset": s.rows} for s in strata},
            },
            seconds=seconds,
        )
        samples.insert_subset(
            connection,
            dataset_id=info.id,
            name=name,
            description=f"the rows sampled into dataset '{name}' (by {by}, seed {seed})",
            run_id=run_id,
            record_ids=parent_ids,
        )
    progress.finish()
    return SampleResult(
        project.dataset(name), dataset, total, seed, by, strata, positions, name, run_id,
        time.perf_counter() - started,
    )  # fmt: skip


def _draw(
    project: Project, dataset: str, rows: int, seed: int, by: str
) -> tuple[list[Stratum], list[int]]:
    """The strata (largest first) and the positions drawn, ascending."""
    import numpy as np

    groups = samples.strata(project, dataset, by)
    keys = sorted(groups, key=lambda k: (k is not None, k or ""))  # a fixed order to draw in
    counts = allocate([len(groups[k]) for k in keys], rows)
    rng = np.random.default_rng(seed)
    taken: list[int] = []
    strata = []
    for key, count in zip(keys, counts, strict=True):
        members = groups[key]
        chosen = rng.choice(len(members), size=count, replace=False)
        taken += [members[i] for i in chosen.tolist()]
        strata.append(Stratum(NO_VALUE if key is None else key, len(members), count))
    strata.sort(key=lambda s: (-s.rows, s.name))
    return strata, sorted(taken)


def sample_origin(project: Project, dataset: str) -> dict[str, Any] | None:
    """Where a dataset written by :func:`sample_dataset` came from (None for any other).

    ``{"parent", "rows", "parent_rows", "by", "seed", "strata", "subset", "run_id",
    "describe"}``; ``describe`` reads "a stratified sample of 200 of pool's 978 rows".
    """
    if project.dataset(dataset).format != FORMAT:
        return None
    runs = [r for r in project.runs(dataset) if r.kind == FORMAT and r.result]
    if not runs:
        return None
    run = runs[-1]
    result = run.result or {}
    parent, rows, parent_rows = result["parent"], result["rows"], result["parent_rows"]
    return {
        "parent": parent,
        "rows": rows,
        "parent_rows": parent_rows,
        "by": run.params.get("by"),
        "seed": run.params.get("seed"),
        "strata": result.get("strata", {}),
        "subset": result.get("subset"),
        "run_id": run.id,
        "describe": f"a stratified sample of {rows:,} of {parent}'s {parent_rows:,} rows",
    }
