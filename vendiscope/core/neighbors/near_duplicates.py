"""The near-duplicates job: groups of records whose cosine similarity is over a threshold."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from vendiscope.core.base.errors import ProjectError
from vendiscope.core.base.jobs import CancelToken, NullProgress, Progress
from vendiscope.core.neighbors.algorithms.index import normalized
from vendiscope.core.neighbors.cache import METRIC, get_index, query_batches, resolve_vector_set
from vendiscope.core.neighbors.options import NearDuplicateOptions
from vendiscope.core.neighbors.run_result import NearDuplicateResult
from vendiscope.core.store import subsets, vectors
from vendiscope.core.store.models import SubsetInfo
from vendiscope.core.store.project import Project
from vendiscope.core.store.runs import recorded_run
from vendiscope.core.store.vectors import VectorSetInfo
from vendiscope.core.vectors import resolve

if TYPE_CHECKING:
    import numpy as np

MAX_GROUPS_IN_RUN = 10_000
MAX_GROUP_MEMBERS_IN_RUN = 1_000
RUN_PACKAGES = ("faiss-cpu", "faiss-gpu-cu12", "scipy")


@dataclass(frozen=True)
class NearDuplicateGroup:
    """Records that are near-duplicates of each other (connected by similarity >= threshold).

    ``positions`` are sorted; the first is the representative that is kept.
    ``similarities[i]`` is the cosine similarity of ``positions[i]`` to the representative
    (1.0 for the representative itself; it can be below the threshold for a record that
    joined the group through another member).
    """

    positions: tuple[int, ...]
    similarities: tuple[float, ...]

    @property
    def representative(self) -> int:
        return self.positions[0]

    @property
    def redundant(self) -> tuple[int, ...]:
        return self.positions[1:]

    def __len__(self) -> int:
        return len(self.positions)


@dataclass(frozen=True)
class NearDuplicateReport:
    dataset: str
    vector_set: str
    threshold: float
    k: int
    n_records: int
    groups: list[NearDuplicateGroup]
    run_id: int
    subset: SubsetInfo | None
    index: dict[str, Any]
    seconds: float
    computed_on: str = ""
    """The vectors searched, as :func:`vendiscope.core.vectors.resolve.describe` says."""

    @property
    def redundant(self) -> int:
        """Records that are not their group's representative (what the subset holds)."""
        return sum(len(g) - 1 for g in self.groups)

    @property
    def records_in_groups(self) -> int:
        return sum(len(g) for g in self.groups)

    def summary(self) -> dict[str, Any]:
        """The headline numbers, as the CLI and the API show them."""
        return self.result().summary()

    def result(self) -> NearDuplicateResult:
        """What the run stores (its first groups listed, largest first)."""
        listed = self.groups[:MAX_GROUPS_IN_RUN]
        return NearDuplicateResult(
            dataset=self.dataset,
            vector_set=self.vector_set,
            threshold=self.threshold,
            k=self.k,
            records=self.n_records,
            groups=len(self.groups),
            records_in_groups=self.records_in_groups,
            redundant=self.redundant,
            largest_group=max((len(g) for g in self.groups), default=0),
            subset=self.subset.name if self.subset is not None else None,
            run_id=self.run_id,
            seconds=self.seconds,
            computed_on=self.computed_on,
            index=self.index,
            group_sizes=[len(g) for g in listed],
            group_positions=[list(g.positions[:MAX_GROUP_MEMBERS_IN_RUN]) for g in listed],
            groups_truncated=len(self.groups) > len(listed),
        )


def near_duplicate_subset_name(threshold: float) -> str:
    return f"near-duplicates@{threshold:g}"


