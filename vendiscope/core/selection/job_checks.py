"""What the selection job checks before any work starts, and the plan it then carries out.

The budget (against the candidates left after exclusions and near-duplicates, by the one
rule of :func:`vendiscope.core.selection.budget.check_budget`), the subset name, quality
weights, finite vectors, and whether a set larger than memory can be streamed: every check
of the user's input is made here, by :func:`vendiscope.core.selection.job.select_dataset`,
before it records a run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from vendiscope.core.base.errors import ProjectError
from vendiscope.core.base.jobs import CancelToken, Progress
from vendiscope.core.metrics.quality import quality_weights
from vendiscope.core.metrics.streaming import ENV_BUDGET, memory_budget, set_bytes
from vendiscope.core.plugin_host.interfaces import StreamingSelector, VectorSource
from vendiscope.core.plugin_host.registry import PluginRegistry
from vendiscope.core.selection.budget import check_budget
from vendiscope.core.selection.options import SelectOptions
from vendiscope.core.store import subsets, vectors
from vendiscope.core.store.project import Project
from vendiscope.core.store.vectors import VectorSetInfo

if TYPE_CHECKING:
    import numpy as np


@dataclass(frozen=True)
class SelectionPlan:
    """Everything checked before work starts."""

    target: VectorSetInfo
    candidates: np.ndarray
    excluded: int
    k: int
    """The budget, checked against the candidates: a plain ``int`` from here on."""
    quality: np.ndarray | None
    """One weight per record of the dataset (not per candidate), or None."""
    name: str


def plan_selection(
    project: Project,
    dataset: str,
    method: str,
    k: object,
    target: VectorSetInfo,
    quality: str | None,
    exclude: Sequence[str],
    dedupe: float | None,
    name: str | None,
    overwrite: bool,
    drop: Sequence[str] = (),
) -> SelectionPlan:
    """Every check of a selection's input, before any work: the candidates (exclusions,
    dropped flags, near-duplicates), the budget, the subset name, the quality weights."""
    import numpy as np

    from vendiscope.core.signals.reading import mask, signal_columns

    info = project.dataset(dataset)
    dedupe = SelectOptions(method=method, dedupe=dedupe).dedupe  # checked once, here
    excluded = np.zeros(info.row_count, dtype=bool)
    for subset in exclude:
        excluded[subsets.members(project, dataset, subset).positions] = True
    if drop:  # records a signal flags (``pii``) or a filter matches (``words < 5``)
        columns = signal_columns(project, dataset)
        for expression in drop:
            excluded |= mask(columns, expression)
    weights = quality_weights(project, dataset, quality) if quality is not None else None
    plan = _candidates(target, excluded, weights, k, "")
    return replace(plan, name=_subset_name(project, dataset, method, plan.k, name, overwrite))


def _candidates(
    target: VectorSetInfo, excluded: np.ndarray, weights: np.ndarray | None, k: object, name: str
) -> SelectionPlan:
    """The rows left as candidates; ``k`` checked against them (the one place it is)."""
    import numpy as np

    candidates = np.flatnonzero(~excluded)
    budget = check_budget(k, len(candidates), left_out=int(excluded.sum()))
    if weights is not None and not (weights[candidates] > 0).any():
        raise ProjectError("quality: every candidate has weight 0")
    return SelectionPlan(target, candidates, int(excluded.sum()), budget, weights, name)


def _without_near_duplicates(
    project: Project,
    dataset: str,
    plan: SelectionPlan,
    threshold: float,
    progress: Progress,
    cancel: CancelToken,
) -> SelectionPlan:
    import numpy as np

    excluded = np.ones(plan.target.n_rows, dtype=bool)
    excluded[plan.candidates] = False
    excluded[_near_duplicates(project, dataset, plan.target, threshold, progress, cancel)] = True
    return _candidates(plan.target, excluded, plan.quality, plan.k, plan.name)


def default_subset_name(method: str, k: int) -> str:
    """The name a selection is saved under unless one is given: ``METHOD-K``."""
    return f"{method}-{k}"


def _subset_name(
    project: Project, dataset: str, method: str, k: int, name: str | None, overwrite: bool
) -> str:
    """The subset a selection saves: ``name`` or :func:`default_subset_name`, refused (before
    any work) when the dataset has it already, unless ``overwrite`` replaces it."""
    if name is not None:
        subsets.check_name(name)
        if not overwrite:
            subsets.refuse_existing(project, dataset, name)
        return name
    chosen = default_subset_name(method, k)
    if not overwrite and any(s.name == chosen for s in project.subsets(dataset)):
        raise ProjectError(
            f"subset '{chosen}' of dataset '{dataset}' exists (a selection's default name is "
            "METHOD-K); save this one under another name (name=..., `--name NAME`) or replace "
            "it (overwrite=True, `--overwrite`)"
        )
    return chosen


def _near_duplicates(
    project: Project,
    dataset: str,
    target: VectorSetInfo,
    threshold: float,
    progress: Progress,
    cancel: CancelToken,
) -> list[int]:
    from vendiscope.core.neighbors.search import find_near_duplicates

    report = find_near_duplicates(
        project, dataset, target.name, threshold=threshold, save=False,
        progress=progress, cancel=cancel,
    )  # fmt: skip
    return [p for group in report.groups for p in group.redundant]


def load_checked(project: Project, dataset: str, target: VectorSetInfo) -> np.ndarray:
    """The set's vectors, refused by row when one holds NaN or an infinity."""
    import numpy as np

    matrix = vectors.load(project, dataset, target.name)
    finite = np.isfinite(matrix).all(axis=1)
    if not finite.all():
        row = int(np.flatnonzero(~finite)[0])
        raise ProjectError(
            f"vector set '{target.name}' of dataset '{dataset}': row {row} (record {row}) "
            f"holds NaN or infinite values ({int((~finite).sum())} such rows); recompute it"
        )
    return matrix


