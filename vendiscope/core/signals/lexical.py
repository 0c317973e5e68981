"""Lexical near-duplicates (MinHash-LSH), the signal ``lexical-dups``.

Unlike the per-record signals, a duplicate group is a property of the whole dataset, so this
is one job over every record (not chunked): each record's word shingles are MinHashed, LSH
buckets propose pairs, pairs whose estimated Jaccard similarity reaches the threshold are
linked, and the groups are the connected components
(:func:`vendiscope.core.signals.algorithms.minhash.near_duplicate_groups`). The values are
stored like any signal's, as the vector set ``signals/lexical-dups``: ``lexical-dups`` flags
every member of a group but its first record (so ``--drop lexical-dups`` keeps one per group),
``lexical-group`` is the position of the group's first record. It complements the embedding
near-duplicates (``near-dups``), which find paraphrases; this finds copies with small edits.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Annotated

from vendiscope.core.base.jobs import CancelToken, NullProgress, Progress
from vendiscope.core.plugin_host.interfaces import SignalColumn
from vendiscope.core.plugin_host.options import OperationOptions
from vendiscope.core.plugin_host.params import Label, Range, Unit
from vendiscope.core.store import vectors
from vendiscope.core.store.project import Project
from vendiscope.core.store.runs import recorded_run
from vendiscope.core.vectors.job import VectorJobResult
from vendiscope.core.vectors.signal_sets import KIND, describe_columns, set_name

NAME = "lexical-dups"
COLUMNS = (
    SignalColumn("lexical-dups", "flag", "a near-copy of an earlier record (MinHash-LSH)"),
    SignalColumn("lexical-group", "number", "the position of its group's first record"),
)


@dataclass(frozen=True)
class LexicalOptions(OperationOptions):
    """The settings of one lexical near-duplicate search."""

    OPERATION = NAME

    threshold: Annotated[
        float,
        Range(gt=0, le=1),
        Unit("Jaccard similarity"),
        Label("Threshold"),
        "Records whose word shingles are at least this similar are near-copies.",
    ] = 0.8
    shingle_size: Annotated[
        int, Range(1, 20), Unit("words"), Label("Shingle"), "Words per shingle."
    ] = 5
    num_perm: Annotated[
        int, Range(16, 1024), Label("Permutations"), "MinHash permutations (more: finer)."
    ] = 128
    seed: Annotated[int, Range(0), Label("Seed"), "Seeds the MinHash permutations."] = 1


def lexical_duplicates(
    project: Project,
    dataset: str,
    options: LexicalOptions | None = None,
    *,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> VectorJobResult:
    """Find lexical near-duplicate groups of ``dataset``; store them as ``signals/lexical-dups``
    (replacing an earlier result: the groups of the whole dataset are found again)."""
    import numpy as np

    from vendiscope.core.signals.algorithms.minhash import near_duplicate_groups

    options = options or LexicalOptions()
    progress = progress or NullProgress()
    cancel = cancel or CancelToken()
    started = time.perf_counter()
    info = project.dataset(dataset)
    name = set_name(NAME)
    model_id = f"minhash/{options.as_dict()}"
    params = {"signal": NAME, "options": options.as_dict(), "columns": describe_columns(COLUMNS),
              "model_id": model_id}  # fmt: skip
    with recorded_run(
        project, key=f"signal:{dataset}:{NAME}", kind=KIND, plugin=f"signal:{NAME}",
        dataset_id=info.id, params=params, seed=options.seed, packages=("numpy", "pyarrow"),
        cancel=cancel, started=started,
    ) as run:  # fmt: skip
        progress.start(f"reading the {info.row_count:,} records of {dataset}", total=None)
        texts = [
            "\n\n".join(t for t in (r.prompt, r.response, r.text) if t)
            for r in project.iter_records(dataset)
        ]
        cancel.raise_if_cancelled()
        progress.start(f"MinHash-LSH over {len(texts):,} records", total=None)
        groups = near_duplicate_groups(
            texts, threshold=options.threshold, num_perm=options.num_perm,
            shingle_size=options.shingle_size, seed=options.seed,
        )  # fmt: skip
        cancel.raise_if_cancelled()
        positions = np.arange(len(groups))
        matrix = np.stack([groups != positions, groups], axis=1).astype(np.float32)
        if any(s.name == name for s in vectors.list_sets(project, dataset)):
            vectors.delete_set(project, dataset, name)
        vectors.write_matrix(project, dataset, name, matrix, kind=KIND, model=model_id,
                             params=params, run_id=run.id)  # fmt: skip
        duplicates = int(matrix[:, 0].sum())
        run.finish(
            {"records": len(groups), "duplicates": duplicates,
             "groups": len(np.unique(groups[groups != positions]))},
            seconds=time.perf_counter() - started,
        )  # fmt: skip
        progress.finish()
    found = next(s for s in vectors.list_sets(project, dataset) if s.name == name)
    return VectorJobResult(found, 0, {"duplicates": duplicates}, time.perf_counter() - started)


__all__ = ["COLUMNS", "NAME", "LexicalOptions", "lexical_duplicates"]