def find_near_duplicates(
    project: Project,
    dataset: str,
    vector_set: str | None = None,
    *,
    threshold: float = NearDuplicateOptions.threshold,
    k: int = NearDuplicateOptions.k,
    save: bool = True,
    overwrite: bool = False,
    index: str = NearDuplicateOptions.index,
    device: str = NearDuplicateOptions.device,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> NearDuplicateReport:
    """Groups of records whose cosine similarity is ``>= threshold``.

    Each record is linked to those of its ``k`` nearest neighbours at or above the threshold;
    linked records form groups (connected components, i.e. union-find), so a group larger
    than ``k + 1`` is still found whole as long as its members are linked in a chain. The
    lowest position of each group is its representative; the others are redundant.

    Records a run (kind ``near-duplicates``). With ``save``, the redundant records are saved
    as the subset ``near-duplicates@THRESHOLD`` (gain = similarity to the representative),
    so a selection can exclude them; an existing subset of that name is refused (before any
    work) unless ``overwrite``, which deletes it and writes the new one in one transaction.
    The run's result lists the first :data:`MAX_GROUPS_IN_RUN` groups (largest first), each
    cut to :data:`MAX_GROUP_MEMBERS_IN_RUN` positions; the subset holds every redundant record.
    """
    import numpy as np

    started = time.perf_counter()
    progress = progress or NullProgress()
    cancel = cancel or CancelToken()
    chosen = NearDuplicateOptions(threshold=threshold, k=k, index=index, device=device)
    threshold, k, index, device = chosen.threshold, chosen.k, chosen.index, chosen.device
    info = resolve_vector_set(project, dataset, vector_set)
    subset_name = near_duplicate_subset_name(threshold)
    if save and not overwrite:
        _refuse_existing_subset(project, dataset, subset_name)
    params = {
        "vector_set": info.name,
        "vector_set_id": info.id,
        "threshold": threshold,
        "k": k,
        "metric": METRIC,
        "index": index,
        "save": save,
        "subset": subset_name if save else None,
    }
    with recorded_run(
        project,
        key=f"near-duplicates:{dataset}:{info.name}",
        kind="near-duplicates",
        plugin="core:near-duplicates",
        dataset_id=project.dataset(dataset).id,
        params=params,
        packages=RUN_PACKAGES,
        cancel=cancel,
        started=started,
    ) as run:
        built = get_index(project, dataset, info.name, kind=index, device=device,
                          n_queries=info.n_rows, progress=progress, cancel=cancel)  # fmt: skip
        edges_a: list[np.ndarray] = []
        edges_b: list[np.ndarray] = []
        progress.start(f"finding near-duplicates in {dataset}", total=info.n_rows, unit="records")
        for start, rows in query_batches(project, dataset, info, cancel):
            sims, found = built.search(rows, k + 1)
            own = np.arange(start, start + len(rows), dtype=np.int64)[:, None]
            hit = (sims >= threshold) & (found >= 0) & (found != own)
            edges_a.append(np.broadcast_to(own, found.shape)[hit])
            edges_b.append(found[hit])
            progress.update(start + len(rows))
        progress.finish()
        groups = _groups(project, info, info.n_rows, edges_a, edges_b)
        seconds = run.seconds
        report_subset = None
        if save:
            redundant = [p for g in groups for p in g.redundant]
            gains = [s for g in groups for s in g.similarities[1:]]
            order = np.argsort(redundant, kind="stable")
            report_subset = subsets.save(
                project,
                dataset,
                subset_name,
                [redundant[i] for i in order],
                gains=[gains[i] for i in order],
                run_id=run.id,
                overwrite=overwrite,
                description=(
                    f"records whose {info.name} embedding has cosine similarity >= {threshold:g} "
                    "to a lower-position record of their group (redundant near-duplicates)"
                ),
            )
        report = NearDuplicateReport(
            dataset, info.name, threshold, k, info.n_rows, groups, run.id, report_subset,
            built.describe(), seconds, resolve.describe(info, run.id),
        )  # fmt: skip
        run.finish(report.result().to_json(), seconds=report.seconds)
    return report


def _groups(
    project: Project,
    info: VectorSetInfo,
    n: int,
    edges_a: list[np.ndarray],
    edges_b: list[np.ndarray],
) -> list[NearDuplicateGroup]:
    """Connected components of the similarity graph, largest first (then by position)."""
    import numpy as np
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    a = np.concatenate(edges_a) if edges_a else np.empty(0, dtype=np.int64)
    b = np.concatenate(edges_b) if edges_b else np.empty(0, dtype=np.int64)
    if len(a) == 0:
        return []
    graph = coo_matrix((np.ones(len(a), dtype=np.int8), (a, b)), shape=(n, n)).tocsr()
    _, labels = connected_components(graph, directed=True, connection="weak")
    sizes = np.bincount(labels)
    in_groups = np.flatnonzero(sizes[labels] > 1)  # sorted positions
    members_by_label: dict[int, list[int]] = {}
    for position in in_groups:
        members_by_label.setdefault(int(labels[position]), []).append(int(position))
    rows = normalized(vectors.read_rows(project, info, [int(p) for p in in_groups]))
    row_of = {int(p): i for i, p in enumerate(in_groups)}
    groups = []
    for members in members_by_label.values():
        rep = rows[row_of[members[0]]]
        sims = rows[[row_of[p] for p in members]] @ rep
        sims[0] = 1.0
        groups.append(NearDuplicateGroup(tuple(members), tuple(round(float(s), 6) for s in sims)))
    groups.sort(key=lambda g: (-len(g), g.representative))
    return groups


def _refuse_existing_subset(project: Project, dataset: str, name: str) -> None:
    if any(s.name == name for s in project.subsets(dataset)):
        raise ProjectError(
            f"dataset '{dataset}' already has a subset named '{name}'; replace it with "
            "overwrite=True (`--overwrite`), or do not save (`--no-save`)"
        )