def _check_streamable(
    registry: PluginRegistry,
    selector: Any,
    method: str,
    target: VectorSetInfo,
    exclude: Sequence[str],
    dedupe: float | None,
) -> None:
    """Refuse, before any work, what a set larger than memory cannot do."""
    size, budget = set_bytes(target) / 2**30, memory_budget() / 2**30
    where = (
        f"vector set '{target.name}' ({size:.2f} GiB) is larger than the memory budget "
        f"({budget:.2f} GiB, {ENV_BUDGET})"
    )
    if not isinstance(selector, StreamingSelector):
        able = [
            c.name
            for c in registry.contributions("selector")
            if issubclass(registry.load("selector", c.name), StreamingSelector)
        ]
        raise ProjectError(
            f"{where}, and selector '{method}' needs it in memory; selectors that read it "
            f"chunk by chunk: {', '.join(able) or 'none'}"
        )
    if exclude or dedupe is not None:
        raise ProjectError(f"{where}: --exclude and --dedupe need it in memory")


def _source_checked(project: Project, dataset: str, target: VectorSetInfo) -> VectorSource:
    """The set as a chunk source, after one pass that refuses NaN or infinite rows."""
    import numpy as np

    for start, chunk in vectors.iter_chunks(project, dataset, target.name):
        finite = np.isfinite(chunk).all(axis=1)
        if not finite.all():
            row = start + int(np.argmin(finite))
            raise ProjectError(
                f"vector set '{target.name}' of dataset '{dataset}': row {row} (record {row}) "
                "holds NaN or infinite values; recompute it"
            )
    return VectorSource(
        n=target.n_rows,
        dim=target.dim,
        dtype=target.dtype,
        chunks=lambda: vectors.iter_chunks(project, dataset, target.name),
        rows=lambda positions: vectors.read_rows(project, target, list(positions)),
    )
